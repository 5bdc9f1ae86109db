import type { Storage } from 'unstorage'
import { applyDelta } from '../../domain/delta.js'
import { ASSET_SCHEME, assetPointer, inlinePointers, isImageMime, pointersIn } from '../../domain/asset-pointers.js'
import { sniffImage } from '../../domain/image-sniff.js'
import { decodeFileContent, encodeFileContent } from '../../domain/file-content.js'
import { checkFilePath } from '../../domain/file-paths.js'
import type { BlobRef, FileMap, VersionManifest } from '../../domain/model.js'
import type { WriteOptions } from '../engine/durable-fs-driver.js'
import { BlobMissingError, type BlobStore, hashBytes } from './blob-store.js'
import type { HistorySegments } from './history-segments.js'
import { keys } from '../keys.js'
import { mapLimit } from '../engine/map-limit.js'
import { InvalidFilePathError } from '../store-errors.js'

/** What storing a version's files gives back: its manifest references and what it cost. */
export interface StoredFiles {
  refs: Record<string, BlobRef>
  /** Bytes of contents new to this folio. */
  added: number
  /** [replaced hash, new hash] for each content a new blob replaced: the housekeeping's work. */
  compactions: Array<[string, string]>
}

/** A file of an incoming version, hashed on arrival: its blob is stored before the version commits. */
export interface IncomingFile {
  path: string
  bytes: Buffer
  ref: BlobRef
}

/** What storing an incoming version's blobs did. */
export interface Staged {
  /** Hashes whose blob this call created (candidates for compacting what they replace). */
  created: Set<string>
  /** Bytes of contents new to this folio. */
  added: number
  /** Every hash stored for the folio (new or not). */
  hashes: Set<string>
}

/** Writes of a version on its way: its commit makes them durable (see WriteOptions). */
const WITH_COMMIT: WriteOptions = { durableWithNext: true }

export const NOTHING_STAGED: Readonly<Staged> = { created: new Set(), added: 0, hashes: new Set() }

/**
 * The file contents of a folio's versions: stored as blobs the folio holds (each listed in the
 * folio's own blob index, which is how deletion finds them), read back, and rebuilt from the
 * history's packed chains when old contents are no longer blobs. Callers hold the folio lock
 * for every write.
 */
export class FolioContents {
  readonly #storage: Storage
  readonly #blobs: BlobStore
  readonly #history: HistorySegments

  constructor(storage: Storage, blobs: BlobStore, history: HistorySegments) {
    this.#storage = storage
    this.#blobs = blobs
    this.#history = history
  }

  /**
   * A version's files as the API carries them: text as is, binary as a base64 data URL, or, with
   * `assetPointers` (Cloud), images as `asset://<sha256>` pointers, which need no read at all.
   */
  async readFiles(id: string, manifest: VersionManifest, assetPointers = false): Promise<FileMap> {
    const entries = Object.entries(manifest.files)
    const contents = await mapLimit(entries, 16, async ([, ref]) =>
      assetPointers && isImageMime(ref.m) ? assetPointer(ref.h) : decodeFileContent(await this.content(id, ref.h), ref.m),
    )
    const files: FileMap = {}
    entries.forEach(([path], i) => (files[path] = contents[i]!))
    return files
  }

  /**
   * A file content of this folio's history: its blob, or, for an old content that the history
   * packed, rebuilt from the packed delta chain (each step is newer, so the chain ends at a blob
   * or a content packed whole). Rebuilt contents are cached like blobs.
   */
  async content(id: string, hash: string): Promise<Buffer> {
    const steps: Array<{ hash: string; delta: Buffer }> = []
    const seen = new Set<string>()
    let current = hash
    let content: Buffer
    for (;;) {
      try {
        content = await this.#blobs.get(current)
        break
      } catch (error) {
        if (!(error instanceof BlobMissingError) || error.hash !== current) throw error
      }
      let packed = seen.has(current) ? undefined : await this.#history.packed(id, current)
      if (!packed && !seen.has(current)) {
        // The history kept here may predate a packing that moved this content into a segment and
        // removed its blob (housekeeping of this or, on PostgreSQL, another instance): read the
        // folio's history again before calling the content missing.
        this.#history.forget(id)
        packed = await this.#history.packed(id, current)
      }
      if (!packed) throw new BlobMissingError(current)
      seen.add(current)
      if ('raw' in packed) {
        content = Buffer.from(packed.raw, 'base64')
        this.#blobs.remember(current, content)
        break
      }
      steps.push({ hash: current, delta: Buffer.from(packed.delta, 'base64') })
      current = packed.base
    }
    for (let i = steps.length - 1; i >= 0; i--) {
      content = applyDelta(content, steps[i]!.delta)
      this.#blobs.remember(steps[i]!.hash, content)
    }
    return content
  }

  /**
   * A file's bytes as a viewer gets them: a text file's asset pointers (Cloud extracted its
   * embedded images) turned back into the data URLs they came from, so the page is the one
   * that was sent. Only contents this folio holds are inlined; any other pointer stays text.
   */
  async served(id: string, ref: BlobRef): Promise<Buffer> {
    const bytes = await this.content(id, ref.h)
    if (ref.m || !bytes.includes(ASSET_SCHEME)) return bytes
    const text = bytes.toString('utf8')
    const dataUrls = new Map<string, string>()
    await mapLimit(pointersIn(text), 8, async (hash) => {
      if (!(await this.has(id, hash))) return
      const image = await this.content(id, hash)
      const mime = sniffImage(image)
      if (mime) dataUrls.set(hash, `data:${mime};base64,${image.toString('base64')}`)
    })
    return dataUrls.size ? Buffer.from(inlinePointers(text, dataUrls), 'utf8') : bytes
  }

