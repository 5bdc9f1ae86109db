import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'
import { createPool } from '../../src/store/pg/pool.js'

export interface TestDatabase {
  url: string
  /** A pool on it, ended with the database (the pool of one "instance"). */
  pool(max?: number): pg.Pool
  drop(): Promise<void>
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(inject('pgUrl'))
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/**
 * A database of its own for a test file, on the run's PostgreSQL server (pg-setup.ts): a clone
 * of the migrated template, or with `empty`, a database with no folio tables at all.
 */
export async function freshDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString('hex')}`
  await admin((client) => client.query(`CREATE DATABASE ${name}${options.empty ? '' : ' TEMPLATE folio_template'}`))
  const url = inject('pgUrl').replace(/\/postgres$/, `/${name}`)
  const pools: pg.Pool[] = []
  return {
    url,
    pool(max = 10) {
      const pool = createPool(url, { max })
      pools.push(pool)
      return pool
    },
    async drop() {
      await Promise.all(pools.map((p) => p.end().catch(() => {})))
      await admin((client) => client.query(`DROP DATABASE ${name} WITH (FORCE)`))
    },
  }
}
