import { rm } from 'node:fs/promises'
import type pg from 'pg'
import { createStorage } from 'unstorage'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { durableFsDriver } from '../src/store/engine/durable-fs-driver.js'
import { pgKvDriver } from '../src/store/pg/kv-driver.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'
import { makeDataDir } from './helpers/server.js'
import { storageDriverContract } from './helpers/storage-driver-contract.js'

/**
 * One contract (helpers/storage-driver-contract.ts), both drivers the store runs on; then what is
 * particular to PostgreSQL's.
 */

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!()
})

let db: TestDatabase
/** Two instances' pools on one database. */
let pools: [pg.Pool, pg.Pool]
beforeAll(async () => {
  db = await freshDatabase()
  pools = [db.pool(4), db.pool(4)]
})
afterAll(() => db?.drop())

describe('durableFsDriver: the storage driver contract', () => {
  storageDriverContract(async () => {
    const dir = await makeDataDir()
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    return { driver: () => durableFsDriver({ base: dir }), another: () => durableFsDriver({ base: dir }) }
  })
})

describe('pgKvDriver: the storage driver contract', () => {
  storageDriverContract(async () => {
    await pools[0].query('TRUNCATE folio_kv')
    return { driver: () => pgKvDriver({ pool: pools[0] }), another: () => pgKvDriver({ pool: pools[1] }) }
  })
})

describe('pgKvDriver', () => {
  it("lists and clears a prefix through the primary key's index, also in a prepared statement's generic plan", async () => {
    const pool = db.pool(1) // one connection: the driver's prepared statements are the ones EXPLAIN sees
    await pool.query('TRUNCATE folio_kv')
    await pool.query(`INSERT INTO folio_kv SELECT 'folios:' || i || ':blobs:' || j, '\\x00' FROM generate_series(1, 2000) i, generate_series(1, 10) j`)
    await pool.query('ANALYZE folio_kv')
    const driver = pgKvDriver({ pool })
    expect(await driver.getKeys('folios:12', {})).toHaveLength(10)
    await driver.clear!('folios:13', {})
    const plan = async (statement: string) => (await pool.query(`EXPLAIN EXECUTE ${statement}`)).rows.map((row) => row['QUERY PLAN']).join('\n')
    for (const mode of ['force_generic_plan', 'force_custom_plan']) {
      await pool.query(`SET plan_cache_mode = ${mode}`)
      for (const statement of ["folio_kv_keys_under('folios:12:', 'folios:12;')", "folio_kv_clear('folios:12', 'folios:12:', 'folios:12;')"]) {
        const shown = await plan(statement)
        expect(shown, `${mode}: ${statement}`).toContain('folio_kv_pkey')
        expect(shown, `${mode}: ${statement}`).not.toContain('Seq Scan')
      }
    }
    await pool.query('RESET plan_cache_mode')
  })

  it('dispose() waits for the statements in flight, so the pool can end right after', async () => {
    const pool = db.pool(2)
    await pools[0].query('TRUNCATE folio_kv')
    const storage = createStorage({ driver: pgKvDriver({ pool }) })
    const value = Buffer.alloc(8 * 1024 * 1024, 7)
    const writes = Array.from({ length: 4 }, (_, i) => storage.setItemRaw(`late:${i}`, value))
    await storage.dispose()
    await pool.end()
    await Promise.all(writes)
    const reader = createStorage({ driver: pgKvDriver({ pool: pools[1] }) })
    expect(await reader.getKeys('late')).toHaveLength(4)
    expect(((await reader.getItemRaw('late:3')) as Buffer).equals(value)).toBe(true)
  })

  it('retries a statement whose connection is lost while it runs, and refuses a key PostgreSQL cannot hold', async () => {
    const pool = db.pool(1)
    const storage = createStorage({ driver: pgKvDriver({ pool }) })
    await storage.setItem('r:1', 'before')
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
    const pid = rows[0]!.pid
    // Another session holds the table, so the write waits on the server; then its backend is
    // terminated under it (a restart, a failover) and the lock let go.
    const locker = await pools[1].connect()
    try {
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE folio_kv IN ACCESS EXCLUSIVE MODE')
      const write = storage.setItem('r:1', 'after')
      await expect
        .poll(async () => (await pools[1].query('SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0]?.wait_event_type)
        .toBe('Lock')
      expect((await pools[1].query('SELECT pg_terminate_backend($1) AS done', [pid])).rows[0].done).toBe(true)
      await locker.query('COMMIT')
      await write
    } finally {
      locker.release()
    }
    expect(await storage.getItem('r:1')).toBe('after')
    await expect(Promise.resolve().then(() => pgKvDriver({ pool }).setItem!('r:\0', 'x', {}))).rejects.toThrow(/unsafe storage key/)
  })
})
