import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { KeyedMutex } from '../coordination/keyed-mutex.js'
import type { Locks } from '../coordination/locks.js'
import { LockSession, LocksClosedError, WAKE_CHANNEL } from './lock-session.js'
import { errorCode, isTransient } from './pool.js'

/**
 * A key's advisory lock id: the first 8 bytes of its sha256, as the signed bigint PostgreSQL
 * takes. Two keys that share an id only wait for each other across instances (in one instance
 * the session takes its own lock again), so a collision costs time, never correctness.
 */
export const lockIdOf = (key: string): string => createHash('sha256').update(key).digest().readBigInt64BE(0).toString()

/**
 * One try, one statement. Free: takes the lock and bumps the key's generation (the upsert works
 * on the newest row whatever the statement's snapshot); the bump is committed before the work
 * runs, so whoever takes the key next sees it. Taken: no row back, and the key is flagged as
 * waited for, so its release announces itself. (A CTE that is referenced twice, or calls a
 * volatile function, is computed once, in every PostgreSQL version.) The bump is at the acquire,
 * not the release, because both alternatives race: a release's bump commits only after its
 * unlock, and a read beside the try uses a snapshot taken before the lock was granted.
 */
const ACQUIRE = `WITH attempt AS (SELECT pg_try_advisory_lock($1) AS locked),
  taken AS (
    INSERT INTO folio_lock_generations AS g (key, generation) SELECT $2, 1 FROM attempt WHERE locked
    ON CONFLICT (key) DO UPDATE SET generation = g.generation + 1, waiting = false
    RETURNING generation
  ),
  flagged AS (
    UPDATE folio_lock_generations SET waiting = true WHERE key = $2 AND NOT waiting AND NOT (SELECT locked FROM attempt)
  )
  SELECT generation FROM taken`
/**
 * NOTIFY only when someone waits: a notifying commit takes a lock global to the server and
 * writes WAL, which an uncontended release then does not pay. A release that misses a flag set at
 * the very same moment costs its waiter one poll.
 */
const RELEASE = `SELECT pg_advisory_unlock($1),
  (SELECT pg_notify('${WAKE_CHANNEL}', $2) FROM folio_lock_generations WHERE key = $3 AND waiting)`
const MARK_CHANGED = `INSERT INTO folio_lock_generations AS g (key, generation) VALUES ($1, 1)
  ON CONFLICT (key) DO UPDATE SET generation = g.generation + 1`

/** The first pause of a waiter that hears no release; it doubles up to maxPollMs. */
const FIRST_POLL_MS = 10

export interface PgLocksOptions {
  warn?: (message: string) => void
  /** Keys whose generation this instance remembers (default 10,000); a key forgotten counts as stale at its next lock. */
  remember?: number
  /** The longest pause between two tries of a waiter that hears no release (default 200 ms: a killed holder sends none). */
  maxPollMs?: number
}

interface Hold {
  key: string
  lockId: string
  /** The lock connection it was taken on (LockSession's epoch). */
  epoch: number
  /** The key's generation this hold made. */
  generation: bigint
}

/**
 * Locks across the folio instances of one database (ARCHITECTURE.md, "PostgreSQL"). A key is
 * first taken in memory (KeyedMutex: an instance queues for itself without asking the database),
 * then as a session-level advisory lock on the instance's one lock connection (lock-session.ts):
 * any number of nested and concurrent locks live in that one session, so they can never exhaust
 * a pool or wait for each other's connections, and a killed instance's locks end with its session.
 * A lock is only ever tried (pg_try_advisory_lock: a blocking wait would hold up every other
 * statement on the shared session); a waiter tries again when a release is announced (NOTIFY) or,
 * failing that, after a short doubling pause, so a lost announcement or a killed holder costs at
 * most maxPollMs. Each acquire bumps the key's generation: one that is not the successor of the
 * last this instance made means another instance held the key since, and the onStale listeners
 * run before the work. The release is queued on the session and not awaited: the next holder on
 * this instance is queued behind it anyway, and idle() waits for it.
 *
 * Losing the lock connection ends every lock it held while the work under them may still run:
 * from then until that work ends, another instance may run work under the same keys. What is done
 * about it: a warning; every key counts as stale (this instance's next lock of any key calls
 * onStale); new locks wait for the new connection; and when such work ends, its key's generation is
 * bumped, so an instance that took the key meanwhile drops what it cached at its next lock.
 */
export class PgLocks implements Locks {
  readonly #local = new KeyedMutex()
  readonly #session: LockSession
  readonly #lastSeen: LRUCache<string, bigint>
  readonly #staleListeners = new Set<(key: string) => void>()
  readonly #held = new Set<Hold>()
  readonly #releasing = new Set<Promise<void>>()
  readonly #wakers = new Map<string, Set<() => void>>()
  readonly #warn: (message: string) => void
  readonly #maxPollMs: number
  #closed = false

