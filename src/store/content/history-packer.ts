import type { Storage } from 'unstorage'
import { createDelta } from '../../domain/delta.js'
import type { FolioMeta, VersionManifest } from '../../domain/model.js'
import { BlobMissingError, type BlobStore } from './blob-store.js'
import type { HistorySegments, PackedContent } from './history-segments.js'
import type { Locks } from '../coordination/locks.js'
import { keys } from '../keys.js'
import { folioLock } from '../coordination/lock-keys.js'
import { mapLimit } from '../engine/map-limit.js'

/** Old contents up to this size are packed into the history whole (a blob file costs a disk block). */
const PACK_WHOLE_BYTES = 2048
/** Larger old contents are packed as a delta against their successor when the delta is this small. */
const PACK_DELTA_BYTES = 16 * 1024

/** How long a folio's housekeeping waits for more versions to tidy with the first (space only: nothing reads it sooner). */
const HOUSEKEEPING_DELAY_MS = 250
/** …or how many versions it waits for at most. */
const HOUSEKEEPING_BATCH = 256

interface Due {
  versions: TidyVersion[]
  timer: NodeJS.Timeout
}

/** A version whose housekeeping is due: what it replaced ([old hash, new hash]), and whether it restored. */
export interface TidyVersion {
  n: number
  head: VersionManifest
  compactions: Array<[string, string]>
  restored: boolean
}

export interface HistoryPackerOptions {
  storage: Storage
  blobs: BlobStore
  history: HistorySegments
  locks: Locks
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
  readonly #locks: Locks
  readonly #meta: (id: string) => Promise<FolioMeta | undefined>
  readonly #warn: (message: string) => void
  readonly #background = new Set<Promise<void>>()
  /** Per folio: the versions committed whose housekeeping has not started, and its timer. */
  readonly #due = new Map<string, Due>()
  /** Per folio: the housekeeping run in progress (the next one starts after it). */
  readonly #running = new Map<string, Promise<void>>()

  constructor(options: HistoryPackerOptions) {
    this.#storage = options.storage
    this.#blobs = options.blobs
    this.#history = options.history
    this.#locks = options.locks
    this.#meta = options.meta
    this.#warn = options.warn
  }

