import pg from 'pg'

/**
 * The one way folio opens PostgreSQL connections (driver: pg, ARCHITECTURE.md says why).
 * A pool's idle client whose backend dies (a restart, a failover, pg_terminate_backend) emits
 * 'error' on the pool; with no listener that would end the process, so one is always attached.
 */
export interface PoolOptions {
  /** Connections this instance may hold (instances × (max + 1 listener) must stay under the server's max_connections). */
  max?: number
  /** Where idle-client errors go (they are survivable: the pool drops that client). */
  warn?: (message: string) => void
}

export const DEFAULT_POOL_SIZE = 10

export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? DEFAULT_POOL_SIZE,
    // Without it an exhausted pool (or a server that accepts TCP and never answers) waits forever.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'folio',
  })
  pool.on('error', (error) => {
    // pool.end() lets its idle clients go without waiting for their sockets to close: one whose
    // backend is ended meanwhile (the database dropped or stopped with it) is nothing to report.
    if ((pool as { ending?: boolean }).ending) return
    options.warn?.(`database: an idle connection failed (${errorCode(error)}); it was dropped`)
  })
  return pool
}

/** Runs `fn` in one transaction on one client; a client whose ROLLBACK failed is destroyed, never pooled again. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  // Held across awaits, the client is not the pool's: its backend dying would be an unhandled 'error'.
  const onError = (error: Error) => (broken = error)
  client.on('error', onError)
  try {
    await client.query('BEGIN')
    const result = await fn(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError))
    throw error
  } finally {
    client.off('error', onError)
    client.release(broken)
  }
}

/** SQLSTATEs and socket codes after which the same statement may work (a restart, a failover, a deadlock). */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '40001',
  '40P01',
])
/** pg raises some connection losses with no code at all. */
const TRANSIENT_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable/

export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'string' && TRANSIENT_CODES.has(code)) return true
  return error instanceof Error && TRANSIENT_MESSAGES.test(error.message)
}

/**
 * Retries `fn` on transient failures with a doubling pause. Only for idempotent statements or
 * whole transactions: a COMMIT whose connection died may or may not have committed.
 */
export async function retrying<T>(fn: () => Promise<T>, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (error) {
      if (attempt >= attempts || !isTransient(error)) throw error
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** (attempt - 1), 2_000)))
    }
  }
}

/** A short name for a driver error in a log line: its SQLSTATE or socket code, else its message. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'string') return code
  return error instanceof Error ? error.message : String(error)
}
