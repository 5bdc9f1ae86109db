import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import { newFolioId, versionId, versionNumber } from '../../domain/ids.js'
import type { BlobRef, FileMap, FolioMeta, MetaPatch, VersionManifest, VersionSummary } from '../../domain/model.js'
import type { BlobStore } from '../content/blob-store.js'
import { AssetResolver, type FileEncoding, PLAIN_FILES } from '../content/asset-resolver.js'
import { FolioContents } from '../content/folio-contents.js'
import { definedOnly, incoming, incomingPath } from '../content/incoming-files.js'
import { addVersionLog, type ImportedMeta, type ImportedVersion, importFolio, type ImportParts } from '../content/folio-imports.js'
import { HistoryPacker } from '../content/history-packer.js'
import { HistorySegments } from '../content/history-segments.js'
import { CorruptDocumentError, readJson, writeJson } from '../engine/json-io.js'
import type { Locks } from '../coordination/locks.js'
import { keys } from '../keys.js'
import { folioLock, folioLocks, lockedThing } from '../coordination/lock-keys.js'
import { mapLimit } from '../engine/map-limit.js'
import { VersionConflictError } from '../store-errors.js'
import { type PurgedListener, Trash } from '../content/trash.js'
import { type FilesRequest, VersionCommits } from '../content/version-commits.js'
import { summaryOf, VersionLog } from '../content/version-log.js'

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

export type NewFolioMeta = Omit<FolioMeta, 'id' | 'createdAt' | 'updatedAt' | 'head' | 'storageBytes' | 'log' | 'logStart'>

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

/**
 * The life of a folio: its metadata and version history, from create through new versions,
 * restores, patches and uploads to delete. Each version is a small manifest (path → blob
 * reference); contents are stored and read by FolioContents, housekeeping after a version is
 * HistoryPacker's, and a deletion's steps are Trash's. A write touches the new manifest, the
 * metadata key and the blobs of files that changed: its cost depends on the change, not on how
 * many versions or folios exist.
 */
export class FolioRepository {
  readonly #storage: Storage
  readonly #locks: Locks
  readonly #warn: (message: string) => void
  /** Weighed by size: metadata carries the version log's tail and the design preferences. */
  readonly #metas = new LRUCache<string, FolioMeta>({ max: 50_000, maxSize: 64 * 1024 * 1024, sizeCalculation: (m) => JSON.stringify(m).length })
  /** Bumped by every write and drop of metadata (#keep): a read that spans one does not cache what it read. */
  #metasChanged = 0
  readonly #history: HistorySegments
  readonly #log: VersionLog
  readonly #contents: FolioContents
  readonly #packer: HistoryPacker
  readonly #trash: Trash
  readonly #commits: VersionCommits
  readonly #imports: ImportParts
  readonly #listeners = new Set<(id: string, change: FolioChange) => void>()
  readonly #versionListeners = new Set<(id: string) => void>()
  /** Cloud: images are shown as, accepted as and served by asset:// pointers (asset-resolver.ts). */
  readonly files: FileEncoding

