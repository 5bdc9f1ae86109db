import type { Held, JournalMark } from './journal-records.js'

/** One state of a key held in memory: its bytes, or null when removed. Newest first, through `older`. */
export interface HeldEntry extends JournalMark {
  data: Uint8Array | null
  /** When it was made (getMeta's mtime). */
  at: number
  older: HeldEntry | undefined
}

/** A key's state that a checkpoint writes to the files. */
export interface DueEntry {
  key: string
  entry: HeldEntry
}

/**
 * The writes of the durable driver (durable-fs-driver.ts) that the journal holds and the files
 * do not yet: every read looks here first. A key keeps its states newest first until a
 * checkpoint writes one: the newest whose record is durable, since a newer one may still be
 * lost in a crash while the journal file holding the older is already gone. Once that state is
 * fsync'd, it and every older one are forgotten.
 *
 * A state is held at the moment its record is queued in the journal (WriteJournal.write's
 * `hold`), so a key's states are in the order of its records: a state older than a durable one
 * can never be the one to write, and is let go at once (a key rewritten 500 times a second
 * holds a few states, not the second's worth).
 */
export class WriteBackCache {
  readonly #newest = new Map<string, HeldEntry>()
  /** Held keys under each of their folders ('a:b:c' under '', 'a' and 'a:b'): what getKeys and clear look up. */
  readonly #under = new Map<string, Set<string>>()

  /** The newest state of a key, durable or not: what a read answers. */
  get(key: string): HeldEntry | undefined {
    return this.#newest.get(key)
  }

  /** Holds a new state of a key (null: removed). */
  put(key: string, data: Uint8Array | null): HeldEntry {
    const older = this.#newest.get(key)
    // Below the newest durable state nothing is ever written again (see above).
    for (let e = older; e; e = e.older) {
      if (e.seq !== 0) {
        e.older = undefined
        break
      }
    }
    const entry: HeldEntry = { data, at: Date.now(), seq: 0, older }
    this.#newest.set(key, entry)
    if (!older) {
      for (const folder of foldersOf(key)) {
        let keys = this.#under.get(folder)
        if (!keys) this.#under.set(folder, (keys = new Set()))
        keys.add(key)
      }
    }
    return entry
  }

  /** put(), as the journal record standing for it takes it (failed: its record will never be durable). */
  hold(key: string, data: Uint8Array | null): Held {
    const entry = this.put(key, data)
    return { marks: [entry], keys: [key], failed: () => this.forget(key, entry) }
  }

  /** A state whose record never reached the journal: as if never made. */
  forget(key: string, entry: HeldEntry): void {
    const newest = this.#newest.get(key)
    if (newest === entry) {
      if (entry.older) this.#newest.set(key, entry.older)
      else this.#drop(key)
      return
    }
    for (let e = newest; e; e = e.older) {
      if (e.older === entry) {
        e.older = entry.older
        return
      }
    }
  }

  /** Removal of a folder (or of a file by its name, as rm does): every key held under it is removed too. What the clear's record stands for. */
  clear(prefix: string): Held | undefined {
    const keys = this.#keysUnder(prefix)
    if (this.#newest.get(prefix)?.data) keys.push(prefix)
    if (keys.length === 0) return undefined
    const marks = keys.map((key) => this.put(key, null))
    return { marks, keys, failed: () => keys.forEach((key, i) => this.forget(key, marks[i]!)) }
  }

  /**
   * The states the checkpoint of journal file `seq` writes, among `keys` (those its records
   * held): each key's newest durable state, unless a later journal file holds it (that file's
   * checkpoint writes it; a crash before then replays it).
   */
  dueAt(seq: number, keys: string[]): DueEntry[] {
    const due: DueEntry[] = []
    for (const key of keys) {
      let entry = this.#newest.get(key)
      while (entry && entry.seq === 0) entry = entry.older
      if (entry && entry.seq <= seq) due.push({ key, entry })
    }
    return due
  }

  /** These states are in the files, fsync'd: they, and what they replaced, need not be held. */
  written(due: DueEntry[]): void {
    for (const { key, entry } of due) {
      const newest = this.#newest.get(key)
      if (newest === entry) {
        this.#drop(key)
        continue
      }
      for (let e = newest; e; e = e.older) {
        if (e.older === entry) {
          e.older = undefined
          break
        }
      }
    }
  }

  /**
   * What is held under `prefix` now: taken before a directory walk, since a checkpoint may write
   * a held key to the files and forget it while the walk runs (then neither would show it).
   */
  snapshot(prefix: string): Map<string, boolean> {
    return new Map(this.#keysUnder(prefix).map((key) => [key, this.#newest.get(key)!.data !== null]))
  }

  /** A directory listing under `prefix` (keys found in the files), corrected by what was held before it and is held now. */
  overlay(prefix: string, found: string[], before: Map<string, boolean>): string[] {
    const now = this.snapshot(prefix)
    if (before.size === 0 && now.size === 0) return found
    const keys = new Set(found)
    for (const held of [before, now]) {
      for (const [key, present] of held) {
        if (present) keys.add(key)
        else keys.delete(key)
      }
    }
    return [...keys]
  }

  /** How many keys are held (tests, and the memory this costs). */
  get size(): number {
    return this.#newest.size
  }

  /** Held keys under a folder (a key named exactly like it is a file, not under it). */
  #keysUnder(prefix: string): string[] {
    const keys = this.#under.get(prefix)
    return keys ? [...keys] : []
  }

  #drop(key: string): void {
    this.#newest.delete(key)
    for (const folder of foldersOf(key)) {
      const keys = this.#under.get(folder)
      keys?.delete(key)
      if (keys?.size === 0) this.#under.delete(folder)
    }
  }
}

/** 'a:b:c' → '', 'a', 'a:b' */
function foldersOf(key: string): string[] {
  const folders = ['']
  for (let at = key.indexOf(':'); at >= 0; at = key.indexOf(':', at + 1)) folders.push(key.slice(0, at))
  return folders
}
