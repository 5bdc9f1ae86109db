import pg from 'pg'
import { DatabaseUnavailableError } from '../store-errors.js'
import { errorCode } from './pool.js'

/**
 * How long a statement waits for a lock connection while there is none (the database away):
 * then it fails with DatabaseUnavailableError (HTTP 503) rather than hold its request until the
 * database comes back. The pool's connectionTimeoutMillis.
 */
const WAIT_FOR_CONNECTION_MS = 5_000

/** Where releases are announced: the payload is the released lock's id. */
export const WAKE_CHANNEL = 'folio_locks'

export interface LockSessionHandlers {
  /** Another session (or this one) released lock `lockId`: its waiters may try again. */
  woken(lockId: string): void
  /** The connection is gone, and every advisory lock it held with it (PostgreSQL released them). */
  lost(error: unknown): void
  /** A connection is in place: the first one, or a new one after a loss. */
  connected(reconnected: boolean): void
  warn?(message: string): void
}

export class LocksClosedError extends Error {
  constructor() {
    super('the locks are closed')
  }
}

/**
 * Errors raised before a statement ran at all (SQLSTATE class 42: syntax, an undefined table or
 * function). After any other failure nobody knows whether a lock was taken or let go.
 */
const ranNothing = (error: unknown) => /^42/.test(String((error as { code?: unknown } | undefined)?.code ?? ''))

/**
 * The one connection of an instance that holds its advisory locks (session-level locks belong
 * to their session) and LISTENs for releases. Not from the pool: it is held for the instance's
 * life. pg never reconnects a client, so this opens a new one after a loss, with a doubling
 * pause (100 ms to 5 s). Each connection has a number (`epoch`): a lock taken under an earlier
 * one is already gone. A statement that fails in a way that may have left a lock half taken or
 * half released ends the connection: everything it held goes, which is a state we know.
 */
export class LockSession {
  readonly #url: string
  readonly #handlers: LockSessionHandlers
  #client: pg.Client | undefined
  #epoch = 0
  #closed = false
  #retryMs = 100
  #connectedOnce = false
  /** Each connection's first error: what a loss is reported with (later ones only follow from it). */
  readonly #failures = new WeakMap<pg.Client, unknown>()
  /** The statement running on the connection now, or the last one. */
  #queue: Promise<unknown> = Promise.resolve()
  #waiting: Array<{ resolve: () => void; reject: (error: Error) => void }> = []
  /** Why the last connection was lost or the last attempt failed: what a statement that gave up waiting says. */
  #lastFailure: unknown

  constructor(url: string, handlers: LockSessionHandlers) {
    this.#url = url
    this.#handlers = handlers
  }

  /** Resolves once connected (retrying meanwhile), or when closed. */
  start(): Promise<void> {
    return this.#connect()
  }

  /** The current connection's number; a lock taken under another one is gone. */
  isCurrent(epoch: number): boolean {
    return this.#client !== undefined && this.#epoch === epoch
  }

  /**
   * Runs one statement on the current connection, waiting for one while there is none. When
   * connected the statement is queued at once, so statements run in the order they were asked for.
   */
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<{ rows: R[]; epoch: number }> {
    const client = this.#client
    if (!client) return this.#whenConnected().then(() => this.query<R>(config))
    const epoch = this.#epoch
    // pg would queue them itself, but that is deprecated (pg 9 drops it): one at a time, in order.
    const running = this.#queue.then(() => client.query<R>(config))
    this.#queue = running.catch(() => {})
    return running.then(
      (result) => ({ rows: result.rows, epoch }),
      (error: unknown) => {
        if (!ranNothing(error)) this.#drop(client, error)
        throw error
      },
    )
  }

  /** The backend's process id while connected (tests end it to prove the recovery). */
  async backendPid(): Promise<number | undefined> {
    const { rows } = await this.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' })
    return rows[0]?.pid
  }

  /** Ends the connection: PostgreSQL releases whatever it still held. */
  async close(): Promise<void> {
    this.#closed = true
    const client = this.#client
    this.#client = undefined
    for (const waiter of this.#waiting.splice(0)) waiter.reject(new LocksClosedError())
    await client?.end().catch(() => {})
  }

  #whenConnected(): Promise<void> {
    if (this.#closed) return Promise.reject(new LocksClosedError())
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
        reject: (error: Error) => {
          clearTimeout(timer)
          reject(error)
        },
      }
      const timer = setTimeout(() => {
        this.#waiting = this.#waiting.filter((w) => w !== waiter)
        reject(new DatabaseUnavailableError(this.#lastFailure))
      }, WAIT_FOR_CONNECTION_MS)
      this.#waiting.push(waiter)
    })
  }

  async #connect(): Promise<void> {
    while (!this.#closed) {
      const client = new pg.Client({ connectionString: this.#url, keepAlive: true, application_name: 'folio-locks', connectionTimeoutMillis: 5_000 })
      // Required: an error with no listener would end the process. 'end' follows it. The first
      // error says why (57P01: terminated); pg adds "Connection terminated unexpectedly" after it.
      client.on('error', (error) => {
        if (!this.#failures.has(client)) this.#failures.set(client, error)
      })
      client.on('notification', (n) => {
        if (this.#client === client && n.channel === WAKE_CHANNEL && n.payload) this.#handlers.woken(n.payload)
      })
      client.on('end', () => this.#drop(client, new Error('the lock connection ended')))
      try {
        await client.connect()
        await client.query(`LISTEN ${WAKE_CHANNEL}`)
        // A holder that is killed closes its socket and its locks go at once; one whose machine
        // froze or whose network broke keeps them until the server gives up on the connection,
        // by default after hours of silence. Here after about 25 s (ignored over a Unix socket).
        await client.query('SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3')
        // A lock's generation bump need not wait for the WAL's flush (one fewer fsync per lock
        // taken: beacons' group commits take one per batch). A crash of the server that loses
        // bumps also ends this session, and a lost session counts every key stale (above).
        await client.query('SET synchronous_commit = off')
        if (this.#closed) {
          await client.end()
          return
        }
        this.#client = client
        this.#queue = Promise.resolve()
        this.#epoch++
        this.#retryMs = 100
        const reconnected = this.#connectedOnce
        this.#connectedOnce = true
        this.#handlers.connected(reconnected)
        for (const waiter of this.#waiting.splice(0)) waiter.resolve()
        return
      } catch (error) {
        this.#lastFailure = error
        this.#handlers.warn?.(`locks: cannot connect (${errorCode(error)}), retrying in ${this.#retryMs} ms`)
        client.end().catch(() => {})
        await new Promise((resolve) => setTimeout(resolve, this.#retryMs))
        this.#retryMs = Math.min(this.#retryMs * 2, 5_000)
      }
    }
  }

  /** The connection is lost, or no longer trusted: end it, say so once, and open another. */
  #drop(client: pg.Client, error: unknown): void {
    if (this.#client !== client) return
    this.#client = undefined
    client.end().catch(() => {})
    this.#lastFailure = this.#failures.get(client) ?? error
    this.#handlers.lost(this.#lastFailure)
    if (!this.#closed) setTimeout(() => void this.#connect(), 50)
  }
}
