import { hitWindow, type SharedState, type Versioned, type WindowCount } from './shared-state.js'

/**
 * SharedState for one process, in memory only: what tests and a single instance need until the
 * file-backed implementation (shared-state-file.ts) persists records. Expired entries are dropped
 * when met, and swept now and then so abandoned keys do not pile up.
 */
export class MemorySharedState implements SharedState {
  readonly #windows = new Map<string, WindowCount>()
  readonly #counters = new Map<string, { value: number; expiresAt: number }>()
  readonly #records = new Map<string, Versioned<unknown>>()
  readonly #now: () => number
  #nextVersion = 1
  #lastSweep: number

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? (() => Date.now())
    this.#lastSweep = this.#now()
  }

  async hit(key: string, windowMs: number, now = this.#now()): Promise<WindowCount> {
    return this.hitSync(key, windowMs, now)
  }

  /** The same, answered synchronously (this implementation never waits for anything). */
  hitSync(key: string, windowMs: number, now = this.#now()): WindowCount {
    this.#sweep(now)
    return hitWindow(this.#windows, key, windowMs, now)
  }

  async add(key: string, by: number, expiresAt: number): Promise<number> {
    const now = this.#now()
    const current = this.#counters.get(key)
    const live = current && current.expiresAt > now ? current : undefined
    const value = (live?.value ?? 0) + by
    this.#counters.set(key, { value, expiresAt: Math.max(expiresAt, live?.expiresAt ?? 0) })
    return value
  }

  async count(key: string): Promise<number> {
    const current = this.#counters.get(key)
    return current && current.expiresAt > this.#now() ? current.value : 0
  }

  async get<T>(key: string): Promise<Versioned<T> | undefined> {
    const record = this.#live(key)
    return record && ({ ...record, value: structuredClone(record.value) } as Versioned<T>)
  }

  // Checks and writes in one synchronous stretch: an await between them would let two writers
  // holding the same version both pass the check (the contract's compare-and-set test caught that).
  async set<T>(key: string, value: T, expiresAt: number, ifVersion?: number | null): Promise<number | false> {
    if (ifVersion !== undefined) {
      const current = this.#live(key)
      if (ifVersion === null ? current !== undefined : current?.version !== ifVersion) return false
    }
    const version = this.#nextVersion++
    this.#records.set(key, { value: structuredClone(value), version, expiresAt })
    return version
  }

  async delete(key: string, ifVersion?: number): Promise<boolean> {
    const current = this.#live(key)
    if (!current || (ifVersion !== undefined && current.version !== ifVersion)) return false
    return this.#records.delete(key)
  }

  /** The record unless absent or expired (an expired one is dropped when met). */
  #live(key: string): Versioned<unknown> | undefined {
    const record = this.#records.get(key)
    if (record && record.expiresAt <= this.#now()) {
      this.#records.delete(key)
      return undefined
    }
    return record
  }

  async list<T>(prefix: string): Promise<Array<{ key: string } & Versioned<T>>> {
    const now = this.#now()
    const out: Array<{ key: string } & Versioned<T>> = []
    for (const [key, record] of this.#records) {
      if (key.startsWith(prefix) && record.expiresAt > now) out.push({ key, ...(record as Versioned<T>), value: structuredClone(record.value) as T })
    }
    return out
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < 60_000) return
    this.#lastSweep = now
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key)
    for (const [key, counter] of this.#counters) if (counter.expiresAt <= now) this.#counters.delete(key)
    for (const [key, record] of this.#records) if (record.expiresAt <= now) this.#records.delete(key)
  }
}
