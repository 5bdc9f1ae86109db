import type pg from 'pg'
import type { Readiness } from '../readiness.js'
import { migrate, migrationStatus } from './migrate.js'
import { createPool, errorCode } from './pool.js'
import { PgPubSub } from './pub-sub-pg.js'
import { PgSharedState } from './shared-state-pg.js'

export interface OpenDatabaseOptions {
  /** postgres://user:password@host:port/database */
  url: string
  /** Connections this instance may hold (the listener takes one more). */
  poolSize?: number
  warn?: (message: string) => void
  log?: (message: string) => void
}

/** What one folio instance holds of the database: its pool, and the parts already kept there. */
export interface Database {
  pool: pg.Pool
  shared: PgSharedState
  pubSub: PgPubSub
  /** Reachable, and the schema is the one this folio knows (GET /readyz). */
  readiness(): Promise<Readiness>
  /** Stops listening and sweeping, then ends the pool (waiting for its queries). */
  close(): Promise<void>
}

/**
 * Opens the database for one instance: the pool, pending migrations (under the advisory lock:
 * instances starting together take turns, and only the first applies anything), then the
 * shared state and the listener. Nothing else of the store is in PostgreSQL yet (ARCHITECTURE.md).
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const pool = createPool(options.url, { max: options.poolSize, warn: options.warn })
  try {
    const applied = await migrate(pool)
    if (applied.length) options.log?.(`database: applied migration ${applied.map((m) => m.id).join(', ')}`)
    const shared = new PgSharedState(pool, { warn: options.warn })
    const pubSub = await PgPubSub.start(pool, options.url, { warn: options.warn })
    return {
      pool,
      shared,
      pubSub,
      readiness: () => databaseReadiness(pool),
      async close() {
        await pubSub.close()
        await shared.close()
        await pool.end()
      },
    }
  } catch (error) {
    await pool.end().catch(() => {})
    throw error
  }
}

/** Not ready while the database cannot be reached, or while its schema is not this folio's (a migration pending, or a newer folio's). */
export async function databaseReadiness(pool: pg.Pool): Promise<Readiness> {
  try {
    const status = await migrationStatus(pool)
    if (status.current) return { ready: true }
    if (status.unknown.length) return { ready: false, reason: `the database was migrated by a newer folio (migration ${status.unknown.join(', ')})` }
    if (status.changed.length) return { ready: false, reason: `migration ${status.changed.join(', ')} differs from the one applied` }
    return { ready: false, reason: `migration ${status.pending.map((m) => m.id).join(', ')} not applied (folio db migrate)` }
  } catch (error) {
    return { ready: false, reason: `the database cannot be reached (${errorCode(error)})` }
  }
}
