import pg from 'pg'
import { errorCode } from './pool.js'

export interface ListenerHandlers {
  notification(payload: string): void
  /** Each time LISTEN is in place: the first time, and after every reconnect (anything sent in between is lost). */
  listening(reconnected: boolean): void
  warn?(message: string): void
}

/**
 * One connection that LISTENs on one channel and comes back when it is lost. pg never
 * reconnects a client: after a server restart, a failover or pg_terminate_backend it emits
 * 'error' and 'end' and stays dead. This one opens a new client with a doubling pause (100 ms to
 * 5 s) until LISTEN works again. Not from the pool: a LISTEN belongs to its session, and a
 * pooled client would carry it to whoever takes the client next.
 */
export class ReconnectingListener {
  readonly #url: string
  readonly #channel: string
  readonly #handlers: ListenerHandlers
  #client: pg.Client | undefined
  #closed = false
  #connected = false
  #retryMs = 100

  constructor(url: string, channel: string, handlers: ListenerHandlers) {
    this.#url = url
    this.#channel = channel
    this.#handlers = handlers
  }

  /** Resolves once LISTEN is in place (retrying meanwhile), or when closed. */
  start(): Promise<void> {
    return this.#connect()
  }

  /** The backend's process id while listening (tests end it to prove the reconnect). */
  async backendPid(): Promise<number | undefined> {
    const result = await this.#client?.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
    return result?.rows[0]?.pid
  }

  async #connect(): Promise<void> {
    while (!this.#closed) {
      const client = new pg.Client({ connectionString: this.#url, keepAlive: true, application_name: 'folio-listener', connectionTimeoutMillis: 5_000 })
      // Required: an error with no listener would end the process.
      client.on('error', (error) => this.#handlers.warn?.(`database listener: ${errorCode(error)}`))
      client.on('notification', (n) => {
        if (this.#client === client) this.#handlers.notification(n.payload ?? '')
      })
      client.on('end', () => {
        if (this.#client !== client) return
        this.#client = undefined
        if (!this.#closed) setTimeout(() => void this.#connect(), 50)
      })
      try {
        await client.connect()
        await client.query(`LISTEN ${pg.escapeIdentifier(this.#channel)}`)
        if (this.#closed) {
          await client.end()
          return
        }
        this.#client = client
        this.#retryMs = 100
        const reconnected = this.#connected
        this.#connected = true
        this.#handlers.listening(reconnected)
        return
      } catch (error) {
        this.#handlers.warn?.(`database listener: cannot listen (${errorCode(error)}), retrying in ${this.#retryMs} ms`)
        client.end().catch(() => {})
        await new Promise((resolve) => setTimeout(resolve, this.#retryMs))
        this.#retryMs = Math.min(this.#retryMs * 2, 5_000)
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    const client = this.#client
    this.#client = undefined
    await client?.end().catch(() => {})
  }
}
