import type { Storage } from 'unstorage'
import type { BlobStore } from '../content/blob-store.js'
import type { Locks } from '../coordination/locks.js'
import { keys } from '../keys.js'
import { lockedThing, usageLock } from '../coordination/lock-keys.js'

interface Usage {
  bytes: number
  /** The distinct contents counted (hash → bytes), read from their markers on first use. */
  contents: Map<string, number>
}

/** A write let in by reserve(): the bytes it may add, and every content it stores. */
export interface Reservation {
  bytes: number
  hashes: string[]
}

/**
 * Storage bytes per workspace, each distinct content counted once (a file shared by versions,
 * folios or assets of one workspace costs its size once). A marker per content
 * (`workspaces/<ws>/contents/<hh>/<hash>~<bytes>`) says it was counted and how big it is; the
 * total is summed from them on first use, so a crash cannot make the two disagree.
 *
 * Deleting a folio gives its contents back (forgetFolio, in the background after the deletion):
 * a content no other folio of the workspace holds as a blob any more (the blob store's `refs`
 * markers) loses its marker, then its bytes. A content a write in progress stores is kept: that
 * write counts it when it is done, and a reference it has not written yet is invisible. Each
 * step is durable before the next, so a crash can only leave a content counted (the next start
 * sums the markers left), never uncount one a folio still holds as a blob. (A content another
 * folio holds only packed in its history costs that folio a delta, and is uncounted: see
 * ARCHITECTURE.md, Reclaiming, for this and the other known gap.)
 */
export class WorkspaceUsage {
  readonly #storage: Storage
  readonly #locks: Locks
  readonly #loaded = new Map<string, Promise<Usage>>()
  /** Bytes of writes let in and not finished yet, per workspace: two at once cannot both pass the quota. */
  readonly #pending = new Map<string, number>()
  /** Per workspace, how many writes in progress store each content (forgetFolio keeps those). */
  readonly #writing = new Map<string, Map<string, number>>()
  /** Deletions being given back: shutdown waits for them (idle). */
  readonly #background = new Set<Promise<void>>()
  readonly #blobs: BlobStore
  readonly #warn: (message: string) => void

  constructor(storage: Storage, locks: Locks, blobs: BlobStore, warn: (message: string) => void = (m) => console.warn(m)) {
    this.#storage = storage
    this.#locks = locks
    this.#blobs = blobs
    this.#warn = warn
    // Another instance counted or uncounted contents of the workspace: its markers are read again.
    locks.onStale((key) => {
      const thing = lockedThing(key)
      if (thing.kind === 'usage') this.#loaded.delete(thing.id)
    })
  }

  /** Bytes the workspace's distinct contents take. */
  async bytes(workspaceId: string): Promise<number> {
    return (await this.#usage(workspaceId)).bytes
  }

  /** How many bytes these contents would add to the workspace (those it already holds add none). */
  async wouldAdd(workspaceId: string, contents: Array<{ hash: string; bytes: number }>): Promise<number> {
    const usage = await this.#usage(workspaceId)
    const seen = new Set<string>()
    let added = 0
    for (const { hash, bytes } of contents) {
      if (usage.contents.has(hash) || seen.has(hash)) continue
      seen.add(hash)
      added += bytes
    }
    return added
  }

  /**
   * Lets a write in if the contents new to the workspace fit under `limit` with everything
   * counted and every write let in before it; release() what it returns once the write is done.
   */
  async reserve(
    workspaceId: string,
    contents: Array<{ hash: string; bytes: number }>,
    limit: number,
  ): Promise<({ admitted: true } & Reservation) | { admitted: false; used: number; added: number }> {
    return this.#locks.run(usageLock(workspaceId), async () => {
      const added = await this.wouldAdd(workspaceId, contents)
      const used = (await this.#usage(workspaceId)).bytes + (this.#pending.get(workspaceId) ?? 0)
      if (added > 0 && used + added > limit) return { admitted: false, used, added }
      this.#pending.set(workspaceId, (this.#pending.get(workspaceId) ?? 0) + added)
      const hashes = contents.map((c) => c.hash)
      const writing = this.#writing.get(workspaceId) ?? new Map<string, number>()
      for (const hash of hashes) writing.set(hash, (writing.get(hash) ?? 0) + 1)
      this.#writing.set(workspaceId, writing)
      return { admitted: true, bytes: added, hashes }
    })
  }

