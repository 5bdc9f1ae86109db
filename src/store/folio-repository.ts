import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import { applyDelta, createDelta } from '../domain/delta.js'
import { decodeFileContent, encodeFileContent } from '../domain/file-content.js'
import { checkFilePath } from '../domain/file-paths.js'
import { newFolioId, versionId, versionNumber } from '../domain/ids.js'
import { BlobMissingError, type BlobStore, hashBytes } from './blob-store.js'
import { HistorySegments, type PackedContent } from './history-segments.js'
import type { KeyedMutex } from './keyed-mutex.js'
import { keys } from './keys.js'
import { mapLimit } from './map-limit.js'
import { clearPrefix, CorruptDocumentError, readJson, writeJson } from './json-io.js'
import type { BlobRef, FileMap, FolioMeta, MetaPatch, VersionManifest } from '../domain/model.js'

export class VersionNotFoundError extends Error {
  constructor(readonly versionId: string, readonly latest: number) {
    super(`Version ${versionId} does not exist; this folio has v1 to v${latest}`)
  }
}

export class InvalidFilePathError extends Error {
  constructor(readonly path: string, reason: string) {
    super(`File path ${JSON.stringify(path.slice(0, 80))} ${reason}`)
  }
}

export class VersionConflictError extends Error {
  constructor(readonly expected: string, readonly latest: string) {
    super(`The changes were made against ${expected}, but the latest version is ${latest}`)
  }
}

export interface PatchInput {
  /** bytes null deletes the file; mime marks binary content. */
  changes: Array<{ path: string; bytes: Buffer | null; mime?: string }>
  message?: string
  author: string
  baseVersionId?: string
}

export interface PatchResult extends FolioWithHead {
  changed: boolean
  counts: { added: number; updated: number; deleted: number }
}

export type NewFolioMeta = Omit<FolioMeta, 'id' | 'createdAt' | 'updatedAt' | 'head' | 'storageBytes'>

export interface CreateFolioInput {
  meta: NewFolioMeta
  files: FileMap
  commitMessage: string
  author: string
}

export interface UpdateFolioInput {
  patch: MetaPatch
  /** The complete file set of a new version. */
  files?: FileMap
  restoreVersionId?: string
  commitMessage?: string
  author: string
}

export interface FolioWithHead {
  meta: FolioMeta
  head: VersionManifest
}

export type FolioChange = 'meta' | 'versions' | 'deleted'

interface TrashEntry {
  id: string
  workspaceId: string
  hashes: string[]
}

/** Old contents up to this size are packed into the history whole (a blob file costs a disk block). */
const PACK_WHOLE_BYTES = 2048
/** Larger old contents are packed as a delta against their successor when the delta is this small. */
const PACK_DELTA_BYTES = 16 * 1024

/** Lock keys: history/metadata, and one per engagement key so a beacon never waits for an upload. */
export const folioLock = (id: string) => id
export const folioLocks = (id: string) => [id, `${id}#comments`, `${id}#reactions`, `${id}#analytics`]

/**
 * Folio metadata and version history. Each version is a small manifest (path → blob
 * reference); contents live in the BlobStore. A write touches the new manifest, the metadata
 * key and the blobs of files that changed: its cost depends on the change, not on how many
 * versions or folios exist.
 */
export class FolioRepository {
  readonly #storage: Storage
  readonly #blobs: BlobStore
  readonly #locks: KeyedMutex
  readonly #warn: (message: string) => void
  readonly #metas = new LRUCache<string, FolioMeta>({ max: 20_000 })
  readonly #history: HistorySegments
  readonly #listeners = new Set<(id: string, change: FolioChange) => void>()

  constructor(storage: Storage, blobs: BlobStore, locks: KeyedMutex, options: { warn?: (message: string) => void } = {}) {
    this.#storage = storage
    this.#blobs = blobs
    this.#locks = locks
    this.#warn = options.warn ?? ((m) => console.warn(m))
    this.#history = new HistorySegments(storage)
  }

