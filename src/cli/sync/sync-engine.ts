import { getSyncManifest, syncFiles } from '../../api/sync.js'
import { ApiClientError, type FolioClient } from '../../client/index.js'
import { maybeGzip } from '../../client/gzip.js'
import { hashFile, type IgnoreTest, type LocalFile, readForSync, scanFolder } from './local-files.js'
import { join } from 'node:path'

export interface SyncOutcome {
  versionId: string
  changed: boolean
  added: number
  updated: number
  deleted: number
  /** Paths whose content travelled (or were deleted). */
  paths: string[]
  /** File bodies sent: 0 when nothing changed. */
  filesSent: number
  bytesSent: number
}

/** One call's worth of content; bigger change sets go in several calls (several versions). */
const MAX_BATCH_BYTES = 12 * 1024 * 1024

/**
 * Pushes a folder's changes to a folio. It knows the content hash of every file in the latest
 * version, so only files whose bytes differ travel; deletions travel as null. Each push names
 * the version it was computed against: if someone else pushed meanwhile, the server answers 409
 * and the engine refreshes and diffs again.
 */
export class SyncEngine {
  readonly #client: FolioClient
  readonly #id: string
  readonly #root: string
  #ignored: IgnoreTest
  #message: string | undefined
  #remote: { versionId: string; files: Map<string, string> } | undefined

  constructor(options: { client: FolioClient; id: string; root: string; ignored: IgnoreTest; message?: string }) {
    this.#client = options.client
    this.#id = options.id
    this.#root = options.root
    this.#ignored = options.ignored
    this.#message = options.message
  }

  set ignored(test: IgnoreTest) {
    this.#ignored = test
  }

  async #refresh(): Promise<{ versionId: string; files: Map<string, string> }> {
    const manifest = await this.#client.call(getSyncManifest, { params: { id: this.#id } })
    this.#remote = { versionId: manifest.versionId, files: new Map(Object.entries(manifest.files).map(([p, f]) => [p, f.sha256])) }
    return this.#remote
  }

  /** The whole folder against the latest version: new, changed and deleted files. */
  async syncAll(): Promise<SyncOutcome> {
    return this.#withRetryOnConflict(async () => {
      const remote = this.#remote ?? (await this.#refresh())
      const local = await scanFolder(this.#root, this.#ignored)
      const changes = new Map<string, LocalFile | null>()
      for (const [path, file] of local) if (remote.files.get(path) !== file.sha256) changes.set(path, file)
      for (const path of remote.files.keys()) if (!local.has(path)) changes.set(path, null)
      return this.#push(changes)
    })
  }

  /** Only these paths (a watcher's dirty set): each is re-read, or deleted when gone or ignored. */
  async syncPaths(paths: Iterable<string>): Promise<SyncOutcome> {
    const candidates = [...paths]
    return this.#withRetryOnConflict(async () => {
      const remote = this.#remote ?? (await this.#refresh())
      const changes = new Map<string, LocalFile | null>()
      for (const path of candidates) {
        const file = this.#ignored(path) ? undefined : await hashFile(this.#root, join(this.#root, path))
        if (file && remote.files.get(path) !== file.sha256) changes.set(path, file)
        if (!file && remote.files.has(path)) changes.set(path, null)
        // A removed folder: everything the folio has under it goes too.
        if (!file) for (const known of remote.files.keys()) if (known.startsWith(`${path}/`)) changes.set(known, null)
      }
      return this.#push(changes)
    })
  }

  async #withRetryOnConflict(attempt: () => Promise<SyncOutcome>): Promise<SyncOutcome> {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt()
      } catch (error) {
        if (!(error instanceof ApiClientError && error.status === 409) || tries >= 3) throw error
        await this.#refresh()
      }
    }
  }

  async #push(changes: Map<string, LocalFile | null>): Promise<SyncOutcome> {
    const remote = this.#remote!
    const outcome: SyncOutcome = { versionId: remote.versionId, changed: false, added: 0, updated: 0, deleted: 0, paths: [], filesSent: 0, bytesSent: 0 }
    let batch: Record<string, string | { base64: string } | null> = {}
    let batchBytes = 0
    const flush = async () => {
      if (Object.keys(batch).length === 0) return
      const result = await this.#client.call(
        syncFiles,
        { params: { id: this.#id }, body: maybeGzip({ files: batch, message: this.#message, baseVersionId: remote.versionId }) },
        120_000,
      )
      remote.versionId = result.versionId
      outcome.versionId = result.versionId
      outcome.changed ||= result.changed
      outcome.added += result.files.added
      outcome.updated += result.files.updated
      outcome.deleted += result.files.deleted
      batch = {}
      batchBytes = 0
    }
    for (const [path, file] of [...changes].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (file && batchBytes + file.size > MAX_BATCH_BYTES) await flush()
      batch[path] = file ? await readForSync(file) : null
      batchBytes += file?.size ?? 0
      outcome.paths.push(path)
      if (file) {
        outcome.filesSent++
        outcome.bytesSent += file.size
      }
    }
    await flush()
    // What the folio now holds, so the next diff needs no round trip.
    for (const [path, file] of changes) {
      if (file) remote.files.set(path, file.sha256)
      else remote.files.delete(path)
    }
    return outcome
  }
}