  /** Ends a reservation, once its write is done (and counted) or failed. */
  release(workspaceId: string, reservation: Reservation): void {
    const left = (this.#pending.get(workspaceId) ?? 0) - reservation.bytes
    if (left > 0) this.#pending.set(workspaceId, left)
    else this.#pending.delete(workspaceId)
    const writing = this.#writing.get(workspaceId)
    if (!writing) return
    for (const hash of reservation.hashes) {
      const count = (writing.get(hash) ?? 0) - 1
      if (count > 0) writing.set(hash, count)
      else writing.delete(hash)
    }
    if (!writing.size) this.#writing.delete(workspaceId)
  }

  /** Counts a content for the workspace, once. Returns the bytes it added (0 when already counted). */
  async countContent(workspaceId: string, hash: string, bytes: number): Promise<number> {
    return this.#locks.run(usageLock(workspaceId), async () => {
      const usage = await this.#usage(workspaceId)
      if (usage.contents.has(hash)) return 0
      await this.#storage.setItem(keys.workspaceContent(workspaceId, hash, bytes), '')
      usage.contents.set(hash, bytes)
      usage.bytes += bytes
      return bytes
    })
  }

  /**
   * A folio of the workspace was deleted for good, with these contents (its blobs and packed
   * history): in the background, uncounts each one no other folio of the workspace holds.
   */
  forgetFolio(workspaceId: string, folioId: string, hashes: Iterable<string>): void {
    const task = this.#forget(workspaceId, folioId, [...new Set(hashes)]).catch((error: unknown) => {
      // Left counted: over, never under. The markers are summed again on the next start.
      this.#warn(
        `Could not give back the storage of deleted folio ${folioId} (workspace ${workspaceId}): ${error instanceof Error ? error.message : String(error)}`,
      )
    })
    this.#background.add(task)
    void task.finally(() => this.#background.delete(task))
  }

  async #forget(workspaceId: string, folioId: string, hashes: string[]): Promise<void> {
    for (const hash of hashes) {
      // One content at a time under the workspace's lock: a write's reserve waits for one check, not the folio.
      await this.#locks.run(usageLock(workspaceId), async () => {
        const usage = await this.#usage(workspaceId)
        const bytes = usage.contents.get(hash)
        if (bytes === undefined || this.#writing.get(workspaceId)?.has(hash)) return
        if (await this.#heldElsewhere(workspaceId, folioId, hash)) return
        // The marker first: once it is gone the next start no longer counts the content either.
        await this.#storage.removeItem(keys.workspaceContent(workspaceId, hash, bytes))
        usage.contents.delete(hash)
        usage.bytes -= bytes
      })
    }
  }

  /** Whether a folio of the workspace other than `folioId` refers to the content as a blob. */
  async #heldElsewhere(workspaceId: string, folioId: string, hash: string): Promise<boolean> {
    for (const owner of await this.#blobs.owners(hash)) {
      // `~<hash>` owners are blobs stored as deltas against this one, not folios.
      if (owner === folioId || owner.startsWith('~')) continue
      if (await this.#storage.hasItem(keys.workspaceFolio(workspaceId, owner))) return true
    }
    return false
  }

  /** Resolves once every deletion being given back is done (used on shutdown). */
  async idle(): Promise<void> {
    while (this.#background.size) await Promise.allSettled([...this.#background])
  }

  #usage(workspaceId: string): Promise<Usage> {
    let loaded = this.#loaded.get(workspaceId)
    if (!loaded) {
      loaded = this.#read(workspaceId)
      this.#loaded.set(workspaceId, loaded)
      loaded.catch(() => this.#loaded.delete(workspaceId))
    }
    return loaded
  }

  async #read(workspaceId: string): Promise<Usage> {
    const contents = new Map<string, number>()
    let bytes = 0
    for (const key of await this.#storage.getKeys(keys.workspaceContents(workspaceId))) {
      const name = key.slice(key.lastIndexOf(':') + 1)
      const tilde = name.indexOf('~')
      if (tilde < 0) continue
      const size = Number(name.slice(tilde + 1)) || 0
      contents.set(name.slice(0, tilde), size)
      bytes += size
    }
    return { bytes, contents }
  }
}