  constructor(
    storage: Storage,
    blobs: BlobStore,
    locks: Locks,
    options: { warn?: (message: string) => void; assetPointers?: boolean; purged?: PurgedListener } = {},
  ) {
    this.#storage = storage
    this.#locks = locks
    this.#warn = options.warn ?? ((m) => console.warn(m))
    this.#history = new HistorySegments(storage)
    this.#log = new VersionLog(storage)
    this.#contents = new FolioContents(storage, blobs, this.#history)
    this.#packer = new HistoryPacker({ storage, blobs, history: this.#history, locks, meta: (id) => this.get(id), warn: this.#warn })
    this.#trash = new Trash(storage, blobs, options.purged)
    this.files = options.assetPointers ? new AssetResolver(this.#contents, this) : PLAIN_FILES
    this.#imports = {
      storage,
      locks,
      history: this.#history,
      log: this.#log,
      contents: this.#contents,
      packer: this.#packer,
      versions: (meta) => this.history(meta),
      forget: (id) => this.#keep(id, undefined),
    }
    this.#commits = new VersionCommits({
      storage,
      locks,
      history: this.#history,
      log: this.#log,
      contents: this.#contents,
      packer: this.#packer,
      meta: (id) => this.get(id),
      committed: (meta) => this.#keep(meta.id, meta),
      changed: (id, what) => {
        if (what.meta || !what.versions) this.#emit(id, 'meta')
        if (what.versions) this.#emit(id, 'versions')
        if (what.versions) for (const listener of this.#versionListeners) listener(id)
      },
    })
    // Another instance wrote under this folio's lock since this one held it: its cached metadata
    // and history may be old. A delete holds the engagement locks too: their holders re-read the metadata.
    locks.onStale((key) => {
      const thing = lockedThing(key)
      if (thing.kind === 'folio') this.forget(thing.id)
      else if (thing.kind === 'engagement') this.#keep(thing.id, undefined)
    })
  }

  /** Drops what is cached of a folio another instance changed; of every folio when messages were missed. */
  forget(id?: string): void {
    if (id === undefined) this.#metas.clear()
    this.#keep(id, undefined)
    this.#history.forget(id)
  }

  #keep(id: string | undefined, meta: FolioMeta | undefined): void {
    this.#metasChanged++
    if (id !== undefined) this.#metas.set(id, meta)
  }

  /** Another instance changed the folio (change-feed.ts): caches drop, listeners hear it as a local change (not onNewVersion's: re-anchoring runs where the version was made). */
  heard(id: string, change: FolioChange): void {
    this.forget(id)
    this.#emit(id, change)
  }

  onChange(listener: (id: string, change: FolioChange) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * A new version landed (PUT with files, a restore, a sync patch): not an upload, which merges
   * into the latest version and makes none. After the 'versions' change, under the folio lock.
   */
  onNewVersion(listener: (id: string) => void): () => void {
    this.#versionListeners.add(listener)
    return () => this.#versionListeners.delete(listener)
  }

  #emit(id: string, change: FolioChange): void {
    for (const listener of this.#listeners) listener(id, change)
  }

  async get(id: string): Promise<FolioMeta | undefined> {
    const cached = this.#metas.get(id)
    if (cached) return cached
    const changed = this.#metasChanged
    const meta = await readJson<FolioMeta>(this.#storage, keys.meta(id))
    // On a case-insensitive disk (macOS, Windows) ABC finds abc's files; only the exact id is
    // that folio, or two spellings would hold two locks over the same files.
    if (!meta || meta.id !== id) return undefined
    // Unless a write or a drop came in meanwhile: what was read may be older than what it left.
    if (changed === this.#metasChanged) this.#metas.set(id, meta)
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

  /** Every version without its files, oldest first, from the version log (no history read). */
  async versionSummaries(meta: FolioMeta): Promise<VersionSummary[]> {
    return this.#log.all(meta)
  }

  /** A version's files as the API shows them (Cloud: images as asset:// pointers). */
  async readFiles(id: string, manifest: VersionManifest): Promise<FileMap> {
    return this.#contents.readFiles(id, manifest, this.files.pointers)
  }

  /** A file as viewers get it: text with its asset pointers inlined again (folio-contents.ts). */
  async served(id: string, ref: BlobRef): Promise<Buffer> {
    return this.#contents.served(id, ref)
  }

  /** A file content of this folio's history, rebuilt when the history packed it. */
  async content(id: string, hash: string): Promise<Buffer> {
    return this.#contents.content(id, hash)
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
    const { files, assets } = await this.files.encodeNew(input.meta.workspaceId, input.files)
    return this.#locks.run(folioLock(id), async () => {
      const now = new Date().toISOString()
      const stored = await this.#contents.storeBlobs(id, files, {})
      stored.added += (await this.#contents.stage(id, assets)).added
      const head: VersionManifest = { versionId: versionId(1), commitMessage: input.commitMessage, createdAt: now, author: input.author, files: stored.refs }
      await this.#history.append(id, 1, head)
      await this.#storage.setItemRaw(keys.workspaceFolio(input.meta.workspaceId, id), Buffer.alloc(0))
      const meta: FolioMeta = { ...input.meta, id, createdAt: now, updatedAt: now, head: 1, storageBytes: stored.added, log: [summaryOf(head)], logStart: 1 }
      // The metadata key is the commit point: until it exists the folio does not.
      await writeJson(this.#storage, keys.meta(id), meta)
      this.#keep(id, meta)
      this.#emit(id, 'versions')
      return { meta, head }
    })
  }

  /** Writes a folio whose id, timestamps and history come from elsewhere (migrations: folio-imports.ts). */
  importFolio(meta: ImportedMeta, versions: ImportedVersion[]): Promise<boolean> {
    return importFolio(this.#imports, meta, versions)
  }

  /** Gives a folio written before version logs (format < 3) its log (folio-imports.ts). */
  addVersionLog(id: string): Promise<boolean> {
    return addVersionLog(this.#imports, id)
  }

  /**
   * Metadata, a new version of these files, or a restore: queued with the folio's other changes
   * and group-committed (version-commits.ts). Returns undefined when the folio does not exist.
   */
  async update(id: string, input: UpdateFolioInput): Promise<FolioWithHead | undefined> {
    const patch = definedOnly(input.patch)
    if (input.restoreVersionId !== undefined) {
      return this.#commits.submit(id, { kind: 'restore', patch, versionId: input.restoreVersionId, message: input.commitMessage, author: input.author })
    }
    if (input.files) {
      const request: FilesRequest = { kind: 'files', patch, files: [], message: input.commitMessage ?? 'Update', author: input.author }
      request.ready = this.files.encodeFor(id, input.files).then((encoded) => {
        request.files = (encoded?.files ?? []).map(({ path, ...content }) => incoming(path, content))
        request.assets = encoded?.assets
      })
      return this.#commits.submit(id, request)
    }
    return this.#commits.submit(id, { kind: 'meta', patch })
  }

  /**
   * Applies a set of file changes (null bytes: delete) on top of the latest version, as one new
   * version — or none at all when every file already is as sent. The watcher's endpoint. A
   * baseVersionId must be the latest version when the patch's turn comes (VersionConflictError).
   */
  async applyPatch(id: string, input: PatchInput): Promise<PatchResult | undefined> {
    const known = this.peek(id)
    const base = input.baseVersionId === undefined ? undefined : versionNumber(input.baseVersionId)
    // Older than the latest already (versions only move forward): refused before storing anything.
    if (known && base !== undefined && base < known.head) throw new VersionConflictError(input.baseVersionId!, versionId(known.head))
    const changes = input.changes.map((change) => {
      const path = incomingPath(change.path)
      return { path, file: change.bytes === null ? null : incoming(path, { bytes: change.bytes, mime: change.mime }) }
    })
    const result = await this.#commits.submit(id, { kind: 'patch', changes, baseVersionId: input.baseVersionId, message: input.message, author: input.author })
    return result && { meta: result.meta, head: result.head, changed: result.changed, counts: result.counts! }
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
      const stored = await this.#contents.storeBlobs(
        id,
        files.map((f) => ({ path: f.path, bytes: f.bytes, mime: f.mime })),
        current.files,
      )
      const head: VersionManifest = { ...current, files: { ...current.files, ...stored.refs } }
      await this.#history.replace(id, meta.head, head)
      const next: FolioMeta = { ...meta, updatedAt: new Date().toISOString(), storageBytes: meta.storageBytes + stored.added }
      await writeJson(this.#storage, keys.meta(id), next)
      this.#keep(id, next)
      // What an upload replaces in place may be referenced by no version at all: packing it would
      // grow the head's segment with every upload. It stays a blob (a blob-level delta if smaller).
      this.#packer.compactLater(head, stored.compactions)
      this.#emit(id, 'versions')
      return { meta: next, head }
    })
  }

  /** Resolves once the housekeeping of every version so far is done (shutdown waits for it). */
  async idle(): Promise<void> {
    await this.#commits.idle()
    await this.#packer.idle()
  }

  async #requireManifest(id: string, n: number): Promise<VersionManifest> {
    const manifest = await this.manifest(id, n)
    if (!manifest) throw new Error(`Folio ${id} is missing its manifest v${n}`)
    return manifest
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
      // Record the intent first, so a crash mid-way is finished on the next start.
      const trash = await this.#trash.record(id, owner)
      // The metadata key is the commit point: once it is gone, so is the folio.
      await this.#storage.removeItem(keys.meta(id))
      this.#keep(id, undefined)
      this.#history.forget(id)
      this.#emit(id, 'deleted')
      return trash
    })
    if (!entry) return false
    await this.#trash.purge(entry)
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

  /** Finishes deletions that a crash interrupted. */
  async recover(): Promise<number> {
    return this.#trash.recover()
  }
}