  private constructor(url: string, options: PgLocksOptions) {
    this.#warn = options.warn ?? (() => {})
    this.#maxPollMs = options.maxPollMs ?? 200
    this.#lastSeen = new LRUCache({ max: options.remember ?? 10_000 })
    this.#session = new LockSession(url, {
      woken: (lockId) => this.#wake(lockId),
      lost: (error) => this.#lost(error),
      connected: () => this.#wakeAll(),
      warn: this.#warn,
    })
  }

  /** Resolves once the lock connection is open (retrying until it is). */
  static async start(url: string, options: PgLocksOptions = {}): Promise<PgLocks> {
    const locks = new PgLocks(url, options)
    await locks.#session.start()
    return locks
  }

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new LocksClosedError())
    return this.#local.run(key, async () => {
      const hold = await this.#acquire(key)
      this.#held.add(hold)
      try {
        this.#announceIfStale(hold)
        return await fn()
      } finally {
        this.#held.delete(hold)
        this.#release(hold)
      }
    })
  }

  /** Holds several keys at once, always taken in sorted order so two callers (on any instances) cannot deadlock. */
  runAll<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort()
    const step = (i: number): Promise<T> => (i === sorted.length ? fn() : this.run(sorted[i]!, () => step(i + 1)))
    return step(0)
  }

  /** Resolves once all work queued so far has finished and its locks are released in the database. */
  async idle(): Promise<void> {
    for (;;) {
      await this.#local.idle()
      if (!this.#releasing.size) return
      await Promise.allSettled([...this.#releasing])
    }
  }

  onStale(listener: (key: string) => void): () => void {
    this.#staleListeners.add(listener)
    return () => this.#staleListeners.delete(listener)
  }

  /** Waits for the work queued so far, then ends the lock connection (PostgreSQL lets go of anything left). */
  async close(): Promise<void> {
    await this.idle()
    this.#closed = true
    await this.#session.close()
    this.#wakeAll()
  }

  /** The lock connection's backend (tests end it to prove the recovery). */
  sessionPid(): Promise<number | undefined> {
    return this.#session.backendPid()
  }

  async #acquire(key: string): Promise<Hold> {
    const lockId = lockIdOf(key)
    for (let pause = FIRST_POLL_MS; ; pause = Math.min(pause * 2, this.#maxPollMs)) {
      if (this.#closed) throw new LocksClosedError()
      // Listening before trying: a release announced between a failed try and the wait still counts.
      const chance = this.#nextChance(lockId, pause)
      let attempt: { rows: Array<{ generation: string }>; epoch: number }
      try {
        attempt = await this.#session.query<{ generation: string }>({ name: 'folio_lock_acquire', text: ACQUIRE, values: [lockId, key] })
      } catch (error) {
        chance.cancel()
        // The connection was lost (and the lock, if the try took it): the next try waits for a new one.
        if (isTransient(error)) continue
        throw error
      }
      const taken = attempt.rows[0]
      if (taken && this.#session.isCurrent(attempt.epoch)) {
        chance.cancel()
        return { key, lockId, epoch: attempt.epoch, generation: BigInt(taken.generation) }
      }
      if (taken) chance.cancel()
      else await chance.promise
    }
  }

  /** Another instance held the key since this one last did (or this one forgot): listeners drop what they cached. */
  #announceIfStale(hold: Hold): void {
    const seen = this.#lastSeen.get(hold.key) ?? 0n
    // A listener that throws fails this work, and the key stays stale for the next.
    if (seen !== hold.generation - 1n) for (const listener of [...this.#staleListeners]) listener(hold.key)
    this.#lastSeen.set(hold.key, hold.generation)
  }

  #release(hold: Hold): void {
    const releasing = (this.#session.isCurrent(hold.epoch) ? this.#unlock(hold) : this.#markChanged(hold.key))
      .catch((error: unknown) => this.#warn(`locks: releasing a lock failed (${errorCode(error)})`))
      .finally(() => this.#releasing.delete(releasing))
    this.#releasing.add(releasing)
  }

  async #unlock(hold: Hold): Promise<void> {
    try {
      await this.#session.query({ name: 'folio_lock_release', text: RELEASE, values: [hold.lockId, hold.lockId, hold.key] })
    } catch (error) {
      // The connection went (the lock with it), maybe while the work still ran.
      if (isTransient(error)) return this.#markChanged(hold.key)
      throw error
    }
  }

  /** Work ran under `key` without the lock for part of its time: whoever took the key meanwhile must read it again. */
  async #markChanged(key: string): Promise<void> {
    await this.#session.query({ name: 'folio_lock_changed', text: MARK_CHANGED, values: [key] })
  }

  #lost(error: unknown): void {
    this.#lastSeen.clear()
    const held = this.#held.size
    const exposed = held ? `; ${held} lock${held === 1 ? ' was' : 's were'} held: until that work ends, other instances may run work under the same keys` : ''
    this.#warn(`locks: the lock connection was lost (${errorCode(error)})${exposed}; every key counts as stale, and new locks wait for a new connection`)
    this.#wakeAll()
  }

  /** Resolves when `lockId` is released somewhere, when the lock connection changes, or after `ms`. */
  #nextChance(lockId: string, ms: number): { promise: Promise<void>; cancel: () => void } {
    let waiters = this.#wakers.get(lockId)
    if (!waiters) this.#wakers.set(lockId, (waiters = new Set()))
    const set = waiters
    let timer: ReturnType<typeof setTimeout> | undefined
    let done!: () => void
    const promise = new Promise<void>((resolve) => {
      done = () => {
        clearTimeout(timer)
        set.delete(done)
        if (!set.size && this.#wakers.get(lockId) === set) this.#wakers.delete(lockId)
        resolve()
      }
    })
    timer = setTimeout(done, ms)
    set.add(done)
    return { promise, cancel: done }
  }

  #wake(lockId: string): void {
    for (const done of [...(this.#wakers.get(lockId) ?? [])]) done()
  }

  #wakeAll(): void {
    for (const waiters of [...this.#wakers.values()]) for (const done of [...waiters]) done()
  }
}
