import pg from 'pg'
import { checkMessage, type PubSub, type Subscriber, Subscriptions } from '../coordination/pub-sub.js'
import { ReconnectingListener } from './listener.js'

/** The one PostgreSQL channel; the folio channel's name leads the payload. */
const PG_CHANNEL = 'folio_events'
const { escapeLiteral } = pg

/** The statement that publishes: run it inside a transaction and the message leaves at COMMIT (and never after a ROLLBACK). */
export function publishStatement(channel: string, message: string): { text: string; values: string[] } {
  checkMessage(channel, message)
  return { text: 'SELECT pg_notify($1, $2)', values: [PG_CHANNEL, `${channel}\n${message}`] }
}

/**
 * PubSub over LISTEN/NOTIFY: every instance keeps one listening connection (listener.ts) and
 * publishes through its pool. A message comes back to its own instance too, through the
 * database, so every instance delivers in the order the database committed. NOTIFY keeps
 * one transaction's identical messages once, which suits "this changed" messages.
 */
export class PgPubSub implements PubSub {
  readonly #pool: pg.Pool
  readonly #listener: ReconnectingListener
  readonly #subscriptions = new Subscriptions()

  private constructor(pool: pg.Pool, url: string, options: { warn?: (message: string) => void; onError?: (error: unknown) => void }) {
    this.#pool = pool
    const onError = options.onError ?? ((error: unknown) => options.warn?.(`a pub/sub subscriber failed: ${(error as Error)?.message ?? error}`))
    this.#listener = new ReconnectingListener(url, PG_CHANNEL, {
      notification: (payload) => {
        const cut = payload.indexOf('\n')
        if (cut > 0) this.#subscriptions.deliver(payload.slice(0, cut), payload.slice(cut + 1), onError)
      },
      listening: (reconnected) => {
        if (reconnected) this.#subscriptions.gap(onError)
      },
      warn: options.warn,
    })
  }

  /** Resolves once this instance listens: from then on it hears every message published. */
  static async start(pool: pg.Pool, url: string, options: { warn?: (message: string) => void; onError?: (error: unknown) => void } = {}): Promise<PgPubSub> {
    const pubSub = new PgPubSub(pool, url, options)
    await pubSub.#listener.start()
    return pubSub
  }

  /**
   * A NOTIFY commits a transaction of its own, which by default waits for a WAL flush (an fsync
   * per change of every folio). Its loss in a crash of the server costs nothing the listeners do
   * not already handle: their connections end too, and a reconnect is a `gap` (drop caches). So
   * it commits asynchronously: SET LOCAL and the NOTIFY in one simple query, which PostgreSQL
   * runs as one implicit transaction (rolled back whole on an error: the pooled connection is
   * left clean).
   */
  async publish(channel: string, message: string): Promise<void> {
    checkMessage(channel, message)
    await this.#pool.query(`SET LOCAL synchronous_commit = off; SELECT pg_notify('${PG_CHANNEL}', ${escapeLiteral(`${channel}\n${message}`)})`)
  }

  subscribe(channel: string, handlers: Subscriber): () => void {
    return this.#subscriptions.add(channel, handlers)
  }

  /** The listening connection's backend (tests end it to prove the reconnect). */
  listenerPid(): Promise<number | undefined> {
    return this.#listener.backendPid()
  }

  /** Stops listening; the pool is the caller's to end. */
  async close(): Promise<void> {
    await this.#listener.close()
  }
}
