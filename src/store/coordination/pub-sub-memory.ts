import { checkMessage, type PubSub, type Subscriber, Subscriptions } from './pub-sub.js'

/**
 * PubSub inside one process (the flat-file store: one instance per data dir). Delivered after
 * the current turn of the event loop, as a message through the database would be, never
 * inside publish(); it refuses what the PostgreSQL implementation would, so code written
 * against it works there too.
 */
export class MemoryPubSub implements PubSub {
  readonly #subscriptions = new Subscriptions()
  readonly #onError: (error: unknown) => void

  constructor(options: { onError?: (error: unknown) => void } = {}) {
    this.#onError = options.onError ?? (() => {})
  }

  async publish(channel: string, message: string): Promise<void> {
    checkMessage(channel, message)
    setImmediate(() => this.#subscriptions.deliver(channel, message, this.#onError))
  }

  subscribe(channel: string, handlers: Subscriber): () => void {
    return this.#subscriptions.add(channel, handlers)
  }

  async close(): Promise<void> {}
}
