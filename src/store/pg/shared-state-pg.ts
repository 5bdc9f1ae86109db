import type pg from 'pg'
import type { SharedState, Versioned, WindowCount } from '../coordination/shared-state.js'

/** A LIKE pattern matching keys that start with `prefix` (its own %, _ and \ taken literally). */
const startsWith = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** A value as json text: pg would turn a JavaScript array into a PostgreSQL array, not JSON. */
const asJson = (value: unknown) => JSON.stringify(value === undefined ? null : value)

interface RecordRow {
  key: string
  value: unknown
  version: string
  expires_at: string
}

const toVersioned = <T>(row: RecordRow): Versioned<T> => ({ value: row.value as T, version: Number(row.version), expiresAt: Number(row.expires_at) })

/**
 * SharedState in PostgreSQL (tables of migration 1): every answer is one statement, atomic in
 * the database, so any number of instances on one database agree. Time is the caller's clock
 * (epoch ms), as in the other implementations: expiry instants come from the callers' clocks,
 * and windows are aligned to multiples of their length, so instances agree on them as long as
 * their clocks do. Compare-and-set relies on READ COMMITTED's re-check of a locked row: of two
 * writers holding the same version, the second sees the first's new row and matches nothing.
 * Values are returned freshly parsed, so nothing a caller changes reaches the store.
 */
interface PendingHit {
  windowMs: number
  now: number
  resolve(window: WindowCount): void
  reject(error: unknown): void
}

export class PgSharedState implements SharedState {
  readonly #pool: pg.Pool
  readonly #now: () => number
  /** Hits waiting to be counted, per key: the first is being sent (hit()). */
  readonly #hits = new Map<string, PendingHit[]>()
  #sweeper: ReturnType<typeof setInterval> | undefined