  onChange(listener: (id: string, change: FolioChange) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #emit(id: string, change: FolioChange): void {
    for (const listener of this.#listeners) listener(id, change)
  }

  async get(id: string): Promise<FolioMeta | undefined> {
    const cached = this.#metas.get(id)
    if (cached) return cached
    const meta = await readJson<FolioMeta>(this.#storage, keys.meta(id))
    // On a case-insensitive disk (macOS, Windows) ABC finds abc's files; only the exact id is
    // that folio, or two spellings would hold two locks over the same files.
    if (!meta || meta.id !== id) return undefined
    this.#metas.set(id, meta)
    return meta
  }

  /** Metadata if it is in memory; never touches storage. */
  peek(id: string): FolioMeta | undefined {
    return this.#metas.get(id)
  }

  async manifest(id: string, n: number): Promise<VersionManifest | undefined> {
    return this.#history.manifest(id, n)
  }

  /** Every version, oldest first. */
  async history(meta: FolioMeta): Promise<VersionManifest[]> {
    const numbers = Array.from({ length: meta.head }, (_, i) => i + 1)
    const manifests = await mapLimit(numbers, 16, (n) => this.manifest(meta.id, n))
    return manifests.filter((m): m is VersionManifest => m !== undefined)
  }

  async readFiles(id: string, manifest: VersionManifest): Promise<FileMap> {
    const entries = Object.entries(manifest.files)
    const contents = await mapLimit(entries, 16, async ([, ref]) => decodeFileContent(await this.content(id, ref.h), ref.m))
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
      const packed = seen.has(current) ? undefined : await this.#history.packed(id, current)
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

  async listIds(workspaceId: string): Promise<string[]> {
    const markers = await this.#storage.getKeys(keys.workspaceFolios(workspaceId))
    return markers.map((k) => k.slice(k.lastIndexOf(':') + 1))
  }

  /**
   * The workspace's folios, most recently updated first. A folio whose metadata is damaged (a
   * disk fault or a hand edit: our writes are atomic) is left out with a warning, so one bad
   * file never takes the whole list down; DELETE still removes it.
   */
  async list(workspaceId: string): Promise<FolioMeta[]> {
    const ids = await this.listIds(workspaceId)
    const metas = await mapLimit(ids, 32, (id) =>
      this.get(id).catch((error: unknown) => {
        if (!(error instanceof CorruptDocumentError)) throw error
        this.#warn(`Left folio ${id} out of the list: ${error.message}. Restore the file from a backup, or delete the folio.`)
        return undefined
      }),
    )
    return metas.filter((m): m is FolioMeta => m !== undefined).sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))
  }

  async create(input: CreateFolioInput): Promise<FolioWithHead> {
    let id = newFolioId()
    while (await this.#storage.hasItem(keys.meta(id))) id = newFolioId()
    return this.#locks.run(folioLock(id), async () => {
      const now = new Date().toISOString()
      const stored = await this.#storeFiles(id, input.files, {})
      const head: VersionManifest = { versionId: versionId(1), commitMessage: input.commitMessage, createdAt: now, author: input.author, files: stored.refs }
      await this.#history.append(id, 1, head)
      await this.#storage.setItemRaw(keys.workspaceFolio(input.meta.workspaceId, id), Buffer.alloc(0))
      const meta: FolioMeta = { ...input.meta, id, createdAt: now, updatedAt: now, head: 1, storageBytes: stored.added }
      // The metadata key is the commit point: until it exists the folio does not.
      await writeJson(this.#storage, keys.meta(id), meta)
      this.#metas.set(id, meta)
      this.#emit(id, 'versions')
      return { meta, head }
    })
  }

  /**
   * Writes a folio whose id, timestamps and history come from elsewhere (a migration). Safe to
   * repeat: a folio whose metadata exists was imported completely and is left alone.
   */
  async importFolio(meta: Omit<FolioMeta, 'head' | 'storageBytes'>, versions: Array<Omit<VersionManifest, 'versionId' | 'files'> & { files: FileMap }>): Promise<boolean> {
    return this.#locks.run(folioLock(meta.id), async () => {
      if (await this.#storage.hasItem(keys.meta(meta.id))) return false
      let previous: Record<string, BlobRef> = {}
      let storageBytes = 0
      for (const [i, version] of versions.entries()) {
        const stored = await this.#storeFiles(meta.id, version.files, previous)
        const manifest: VersionManifest = { ...version, versionId: versionId(i + 1), files: stored.refs }
        await this.#history.append(meta.id, i + 1, manifest)
        await this.#tidy(meta.id, i + 1, manifest, stored.compactions, false, true)
        storageBytes += stored.added
        previous = stored.refs
      }
      await this.#storage.setItemRaw(keys.workspaceFolio(meta.workspaceId, meta.id), Buffer.alloc(0))
      await writeJson(this.#storage, keys.meta(meta.id), { ...meta, head: versions.length, storageBytes })
      return true
    })
  }

  /** Returns undefined when the folio does not exist. */
  async update(id: string, input: UpdateFolioInput): Promise<FolioWithHead | undefined> {
    return this.#locks.run(folioLock(id), async () => {
      const meta = await this.get(id)
      if (!meta) return undefined
      const next: FolioMeta = { ...meta, ...definedOnly(input.patch), updatedAt: new Date().toISOString() }
      if (input.restoreVersionId !== undefined) {
        const n = versionNumber(input.restoreVersionId)
        const source = n !== undefined && n <= meta.head ? await this.manifest(id, n) : undefined
        if (!source) throw new VersionNotFoundError(input.restoreVersionId, meta.head)
        await this.#ensureBlobs(id, source.files)
        return this.#commitVersion(next, source.files, input.commitMessage ?? `Restore ${source.versionId}`, input.author, [], true)
      }
      if (input.files) {
        const current = await this.#requireManifest(id, meta.head)
        const stored = await this.#storeFiles(id, input.files, current.files)
        next.storageBytes += stored.added
        return this.#commitVersion(next, stored.refs, input.commitMessage ?? 'Update', input.author, stored.compactions, false)
      }
      await writeJson(this.#storage, keys.meta(id), next)
      this.#metas.set(id, next)
      this.#emit(id, 'meta')
      return { meta: next, head: await this.#requireManifest(id, next.head) }
    })
  }

  /**
   * Applies a set of file changes (null bytes: delete) on top of the latest version, as one new
   * version — or none at all when every file already is as sent. The watcher's endpoint.
   */
  async applyPatch(id: string, input: PatchInput): Promise<PatchResult | undefined> {
    return this.#locks.run(folioLock(id), async () => {
      const meta = await this.get(id)
      if (!meta) return undefined
      if (input.baseVersionId !== undefined && input.baseVersionId !== versionId(meta.head)) {
        throw new VersionConflictError(input.baseVersionId, versionId(meta.head))
      }
      const current = await this.#requireManifest(id, meta.head)
      const files = { ...current.files }
      const counts = { added: 0, updated: 0, deleted: 0 }
      const writes: Array<{ path: string; bytes: Buffer; mime?: string }> = []
      for (const change of input.changes) {
        const checked = checkFilePath(change.path)
        if (!checked.ok) throw new InvalidFilePathError(change.path, checked.reason)
        const before = files[checked.path]
        if (change.bytes === null) {
          if (before) {
            delete files[checked.path]
            counts.deleted++
          }
        } else if (!before || before.h !== hashBytes(change.bytes) || before.m !== change.mime) {
          writes.push({ path: checked.path, bytes: change.bytes, mime: change.mime })
          counts[before ? 'updated' : 'added']++
        }
      }
      if (writes.length === 0 && counts.deleted === 0) return { meta, head: current, changed: false, counts }
      const stored = await this.#storeBlobs(id, writes, current.files)
      Object.assign(files, stored.refs)
      const next: FolioMeta = { ...meta, updatedAt: new Date().toISOString(), storageBytes: meta.storageBytes + stored.added }
      const summary = [counts.added && `${counts.added} added`, counts.updated && `${counts.updated} changed`, counts.deleted && `${counts.deleted} deleted`].filter(Boolean).join(', ')
      const result = await this.#commitVersion(next, files, input.message ?? `Sync: ${summary}`, input.author, stored.compactions, false)
      return { ...result, changed: true, counts }
    })
  }

  /**
   * Writes version head+1 of `next` with these files, then the metadata: the manifest first, so a
   * reader that sees head n always finds v<n>. Call with the folio lock held.
   */
  async #commitVersion(next: FolioMeta, files: Record<string, BlobRef>, message: string, author: string, compactions: Array<[string, string]>, restored: boolean): Promise<FolioWithHead> {
    const head: VersionManifest = { versionId: versionId(next.head + 1), commitMessage: message, createdAt: next.updatedAt, author, files }
    await this.#history.append(next.id, next.head + 1, head)
    const meta: FolioMeta = { ...next, head: next.head + 1 }
    await writeJson(this.#storage, keys.meta(next.id), meta)
    this.#metas.set(next.id, meta)
    this.#inBackground(this.#tidy(next.id, meta.head, head, compactions, restored))
    this.#emit(next.id, 'versions')
    return { meta, head }
  }

  /**
   * Writes files into the latest version without making a new one (spec: uploads). All files
   * land in one manifest write: a batch is all or nothing. Returns undefined for an unknown folio.
   */
  async mergeIntoHead(id: string, files: Array<{ path: string; bytes: Buffer; mime?: string }>): Promise<FolioWithHead | undefined> {
    return this.#locks.run(folioLock(id), async () => {
      const meta = await this.get(id)
      if (!meta) return undefined
      const current = await this.#requireManifest(id, meta.head)
      const stored = await this.#storeBlobs(
        id,
        files.map((f) => ({ path: f.path, bytes: f.bytes, mime: f.mime })),
        current.files,
      )
      const head: VersionManifest = { ...current, files: { ...current.files, ...stored.refs } }
      await this.#history.replace(id, meta.head, head)
      const next: FolioMeta = { ...meta, updatedAt: new Date().toISOString(), storageBytes: meta.storageBytes + stored.added }
      await writeJson(this.#storage, keys.meta(id), next)
      this.#metas.set(id, next)
      // What an upload replaces in place may be referenced by no version at all: packing it would
      // grow the head's segment with every upload. It stays a blob (a blob-level delta if smaller).
      this.#inBackground(this.#compactBlobs(head, stored.compactions))
      this.#emit(id, 'versions')
      return { meta: next, head }
    })
  }

  readonly #background = new Set<Promise<void>>()

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
  async #tidy(id: string, n: number, head: VersionManifest, compactions: Array<[string, string]>, restored: boolean, locked = false): Promise<void> {
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
      const meta = await this.get(id)
      if (!meta) return true
      head = await this.manifest(id, meta.head)
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

  /**
   * Before a restore names old contents again: each must be a blob this folio refers to (a
   * packed one is stored as a blob again), or a later deletion elsewhere could take it away.
   */
  async #ensureBlobs(id: string, files: Record<string, BlobRef>): Promise<void> {
    await mapLimit([...new Set(Object.values(files).map((r) => r.h))], 8, async (hash) => {
      const indexKey = keys.folioBlob(id, hash)
      const index = async () => {
        if (!(await this.#storage.hasItem(indexKey))) await this.#storage.setItemRaw(indexKey, Buffer.alloc(0))
      }
      if (await this.#blobs.addRefIfPresent(hash, id, index)) return
      await this.#blobs.put(await this.content(id, hash), id, hash, index)
    })
  }

  async #requireManifest(id: string, n: number): Promise<VersionManifest> {
    const manifest = await this.manifest(id, n)
    if (!manifest) throw new Error(`Folio ${id} is missing its manifest v${n}`)
    return manifest
  }

  async #storeFiles(id: string, files: FileMap, previous: Record<string, BlobRef>) {
    return this.#storeBlobs(
      id,
      Object.entries(files).map(([path, content]) => ({ path, ...encodeFileContent(content) })),
      previous,
    )
  }

  /** Stores each file's bytes as a blob (if new) and returns the manifest references. */
  async #storeBlobs(id: string, files: Array<{ path: string; bytes: Buffer; mime?: string }>, previous: Record<string, BlobRef>) {
    const results = await mapLimit(files, 8, async ({ path: rawPath, bytes, mime }) => {
      const checked = checkFilePath(rawPath)
      if (!checked.ok) throw new InvalidFilePathError(rawPath, checked.reason)
      const hash = hashBytes(bytes)
      const prev = previous[checked.path]
      const ref: BlobRef = mime ? { h: hash, s: bytes.length, m: mime } : { h: hash, s: bytes.length }
      if (prev && prev.h === hash && prev.m === mime) return { path: checked.path, ref: prev, added: 0 }
      // The folio's own index of its blobs is how deletion finds them; it lands before the reference.
      const indexKey = keys.folioBlob(id, hash)
      const index = async () => {
        if (!(await this.#storage.hasItem(indexKey))) await this.#storage.setItemRaw(indexKey, Buffer.alloc(0))
      }
      const put = await this.#blobs.put(bytes, id, hash, index)
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

  /**
   * Permanently deletes the folio, its history and engagement; unreferenced blobs go too.
   * `workspaceId` must be the caller's: it is checked against the folio's, or, when the
   * metadata is damaged, against the workspace's membership marker.
   */
  async delete(id: string, workspaceId?: string): Promise<boolean> {
    const entry = await this.#locks.runAll(folioLocks(id), async () => {
      const owner = await this.#ownerOf(id, workspaceId)
      if (owner === undefined) return undefined
      const blobKeys = await this.#storage.getKeys(keys.folioBlobs(id))
      const trash: TrashEntry = { id, workspaceId: owner, hashes: blobKeys.map((k) => k.slice(k.lastIndexOf(':') + 1)) }
      // Record the intent first, so a crash mid-way is finished on the next start.
      await writeJson(this.#storage, keys.trash(id), trash)
      await this.#storage.removeItem(keys.meta(id))
      this.#metas.delete(id)
      this.#history.forget(id)
      this.#emit(id, 'deleted')
      return trash
    })
    if (!entry) return false
    await this.#purge(entry)
    return true
  }

  /** The workspace a folio belongs to, if `workspaceId` (when given) may delete it. */
  async #ownerOf(id: string, workspaceId: string | undefined): Promise<string | undefined> {
    try {
      const meta = await this.get(id)
      return meta && (workspaceId === undefined || meta.workspaceId === workspaceId) ? meta.workspaceId : undefined
    } catch (error) {
      if (!(error instanceof CorruptDocumentError) || workspaceId === undefined) throw error
      return (await this.#storage.hasItem(keys.workspaceFolio(workspaceId, id))) ? workspaceId : undefined
    }
  }

  async #purge(entry: TrashEntry): Promise<void> {
    await this.#storage.removeItem(keys.workspaceFolio(entry.workspaceId, entry.id))
    await clearPrefix(this.#storage, keys.folio(entry.id))
    await mapLimit(entry.hashes, 8, (hash) => this.#blobs.release(hash, entry.id))
    await this.#storage.removeItem(keys.trash(entry.id))
  }

  /** Finishes deletions that a crash interrupted. */
  async recover(): Promise<number> {
    const pending = await this.#storage.getKeys(keys.trashDir)
    for (const key of pending) {
      const entry = await readJson<TrashEntry>(this.#storage, key)
      if (entry) await this.#purge(entry)
      else await this.#storage.removeItem(key)
    }
    return pending.length
  }
}

function definedOnly<T extends object>(patch: T): Partial<T> {
  const out: Partial<T> = {}
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (out as Record<string, unknown>)[k] = v
  return out
}
