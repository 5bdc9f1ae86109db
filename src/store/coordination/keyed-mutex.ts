import type { Locks } from './locks.js'

/**
 * Serialises async work per key: read-modify-write of one folio never interleaves with
 * another on the same folio, while different folios proceed in parallel.
 */
export class KeyedMutex implements Locks {
  readonly #tails = new Map<string, Promise<void>>()

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const tail = previous.then(() => new Promise<void>((resolve) => (release = resolve)))
    this.#tails.set(key, tail)
    await previous
    try {
      return await fn()
    } finally {
      release()
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    }
  }

  /** Holds several keys at once, always taken in sorted order so two callers cannot deadlock. */
  async runAll<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort()
    const step = (i: number): Promise<T> => (i === sorted.length ? fn() : this.run(sorted[i]!, () => step(i + 1)))
    return step(0)
  }

  /** Resolves once all work queued so far has finished (used on shutdown). */
  async idle(): Promise<void> {
    while (this.#tails.size) await Promise.allSettled([...this.#tails.values()])
  }

  /** One process sees every write it makes: nothing is ever stale. */
  onStale(): () => void {
    return () => {}
  }
}
