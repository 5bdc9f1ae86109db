import type { SharedState, Versioned, WindowCount } from './shared-state.js'

/**
 * SharedState for one process, in memory only: what tests and a single instance need until the
 * file-backed implementation (shared-state-file.ts) persists records. Expired entries are dropped
 * when met, and swept now and then so abandoned keys do not pile up.
 */
export class MemorySharedState implements SharedState {
  readonly #windows = new Map<string, WindowCount>()
  readonly #counters = new Map<string, { value: number; expiresAt: number }>()
  readonly #records = new Map<string, Versioned<unknown>>()
  #nextVersion = 1
  #lastSweep = Date.now()

  async hit(key: string, windowMs: number, now = Date.now()): Promise<WindowCount> {
    return this.hitSync(key, windowMs, now)
  }

  hitSync(key: string, windowMs: number, now = Date.now()): WindowCount {
    this.#sweep(now)
    let window = this.#windows.get(key)
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: (Math.floor(now / windowMs) + 1) * windowMs }
      this.#windows.set(key, window)
    }
    window.count++
    return { count: window.count, resetAt: window.resetAt }
  }

  async add(key: string, by: number, expiresAt: number): Promise<number> {
    const now = Date.now()
    const current = this.#counters.get(key)
    const value = (current && current.expiresAt > now ? current.value : 0) + by
    this.#counters.set(key, { value, expiresAt })
    return value
  }

  async count(key: string): Promise<number> {
    const current = this.#counters.get(key)
    return current && current.expiresAt > Date.now() ? current.value : 0
  }

  async get<T>(key: string): Promise<Versioned<T> | undefined> {
    const record = this.#records.get(key)
    if (!record) return undefined
    if (record.expiresAt <= Date.now()) {
      this.#records.delete(key)
      return undefined
    }
    return record as Versioned<T>
  }

  async set<T>(key: string, value: T, expiresAt: number, ifVersion?: number | null): Promise<number | false> {
    if (ifVersion !== undefined) {
      const current = await this.get(key)
      if (ifVersion === null ? current !== undefined : current?.version !== ifVersion) return false
    }
    const version = this.#nextVersion++
    this.#records.set(key, { value, version, expiresAt })
    return version
  }

  async delete(key: string, ifVersion?: number): Promise<boolean> {
    const current = await this.get(key)
    if (!current || (ifVersion !== undefined && current.version !== ifVersion)) return false
    return this.#records.delete(key)
  }

  async list<T>(prefix: string): Promise<Array<{ key: string } & Versioned<T>>> {
    const now = Date.now()
    const out: Array<{ key: string } & Versioned<T>> = []
    for (const [key, record] of this.#records) {
      if (key.startsWith(prefix) && record.expiresAt > now) out.push({ key, ...(record as Versioned<T>) })
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