  /** Whether this folio holds a content: as a blob it refers to, or packed in its history. */
  async has(id: string, hash: string): Promise<boolean> {
    if (await this.holdsBlob(id, hash)) return true
    return (await this.#history.packed(id, hash)) !== undefined
  }

  /** Whether this folio refers to a content as a blob (its index entry: a stat, no read). */
  async holdsBlob(id: string, hash: string): Promise<boolean> {
    return this.#storage.hasItem(keys.folioBlob(id, hash))
  }

  /**
   * Before a restore names old contents again: each must be a blob this folio refers to (a
   * packed one is stored as a blob again), or a later deletion elsewhere could take it away.
   */
  async ensureBlobs(id: string, files: Record<string, BlobRef>): Promise<void> {
    await mapLimit([...new Set(Object.values(files).map((r) => r.h))], 8, async (hash) => {
      const index = this.#indexer(id, hash)
      if (await this.#blobs.addRefIfPresent(hash, id, index)) return
      await this.#blobs.put(await this.content(id, hash), id, hash, index)
    })
  }

  /**
   * Stores the blobs of files on their way into a version, outside the folio lock (versions
   * group-committed together store theirs concurrently). Each lands with the folio's index entry
   * and reference, as storeBlobs' do. None waits for the disk: the commit that names them does
   * (its metadata write, after these in the journal, makes them durable with it).
   */
  async stage(id: string, files: IncomingFile[]): Promise<Staged> {
    const staged: Staged = { created: new Set(), added: 0, hashes: new Set() }
    await mapLimit(files, 8, async (file) => {
      const put = await this.#blobs.put(file.bytes, id, file.ref.h, this.#indexer(id, file.ref.h, WITH_COMMIT), WITH_COMMIT)
      staged.hashes.add(put.hash)
      if (put.created) staged.created.add(put.hash)
      if (put.newToOwner) staged.added += put.size
    })
    return staged
  }

  /**
   * Under the folio lock, before a commit: makes sure the folio still holds each of these
   * contents. One stored before a batch, or held by the version before, may have been packed and
   * released since (the housekeeping of an earlier version); it is stored again.
   */
  async hold(id: string, files: IncomingFile[]): Promise<Staged> {
    const staged: Staged = { created: new Set(), added: 0, hashes: new Set() }
    await mapLimit(files, 16, async (file) => {
      if (await this.#blobs.holds(file.ref.h, id)) return
      const again = await this.stage(id, [file])
      for (const hash of again.created) staged.created.add(hash)
      for (const hash of again.hashes) staged.hashes.add(hash)
      staged.added += again.added
    })
    return staged
  }

  /** The folio lets go of contents it stored for versions that never came (it was deleted). */
  async release(id: string, hashes: Iterable<string>): Promise<void> {
    for (const hash of hashes) {
      await this.#blobs.release(hash, id)
      await this.#storage.removeItem(keys.folioBlob(id, hash), { lazy: true })
    }
  }

  /** Writes the folio's index entry of a blob (if missing): put() runs it before the reference. */
  #indexer(id: string, hash: string, write?: WriteOptions): () => Promise<void> {
    const indexKey = keys.folioBlob(id, hash)
    return async () => {
      if (!(await this.#storage.hasItem(indexKey))) await this.#storage.setItemRaw(indexKey, Buffer.alloc(0), write)
    }
  }

  /** Stores files as the API carries them (text, or base64 data URLs for binary files). */
  async storeFiles(id: string, files: FileMap, previous: Record<string, BlobRef>): Promise<StoredFiles> {
    return this.storeBlobs(
      id,
      Object.entries(files).map(([path, content]) => ({ path, ...encodeFileContent(content) })),
      previous,
    )
  }

  /** Stores each file's bytes as a blob (if new) and returns the manifest references. */
  async storeBlobs(id: string, files: Array<{ path: string; bytes: Buffer; mime?: string }>, previous: Record<string, BlobRef>): Promise<StoredFiles> {
    const results = await mapLimit(files, 8, async ({ path: rawPath, bytes, mime }) => {
      const checked = checkFilePath(rawPath)
      if (!checked.ok) throw new InvalidFilePathError(rawPath, checked.reason)
      const hash = hashBytes(bytes)
      const prev = previous[checked.path]
      const ref: BlobRef = mime ? { h: hash, s: bytes.length, m: mime } : { h: hash, s: bytes.length }
      if (prev && prev.h === hash && prev.m === mime) return { path: checked.path, ref: prev, added: 0 }
      // The folio's own index of its blobs is how deletion finds them; it lands before the reference.
      const put = await this.#blobs.put(bytes, id, hash, this.#indexer(id, hash))
      const compaction: [string, string] | undefined = put.created && prev ? [prev.h, hash] : undefined
      return { path: checked.path, ref, added: put.newToOwner ? put.size : 0, compaction }
    })
    const refs: Record<string, BlobRef> = {}
    let added = 0
    const compactions: Array<[string, string]> = []
    for (const r of results) {
      refs[r.path] = r.ref
      added += r.added
      if ('compaction' in r && r.compaction) compactions.push(r.compaction)
    }
    return { refs, added, compactions }
  }
}
