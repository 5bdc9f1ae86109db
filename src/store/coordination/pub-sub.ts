/**
 * Messages between server instances (issue 15: live events reach share pages connected to any
 * instance, hot caches are dropped on every instance). One process: pub-sub-memory.ts; several
 * on one database: pg/pub-sub-pg.ts (LISTEN/NOTIFY). Messages say what changed (ids), never
 * the content: receivers read the store. Delivery is at most once: a subscriber whose
 * connection dropped hears `gap` once it is back, and must then assume it missed anything
 * (drop its caches, send its clients a fresh state).
 */
export interface PubSub {
  /** Sends to every subscriber of `channel` on every instance, this one included. */
  publish(channel: string, message: string): Promise<void>
  /** Until the returned function is called. */
  subscribe(channel: string, handlers: Subscriber): () => void
  close(): Promise<void>
}

export interface Subscriber {
  message(message: string): void
  /** Messages may have been missed (the instance's connection was lost and is back). */
  gap?(): void
}

/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes; the channel's name travels in it too. */
export const MAX_MESSAGE_BYTES = 7_000

/** Channel names: short, and never the separator the PostgreSQL payload uses. */
const CHANNEL_NAME = /^[a-z0-9][a-z0-9:._-]{0,63}$/

export class MessageTooLargeError extends Error {
  constructor(bytes: number) {
    super(`a pub/sub message is ${bytes} bytes, more than ${MAX_MESSAGE_BYTES}: send ids, and let receivers read the rest`)
  }
}

/** Throws on a channel name or message size that one of the implementations could not carry. */
export function checkMessage(channel: string, message: string): void {
  if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid pub/sub channel name ${JSON.stringify(channel)}`)
  const bytes = Buffer.byteLength(message)
  if (bytes > MAX_MESSAGE_BYTES) throw new MessageTooLargeError(bytes)
}

/** Subscribers by channel, for the implementations. */
export class Subscriptions {
  readonly #byChannel = new Map<string, Set<Subscriber>>()

  add(channel: string, subscriber: Subscriber): () => void {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid pub/sub channel name ${JSON.stringify(channel)}`)
    let set = this.#byChannel.get(channel)
    if (!set) this.#byChannel.set(channel, (set = new Set()))
    set.add(subscriber)
    return () => {
      set.delete(subscriber)
      if (!set.size && this.#byChannel.get(channel) === set) this.#byChannel.delete(channel)
    }
  }

  /** One subscriber's failure is its own: the others still hear the message. */
  deliver(channel: string, message: string, onError: (error: unknown) => void): void {
    for (const subscriber of this.#byChannel.get(channel) ?? []) {
      try {
        subscriber.message(message)
      } catch (error) {
        onError(error)
      }
    }
  }

  gap(onError: (error: unknown) => void): void {
    for (const set of this.#byChannel.values()) {
      for (const subscriber of set) {
        try {
          subscriber.gap?.()
        } catch (error) {
          onError(error)
        }
      }
    }
  }
}
