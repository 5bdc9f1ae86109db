import type { Storage } from 'unstorage'
import { createDelta } from '../domain/delta.js'
import type { FolioMeta, VersionManifest } from '../domain/model.js'
import type { BlobStore } from './blob-store.js'
import type { HistorySegments, PackedContent } from './history-segments.js'
import type { KeyedMutex } from './keyed-mutex.js'
import { keys } from './keys.js'
import { folioLock } from './lock-keys.js'

/** Old contents up to this size are packed into the history whole (a blob file costs a disk block). */
const PACK_WHOLE_BYTES = 2048
/** Larger old contents are packed as a delta against their successor when the delta is this small. */
const PACK_DELTA_BYTES = 16 * 1024

export interface HistoryPackerOptions {
  storage: Storage
  blobs: BlobStore
  history: HistorySegments
  locks: KeyedMutex
  /** The folio's metadata as the repository reads it (cached); undefined once it is deleted. */
  meta: (id: string) => Promise<FolioMeta | undefined>
  warn: (message: string) => void
}

/**
 * Space and read-speed housekeeping after a version is durable: the contents it replaced are
 * packed into the folio's history (whole when small, else as a reverse delta against their
 * successor) and their blob files released; what cannot be packed is rewritten as a blob-level
 * delta. It runs after the answer (tidyLater, compactLater); a failure here loses nothing, and
 * shutdown waits for it (idle).
 */
export class HistoryPacker {
  readonly #storage: Storage
  readonly #blobs: BlobStore
  readonly #history: HistorySegments
  readonly #locks: KeyedMutex
  readonly #meta: (id: string) => Promise<FolioMeta | undefined>
  readonly #warn: (message: string) => void
  readonly #background = new Set<Promise<void>>()

  constructor(options: HistoryPackerOptions) {
    this.#storage = options.storage
    this.#blobs = options.blobs
    this.#history = options.history
    this.#locks = options.locks
    this.#meta = options.meta
    this.#warn = options.warn
  }

  /** tidy() for version n, in the background: the caller answers without waiting for it. */
  tidyLater(id: string, n: number, head: VersionManifest, compactions: Array<[string, string]>, restored: boolean): void {
    this.#inBackground(this.tidy(id, n, head, compactions, restored))
  }

  /** Blob-level deltas only, in the background, for what an upload replaced in the head. */
  compactLater(head: VersionManifest, compactions: Array<[string, string]>): void {
    this.#inBackground(this.#compactBlobs(head, compactions))
  }

  /** Housekeeping runs after the answer; shutdown waits for it (see idle). */
  #inBackground(task: Promise<void>): void {
    this.#background.add(task)
    void task.finally(() => this.#background.delete(task))
  }

  async idle(): Promise<void> {
    while (this.#background.size) await Promise.allSettled([...this.#background])
  }

  /**
   * Space and read-speed housekeeping after version n is durable; a failure here loses nothing.
   * The contents version n replaced are packed into its history segment (whole when small, else
   * as a delta against their successor) and their blob files released; what cannot be packed is
   * rewritten as a blob-level delta. `locked`: the caller holds the folio lock already.
   */
  async tidy(id: string, n: number, head: VersionManifest, compactions: Array<[string, string]>, restored: boolean, locked = false): Promise<void> {
    try {
      const current = new Set(Object.values(head.files).map((r) => r.h))
      if (restored) for (const hash of current) await this.#blobs.materialize(hash)
      const packs: Record<string, PackedContent> = {}
      const rest: Array<[string, string]> = []
      for (const [oldHash, newHash] of compactions) {
        if (current.has(oldHash)) continue
        const packed = await this.#packable(oldHash, newHash)
        if (packed) packs[oldHash] = packed
        else rest.push([oldHash, newHash])
      }
      if (Object.keys(packs).length) {
        const pack = () => this.#packLocked(id, n, packs, locked ? head : undefined)
        const done = locked ? await pack() : await this.#locks.run(folioLock(id), pack)
        if (!done) rest.push(...compactions.filter(([oldHash]) => packs[oldHash]))
      }
      for (const [oldHash, newHash] of rest) await this.#blobs.compact(oldHash, newHash)
    } catch (error) {
      this.#warn(`Blob housekeeping failed (no data lost): ${(error as Error).message}`)
    }
  }

  async #compactBlobs(head: VersionManifest, compactions: Array<[string, string]>): Promise<void> {
    try {
      const current = new Set(Object.values(head.files).map((r) => r.h))
      for (const [oldHash, newHash] of compactions) if (!current.has(oldHash)) await this.#blobs.compact(oldHash, newHash)
    } catch (error) {
      this.#warn(`Blob housekeeping failed (no data lost): ${(error as Error).message}`)
    }
  }

  /** How an old content would sit in the history; undefined when it should stay a blob. */
  async #packable(oldHash: string, newHash: string): Promise<PackedContent | undefined> {
    const old = await this.#blobs.wholeContent(oldHash)
    if (!old) return undefined
    if (old.length <= PACK_WHOLE_BYTES) return { raw: old.toString('base64') }
    const delta = createDelta(await this.#blobs.get(newHash), old)
    if (delta.length > PACK_DELTA_BYTES || delta.length > old.length / 2) return undefined
    return { base: newHash, delta: delta.toString('base64') }
  }

  /**
   * With the folio lock held: records the packs, then lets go of the blobs (the folio's reference
   * and its index entry). False: version n has no segment.
   *
   * The packs were worked out before the lock; only those still true are written. A content that
   * is current again (a restore raced the housekeeping) keeps its blob. A content the folio no
   * longer holds as a blob was packed since, maybe against a newer base: an older pack must not
   * overwrite that. A delta needs its base held as a blob right now: every pack then points at a
   * content whose own pack, if any, is written later, so a chain only ever leads forward in time
   * (no loops, no dead ends). `importing`: the head during an import, before metadata exists.
   */
  async #packLocked(id: string, n: number, packs: Record<string, PackedContent>, importing?: VersionManifest): Promise<boolean> {
    let head = importing
    if (!head) {
      const meta = await this.#meta(id)
      if (!meta) return true
      head = await this.#history.manifest(id, meta.head)
    }
    const current = new Set(Object.values(head?.files ?? {}).map((r) => r.h))
    const holds = (hash: string) => this.#storage.hasItem(keys.folioBlob(id, hash))
    const entries = Object.entries(packs)
    const stillTrue = await Promise.all(entries.map(async ([hash, pack]) => !current.has(hash) && (await holds(hash)) && ('raw' in pack || (await holds(pack.base)))))
    const keep = Object.fromEntries(entries.filter((_, i) => stillTrue[i]))
    if (Object.keys(keep).length === 0) return true
    if (!(await this.#history.pack(id, n, keep))) return false
    // The packed copy is durable: only now may the blob go (if no other folio holds it).
    for (const hash of Object.keys(keep)) {
      await this.#blobs.release(hash, id)
      await this.#storage.removeItem(keys.folioBlob(id, hash), { lazy: true })
    }
    return true
  }
}
