import type { Storage } from 'unstorage'
import type { BlobStore } from './blob-store.js'
import { clearPrefix, readJson, writeJson } from '../engine/json-io.js'
import { keys } from '../keys.js'
import { mapLimit } from '../engine/map-limit.js'

/** A deletion in progress: what is left to remove once the folio's metadata is gone. */
export interface TrashEntry {
  id: string
  workspaceId: string
  hashes: string[]
}

/** Told, once a deletion is done, every content the folio held: its blobs and its packed history. */
export type PurgedListener = (entry: TrashEntry, contents: string[]) => void

/**
 * Deleting a folio in steps a crash cannot break: the intent is recorded (`trash:<id>.json`),
 * the caller removes the metadata (the commit point), then everything else goes. A deletion a
 * stop interrupted is finished on the next start (recover).
 */
export class Trash {
  readonly #storage: Storage
  readonly #blobs: BlobStore
  readonly #purged: PurgedListener | undefined

  constructor(storage: Storage, blobs: BlobStore, purged?: PurgedListener) {
    this.#storage = storage
    this.#blobs = blobs
    this.#purged = purged
  }

  /** Records the intent to delete the folio with every blob it holds. Call with its locks held. */
  async record(id: string, workspaceId: string): Promise<TrashEntry> {
    const blobKeys = await this.#storage.getKeys(keys.folioBlobs(id))
    const trash: TrashEntry = { id, workspaceId, hashes: blobKeys.map((k) => k.slice(k.lastIndexOf(':') + 1)) }
    await writeJson(this.#storage, keys.trash(id), trash)
    return trash
  }

  /** Removes the membership marker, the folio's keys and its blob references; then the entry. */
  async purge(entry: TrashEntry): Promise<void> {
    await this.#storage.removeItem(keys.workspaceFolio(entry.workspaceId, entry.id))
    // Read before the history goes (only when someone listens: Cloud's storage usage).
    const packed = this.#purged ? await this.#packedContents(entry.id) : []
    await clearPrefix(this.#storage, keys.folio(entry.id))
    await mapLimit(entry.hashes, 8, (hash) => this.#blobs.release(hash, entry.id))
    await this.#storage.removeItem(keys.trash(entry.id))
    this.#purged?.(entry, [...entry.hashes, ...packed])
  }

  /**
   * The old contents the folio's history segments packed (no longer blobs of the folio, yet
   * counted when they were written). A segment that cannot be read adds none: left counted.
   */
  async #packedContents(id: string): Promise<string[]> {
    const hashes: string[] = []
    for (const key of await this.#storage.getKeys(keys.historyDir(id))) {
      const segment = await readJson<{ packed?: Record<string, unknown> }>(this.#storage, key).catch(() => undefined)
      if (segment?.packed) hashes.push(...Object.keys(segment.packed))
    }
    return hashes
  }

  /** Finishes deletions that a crash interrupted. */
  async recover(): Promise<number> {
    const pending = await this.#storage.getKeys(keys.trashDir)
    for (const key of pending) {
      const entry = await readJson<TrashEntry>(this.#storage, key)
      if (entry) await this.purge(entry)
      else await this.#storage.removeItem(key)
    }
    return pending.length
  }
}
