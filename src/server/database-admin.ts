import { createPool, errorCode, isTransient } from '../store/pg/pool.js'
import { migrate, migrationStatus, type MigrationStatus } from '../store/pg/migrate.js'

export type { MigrationStatus }

/*
 * folio db migrate|status: the schema of a PostgreSQL database, without starting a server. The
 * URL's password never reaches a message: they name host, port and database only.
 */

/** host:port/database of a postgres:// URL, for messages. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`
  } catch {
    return 'the database (its URL cannot be parsed)'
  }
}

/** A failure to reach or use the database, as a sentence a person can act on. */
export class DatabaseUnavailableError extends Error {}

async function withPool<T>(url: string, fn: (pool: ReturnType<typeof createPool>) => Promise<T>): Promise<T> {
  if (!URL.canParse(url)) throw new DatabaseUnavailableError('the database URL is not a URL: use postgres://user:password@host:5432/database')
  const pool = createPool(url, { max: 1 })
  try {
    return await fn(pool)
  } catch (error) {
    // A driver or server error (a socket code, a SQLSTATE) is about reaching or using the
    // database; anything else (DatabaseTooNewError, MigrationChangedError) says enough itself.
    const code = (error as { code?: unknown }).code
    if (typeof code !== 'string' && !isTransient(error)) throw error
    const detail = error instanceof Error && error.message !== code ? ` (${error.message})` : ''
    throw new DatabaseUnavailableError(`${describeDatabase(url)}: ${errorCode(error)}${detail}`)
  } finally {
    await pool.end().catch(() => {})
  }
}

/** Applies what is pending (under the migration lock); returns what this call applied and the status after. */
export function migrateDatabase(url: string): Promise<{ applied: Array<{ id: number; name: string }>; status: MigrationStatus }> {
  return withPool(url, async (pool) => {
    const applied = await migrate(pool)
    return { applied: applied.map(({ id, name }) => ({ id, name })), status: await migrationStatus(pool) }
  })
}

export function databaseStatus(url: string): Promise<MigrationStatus> {
  return withPool(url, (pool) => migrationStatus(pool))
}