  /**
   * tidy() for the versions of one commit, later: the caller answers without waiting for it. A
   * folio's housekeeping waits HOUSEKEEPING_DELAY_MS (or HOUSEKEEPING_BATCH versions) so that
   * the versions of many commits are tidied together: one pack write and one hold of the folio
   * lock for all of them, not one per commit for writers to queue behind. It runs one at a time
   * per folio, in commit order. Nothing waits for it but shutdown (idle runs what is due at once).
   */
  tidyLater(id: string, versions: TidyVersion[]): void {
    const due = this.#due.get(id)
    if (due) {
      due.versions.push(...versions)
      if (due.versions.length >= HOUSEKEEPING_BATCH) this.#runDue(id)
      return
    }
    const entry: Due = { versions: [...versions], timer: setTimeout(() => this.#runDue(id), HOUSEKEEPING_DELAY_MS).unref() }
    this.#due.set(id, entry)
    if (entry.versions.length >= HOUSEKEEPING_BATCH) this.#runDue(id)
  }

  /** Starts a folio's due housekeeping now, after the run in progress (if any). */
  #runDue(id: string): void {
    const due = this.#due.get(id)
    if (!due) return
    clearTimeout(due.timer)
    this.#due.delete(id)
    const previous = this.#running.get(id) ?? Promise.resolve()
    const run = previous.then(() => this.tidy(id, due.versions))
    this.#running.set(id, run)
    this.#inBackground(run.finally(() => this.#running.get(id) === run && this.#running.delete(id)))
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
    for (const id of [...this.#due.keys()]) this.#runDue(id)
    while (this.#background.size) await Promise.allSettled([...this.#background])
  }

  /**
   * Space and read-speed housekeeping after versions are durable (those of one commit, oldest
   * first); a failure here loses nothing. The contents they replaced are packed into the history
   * (whole when small, else as a delta against their successor), in one segment write, and their
   * blob files released; what cannot be packed is rewritten as a blob-level delta. `locked`: the
   * caller holds the folio lock already.
   */
  async tidy(id: string, versions: TidyVersion[], locked = false): Promise<void> {
    try {
      const latest = versions.at(-1)
      if (!latest) return
      const current = new Set(Object.values(latest.head.files).map((r) => r.h))
      for (const version of versions) {
        if (version.restored) for (const ref of Object.values(version.head.files)) await this.#blobs.materialize(ref.h)
      }
      const packs: Array<[string, PackedContent]> = []
      const packed: Array<[string, string]> = []
      const rest: Array<[string, string]> = []
      for (const [oldHash, newHash] of versions.flatMap((v) => v.compactions)) {
        if (current.has(oldHash)) continue
        // Either content may be gone as a blob already (packed by a later version's housekeeping).
        const pack = await this.#packable(oldHash, newHash).catch(ifMissing(null))
        if (pack === null) continue
        if (pack) {
          packs.push([oldHash, pack])
          packed.push([oldHash, newHash])
        } else rest.push([oldHash, newHash])
      }
      if (packs.length) {
        const write = () => this.#packLocked(id, latest.n, packs, locked ? latest.head : undefined)
        const unpacked = new Set(locked ? await write() : await this.#locks.run(folioLock(id), write))
        rest.push(...packed.filter(([oldHash]) => unpacked.has(oldHash)))
      }
      for (const [oldHash, newHash] of rest) await this.#blobs.compact(oldHash, newHash).catch(ifMissing(undefined))
    } catch (error) {
      this.#warn(`Blob housekeeping failed (no data lost): ${(error as Error).message}`)
    }
  }

  async #compactBlobs(head: VersionManifest, compactions: Array<[string, string]>): Promise<void> {
    try {
      const current = new Set(Object.values(head.files).map((r) => r.h))
      for (const [oldHash, newHash] of compactions) if (!current.has(oldHash)) await this.#blobs.compact(oldHash, newHash).catch(ifMissing(undefined))
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
   * and its index entry). Returns the hashes left unpacked because version n has no segment (a
   * folio from before segments keeps blob files).
   *
   * The packs were worked out before the lock, in the order of the versions that replaced those
   * contents; only those still true are written, judged one after the other as if each were
   * written alone. A content that is current again (a restore raced the housekeeping) keeps its
   * blob. A content the folio no longer holds as a blob was packed since, maybe against a newer
   * base: an older pack must not overwrite that. A delta needs its base held as a blob right now
   * (and not packed by an earlier pack of this same write): every pack then points at a content
   * whose own pack, if any, is written later, so a chain only ever leads forward in time (no
   * loops, no dead ends). `importing`: the head during an import, before metadata exists.
   */
  async #packLocked(id: string, n: number, packs: Array<[string, PackedContent]>, importing?: VersionManifest): Promise<string[]> {
    let head = importing
    if (!head) {
      const meta = await this.#meta(id)
      if (!meta) return []
      head = await this.#history.manifest(id, meta.head)
    }
    const current = new Set(Object.values(head?.files ?? {}).map((r) => r.h))
    const involved = [...new Set(packs.flatMap(([hash, pack]) => ('base' in pack ? [hash, pack.base] : [hash])))]
    const heldNow = await Promise.all(involved.map((hash) => this.#storage.hasItem(keys.folioBlob(id, hash))))
    const held = new Set(involved.filter((_, i) => heldNow[i]))
    const keep: Record<string, PackedContent> = {}
    for (const [hash, pack] of packs) {
      if (current.has(hash) || !held.has(hash) || ('base' in pack && !held.has(pack.base))) continue
      keep[hash] = pack
      // Packed now: no longer a blob for a later pack of this write to rest on.
      held.delete(hash)
    }
    if (Object.keys(keep).length === 0) return []
    if (!(await this.#history.pack(id, n, keep))) return Object.keys(keep)
    // The packed copy is durable: only now may the blob go (if no other folio holds it).
    // Several at a time: each is a few calls through libuv's pool, and writers wait for the lock.
    await mapLimit(Object.keys(keep), 8, async (hash) => {
      await this.#blobs.release(hash, id)
      await this.#storage.removeItem(keys.folioBlob(id, hash), { lazy: true })
    })
    return []
  }
}

/** A content gone as a blob since the housekeeping was planned needs none: `value` instead. */
function ifMissing<T>(value: T): (error: unknown) => T {
  return (error) => {
    if (error instanceof BlobMissingError) return value
    throw error
  }
}
