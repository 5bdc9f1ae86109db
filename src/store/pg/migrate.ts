import { createHash } from 'node:crypto'
import type pg from 'pg'
import { MIGRATIONS, type Migration } from './migrations.js'

/** Any number 64-bit wide; the same in every folio, so instances starting together take turns. */
const MIGRATION_LOCK = 0x666f6c696f
const TABLE = 'folio_migrations'

export const checksumOf = (migration: Migration) => createHash('sha256').update(migration.sql).digest('hex')

/** The database was migrated by a newer folio: this one does not know its schema. */
export class DatabaseTooNewError extends Error {
  constructor(readonly unknownIds: number[]) {
    super(`the database has migration ${unknownIds.join(', ')}, which this folio does not know: it was migrated by a newer folio. Upgrade folio.`)
  }
}

/** A released migration was changed after a database applied it. */
export class MigrationChangedError extends Error {
  constructor(readonly ids: number[]) {
    super(`migration ${ids.join(', ')} differs from the one this database applied (a released migration must never change; add a new one).`)
  }
}

export interface MigrationStatus {
  applied: Array<{ id: number; name: string; appliedAt: number }>
  pending: Array<{ id: number; name: string }>
  /** Applied here but unknown to this folio (a newer folio migrated the database). */
  unknown: number[]
  /** Applied, but with a checksum other than this folio's. */
  changed: number[]
  /** Everything this folio knows is applied, unchanged, and nothing newer is there. */
  current: boolean
}

interface AppliedRow {
  id: number
  name: string
  checksum: string
  applied_at: string
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  id integer PRIMARY KEY,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at bigint NOT NULL
)`

async function appliedRows(client: pg.Pool | pg.PoolClient): Promise<AppliedRow[] | undefined> {
  const exists = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [TABLE])
  if (!exists.rows[0]?.found) return undefined
  return (await client.query<AppliedRow>(`SELECT id, name, checksum, applied_at FROM ${TABLE} ORDER BY id`)).rows
}

function statusOf(rows: AppliedRow[], migrations: readonly Migration[]): MigrationStatus {
  const known = new Map(migrations.map((m) => [m.id, m]))
  const appliedIds = new Set(rows.map((r) => r.id))
  const unknown = rows.filter((r) => !known.has(r.id)).map((r) => r.id)
  const changed = rows.filter((r) => known.has(r.id) && checksumOf(known.get(r.id)!) !== r.checksum).map((r) => r.id)
  const pending = migrations.filter((m) => !appliedIds.has(m.id)).map(({ id, name }) => ({ id, name }))
  return {
    applied: rows.map((r) => ({ id: r.id, name: r.name, appliedAt: Number(r.applied_at) })),
    pending,
    unknown,
    changed,
    current: pending.length === 0 && unknown.length === 0 && changed.length === 0,
  }
}

/** What is applied and what is not, without changing anything (folio db status, /readyz). */
export async function migrationStatus(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationStatus> {
  return statusOf((await appliedRows(pool)) ?? [], migrations)
}

/**
 * Applies the pending migrations, in order, each in its own transaction with its record. Any
 * number of instances may call it at once: a session advisory lock lets one at a time in, and
 * the next finds nothing left to do. The lock lives on one checked-out connection; if anything
 * fails that connection is destroyed (release(error)), and the lock dies with its session.
 * Returns the migrations this call applied.
 */
export async function migrate(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<Migration[]> {
  const client = await pool.connect()
  let broken: Error | undefined
  const onError = (error: Error) => (broken = error)
  client.on('error', onError)
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    try {
      await client.query(CREATE_TABLE)
      const status = statusOf((await appliedRows(client)) ?? [], migrations)
      if (status.unknown.length) throw new DatabaseTooNewError(status.unknown)
      if (status.changed.length) throw new MigrationChangedError(status.changed)
      const applied: Migration[] = []
      for (const { id } of status.pending) {
        const migration = migrations.find((m) => m.id === id)!
        await client.query('BEGIN')
        try {
          await client.query(migration.sql)
          await client.query(`INSERT INTO ${TABLE} (id, name, checksum, applied_at) VALUES ($1, $2, $3, $4)`, [
            id,
            migration.name,
            checksumOf(migration),
            Date.now(),
          ])
          await client.query('COMMIT')
        } catch (error) {
          await client.query('ROLLBACK')
          throw error
        }
        applied.push(migration)
      }
      return applied
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK])
    }
  } catch (error) {
    broken ??= error as Error
    throw error
  } finally {
    client.off('error', onError)
    client.release(broken)
  }
}