  constructor(pool: pg.Pool, options: { now?: () => number; sweepMs?: number; warn?: (message: string) => void } = {}) {
    this.#pool = pool
    this.#now = options.now ?? (() => Date.now())
    const sweepMs = options.sweepMs ?? 60_000
    this.#sweeper = setInterval(
      () => void this.sweep().catch((error: Error) => options.warn?.(`shared state: sweeping expired entries failed (${error.message})`)),
      sweepMs,
    )
    this.#sweeper.unref()
  }

  /**
   * Hits of one key coalesce: while a statement for the key is on its way, the hits that arrive
   * wait and go together in the next one, which adds them all (each caller still gets its own
   * count, in arrival order). One client's burst is a few statements, not one per request
   * queued on the same row's lock.
   */
  hit(key: string, windowMs: number, now = this.#now()): Promise<WindowCount> {
    return new Promise<WindowCount>((resolve, reject) => {
      let pending = this.#hits.get(key)
      if (!pending) this.#hits.set(key, (pending = []))
      pending.push({ windowMs, now, resolve, reject })
      if (pending.length === 1) void this.#sendHits(key, pending)
    })
  }

  async #sendHits(key: string, pending: PendingHit[]): Promise<void> {
    // The hits of one turn of the event loop start together.
    await new Promise((r) => setImmediate(r))
    while (pending.length) {
      const batch = pending.slice()
      const now = Math.max(...batch.map((h) => h.now))
      try {
        const window = await this.#hitBy(key, batch[0]!.windowMs, now, batch.length)
        batch.forEach((h, i) => h.resolve({ count: window.count - batch.length + 1 + i, resetAt: window.resetAt }))
      } catch (error) {
        for (const h of batch) h.reject(error)
      }
      pending.splice(0, batch.length)
    }
    this.#hits.delete(key)
  }

  async #hitBy(key: string, windowMs: number, now: number, n: number): Promise<WindowCount> {
    const resetAt = (Math.floor(now / windowMs) + 1) * windowMs
    // Both columns test the same condition: an ended window starts again at n with its new end.
    const { rows } = await this.#pool.query<{ count: number; reset_at: string }>(
      `INSERT INTO shared_windows AS w (key, reset_at, count) VALUES ($1, $2, $4)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN w.reset_at <= $3 THEN $4 ELSE w.count + $4 END,
         reset_at = CASE WHEN w.reset_at <= $3 THEN $2 ELSE w.reset_at END
       RETURNING count, reset_at`,
      [key, resetAt, now, n],
    )
    return { count: rows[0]!.count, resetAt: Number(rows[0]!.reset_at) }
  }

  async add(key: string, by: number, expiresAt: number): Promise<number> {
    const { rows } = await this.#pool.query<{ value: string }>(
      `INSERT INTO shared_counters AS c (key, value, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET
         value = CASE WHEN c.expires_at <= $4 THEN $2 ELSE c.value + $2 END,
         expires_at = CASE WHEN c.expires_at <= $4 THEN $3 ELSE greatest(c.expires_at, $3) END
       RETURNING value`,
      [key, by, expiresAt, this.#now()],
    )
    return Number(rows[0]!.value)
  }

  async count(key: string): Promise<number> {
    const { rows } = await this.#pool.query<{ value: string }>('SELECT value FROM shared_counters WHERE key = $1 AND expires_at > $2', [key, this.#now()])
    return rows[0] ? Number(rows[0].value) : 0
  }

  async get<T>(key: string): Promise<Versioned<T> | undefined> {
    const { rows } = await this.#pool.query<RecordRow>('SELECT key, value, version, expires_at FROM shared_records WHERE key = $1 AND expires_at > $2', [
      key,
      this.#now(),
    ])
    return rows[0] && toVersioned<T>(rows[0])
  }

  async set<T>(key: string, value: T, expiresAt: number, ifVersion?: number | null): Promise<number | false> {
    let result: pg.QueryResult<{ version: string }>
    if (typeof ifVersion === 'number') {
      result = await this.#pool.query(
        `UPDATE shared_records SET value = $2::json, version = nextval('shared_record_versions'), expires_at = $3
         WHERE key = $1 AND version = $4 AND expires_at > $5 RETURNING version`,
        [key, asJson(value), expiresAt, ifVersion, this.#now()],
      )
    } else {
      // null: create only, which an expired record does not stand in the way of.
      const onlyIfGone = ifVersion === null
      result = await this.#pool.query(
        `INSERT INTO shared_records AS r (key, value, version, expires_at) VALUES ($1, $2::json, nextval('shared_record_versions'), $3)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = excluded.version, expires_at = excluded.expires_at
         ${onlyIfGone ? 'WHERE r.expires_at <= $4' : ''}
         RETURNING version`,
        onlyIfGone ? [key, asJson(value), expiresAt, this.#now()] : [key, asJson(value), expiresAt],
      )
    }
    return result.rows[0] ? Number(result.rows[0].version) : false
  }

  async delete(key: string, ifVersion?: number): Promise<boolean> {
    const { rowCount } = await this.#pool.query(`DELETE FROM shared_records WHERE key = $1 AND expires_at > $2 AND ($3::bigint IS NULL OR version = $3)`, [
      key,
      this.#now(),
      ifVersion ?? null,
    ])
    return (rowCount ?? 0) > 0
  }

  async list<T>(prefix: string): Promise<Array<{ key: string } & Versioned<T>>> {
    const { rows } = await this.#pool.query<RecordRow>(
      `SELECT key, value, version, expires_at FROM shared_records WHERE key LIKE $1 AND expires_at > $2 ORDER BY key`,
      [startsWith(prefix), this.#now()],
    )
    return rows.map((row) => ({ key: row.key, ...toVersioned<T>(row) }))
  }

  /** Deletes what has expired (it is never answered meanwhile). Every instance may run it: deleting twice is harmless. */
  async sweep(): Promise<void> {
    const now = this.#now()
    await this.#pool.query('DELETE FROM shared_windows WHERE reset_at <= $1', [now])
    await this.#pool.query('DELETE FROM shared_counters WHERE expires_at <= $1', [now])
    await this.#pool.query('DELETE FROM shared_records WHERE expires_at <= $1', [now])
  }

  /** Stops the sweeper; the pool is the caller's to end. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper)
  }
}
