import { createHash } from 'node:crypto'
import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../engine/json-io.js'
import { hitWindow, type SharedState, type Versioned, type WindowCount } from './shared-state.js'

/** Where persisted records and counters live in the data dir (one small file each). */
const RECORDS = 'shared:records'
const COUNTERS = 'shared:counters'

interface StoredRecord {
  key: string
  value: unknown
  version: number
  expiresAt: number
}

interface StoredCounter {
  key: string
  value: number
  expiresAt: number
}

const fileOf = (folder: string, key: string) => `${folder}:${createHash('sha256').update(key).digest('hex')}.json`

/**
 * SharedState for one server instance. Memory is the truth (so compare-and-set is a plain check
 * in one turn of the event loop); records and counters are also written to the data dir, so
 * sign-in sessions, registration sessions and a month's AI messages survive a restart. Each
 * key's writes run one at a time and always write the key's latest state, so a slow write can
 * never land after a newer one; a burst on one key shares writes. Rate-limit windows live in
 * memory only: a restart forgetting a minute's count costs nothing worth a disk write per request.
 * Expired entries are swept every `sweepMs` (and never answered in between).
 */
export class FileSharedState implements SharedState {
  readonly #storage: Storage
  readonly #records = new Map<string, StoredRecord>()
  readonly #counters = new Map<string, StoredCounter>()
  readonly #windows = new Map<string, WindowCount>()
  readonly #writes = new Map<string, { running?: Promise<void>; queued?: Promise<void> }>()
  readonly #now: () => number
  #clock = 0
  #sweeper: ReturnType<typeof setInterval> | undefined

  private constructor(storage: Storage, now: () => number) {
    this.#storage = storage
    this.#now = now
  }

  /** Loads what an earlier run persisted (dropping what expired meanwhile) and starts the sweeper. */
  static async open(storage: Storage, options: { sweepMs?: number; now?: () => number } = {}): Promise<FileSharedState> {
    const state = new FileSharedState(storage, options.now ?? (() => Date.now()))
    await state.#load()
    state.sweep()
    const sweepMs = options.sweepMs ?? 60_000
    state.#sweeper = setInterval(() => state.sweep(), sweepMs)
    state.#sweeper.unref()
    return state
  }

  async #load(): Promise<void> {
    for (const file of await this.#storage.getKeys(RECORDS)) {
      const stored = await readJson<StoredRecord>(this.#storage, file)
      if (!stored || typeof stored.key !== 'string') continue
      this.#records.set(stored.key, stored)
      this.#clock = Math.max(this.#clock, stored.version)
    }
    for (const file of await this.#storage.getKeys(COUNTERS)) {
      const stored = await readJson<StoredCounter>(this.#storage, file)
      if (stored && typeof stored.key === 'string') this.#counters.set(stored.key, stored)
    }
  }

  async hit(key: string, windowMs: number, now = this.#now()): Promise<WindowCount> {
    return this.hitSync(key, windowMs, now)
  }

  /** The same, answered synchronously: windows are memory here (the hot path pays no promise). */
  hitSync(key: string, windowMs: number, now = this.#now()): WindowCount {
    return hitWindow(this.#windows, key, windowMs, now)
  }

  async add(key: string, by: number, expiresAt: number): Promise<number> {
    const current = this.#liveCounter(key)
    const value = (current?.value ?? 0) + by
    this.#counters.set(key, { key, value, expiresAt: Math.max(expiresAt, current?.expiresAt ?? 0) })
    await this.#persist(COUNTERS, key)
    return value
  }

  async count(key: string): Promise<number> {
    return this.#liveCounter(key)?.value ?? 0
  }

  async get<T>(key: string): Promise<Versioned<T> | undefined> {
    const record = this.#liveRecord(key)
    return record && { value: structuredClone(record.value) as T, version: record.version, expiresAt: record.expiresAt }
  }

  async set<T>(key: string, value: T, expiresAt: number, ifVersion?: number | null): Promise<number | false> {
    const current = this.#liveRecord(key)
    if (ifVersion === null && current) return false
    if (typeof ifVersion === 'number' && current?.version !== ifVersion) return false
    const version = ++this.#clock
    this.#records.set(key, { key, value: structuredClone(value), version, expiresAt })
    await this.#persist(RECORDS, key)
    return version
  }

  async delete(key: string, ifVersion?: number): Promise<boolean> {
    const current = this.#liveRecord(key)
    if (!current || (ifVersion !== undefined && current.version !== ifVersion)) return false
    this.#records.delete(key)
    await this.#persist(RECORDS, key)
    return true
  }

  async list<T>(prefix: string): Promise<Array<{ key: string } & Versioned<T>>> {
    const out: Array<{ key: string } & Versioned<T>> = []
    const now = this.#now()
    for (const record of this.#records.values()) {
      if (!record.key.startsWith(prefix) || record.expiresAt <= now) continue
      out.push({ key: record.key, value: structuredClone(record.value) as T, version: record.version, expiresAt: record.expiresAt })
    }
    return out
  }

  /** Drops expired records, counters and windows, from memory and disk. */
  sweep(): void {
    const now = this.#now()
    for (const [key, record] of this.#records) {
      if (record.expiresAt > now) continue
      this.#records.delete(key)
      void this.#persist(RECORDS, key).catch(() => {})
    }
    for (const [key, counter] of this.#counters) {
      if (counter.expiresAt > now) continue
      this.#counters.delete(key)
      void this.#persist(COUNTERS, key).catch(() => {})
    }
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key)
  }

  /** Stops the sweeper and waits for every write in progress. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper)
    while (this.#writes.size) await Promise.allSettled([...this.#writes.values()].flatMap((w) => [w.running, w.queued]))
  }

  #liveRecord(key: string): StoredRecord | undefined {
    const record = this.#records.get(key)
    return record && record.expiresAt > this.#now() ? record : undefined
  }

  #liveCounter(key: string): StoredCounter | undefined {
    const counter = this.#counters.get(key)
    return counter && counter.expiresAt > this.#now() ? counter : undefined
  }

  /**
   * Writes the key's state as it is when the write starts (removing its file when it is gone).
   * One write per key at a time; callers arriving while one runs share the next.
   */
  #persist(folder: string, key: string): Promise<void> {
    const id = `${folder}|${key}`
    let slot = this.#writes.get(id)
    if (!slot) this.#writes.set(id, (slot = {}))
    if (slot.queued) return slot.queued
    const entry = slot
    const write = async () => {
      const current = folder === RECORDS ? this.#records.get(key) : this.#counters.get(key)
      if (current) await writeJson(this.#storage, fileOf(folder, key), current)
      else await this.#storage.removeItem(fileOf(folder, key))
    }
    const queued: Promise<void> = (entry.running ?? Promise.resolve())
      .catch(() => {})
      .then(() => {
        entry.queued = undefined
        entry.running = queued
        return write()
      })
      .finally(() => {
        if (entry.running === queued) entry.running = undefined
        if (!entry.running && !entry.queued && this.#writes.get(id) === entry) this.#writes.delete(id)
      })
    entry.queued = queued
    return queued
  }
}
