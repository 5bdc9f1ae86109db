import { dirname, join } from 'node:path'
import { getSyncManifest, syncFiles } from '../../api/sync.js'
import { ApiClientError, type FolioClient } from '../../client/index.js'
import { CliError } from '../errors.js'
import { type Advice, fitOneRequest, isImagePath, refuseIfSurelyTooLarge } from '../request-limits.js'
import type { FolderRecord } from './folder-record.js'
import { hashFile, type IgnoreTest, type LocalFile, readForSync, scanFolder } from './local-files.js'

export interface SyncOutcome {
  versionId: string
  changed: boolean
  added: number
  updated: number
  deleted: number
  /** Paths whose content travelled (or were deleted). */
  paths: string[]
  /** The paths this push deleted from the folio. */
  deletedPaths: string[]
  /** Full syncs: folio files missing from the folder that were kept, as the folder never had them. */
  kept: string[]
  /** File bodies sent: 0 when nothing changed. */
  filesSent: number
  bytesSent: number
}

/** What a full sync would do, without doing it (--dry-run). */
export interface SyncPlan {
  versionId: string
  added: string[]
  updated: string[]
  deleted: string[]
  kept: string[]
}

export interface CallOptions {
  /** Per request; the watcher's last push on Ctrl+C passes a short one. */
  timeoutMs?: number
}

export interface SyncEngineOptions {
  client: FolioClient
  id: string
  root: string
  ignored: IgnoreTest
  message?: string
  /** Which files of the folio came from this folder (see folder-record.ts). */
  record: FolderRecord
  /**
   * Which folio files that the folder lacks a full sync deletes: 'known', those the folder had at
   * its last sync (uploads and files added another way stay); 'mirror', every one of them.
   */
  deletions?: 'known' | 'mirror'
  /** Allow a push that leaves the folio without files, or deletes files while the folder is empty. */
  allowEmpty?: boolean
}

type Changes = Map<string, LocalFile | null>
type Remote = { versionId: string; files: Map<string, string> }

/** A push waits this long for its answer: one request may carry 20 MB over a slow link. */
const PUSH_TIMEOUT_MS = 120_000

const listed = (paths: string[], max = 5) => (paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`)

/**
 * Pushes a folder's changes to a folio. It knows the content hash of every file in the latest
 * version, so only files whose bytes differ travel; deletions travel as null. A push is one
 * request and so one version: when the changes cannot fit in one request, it is refused with the
 * names of the biggest files rather than split into half-versions. Each push names the version it
 * was computed against: if someone else pushed meanwhile, the server answers 409 and the engine
 * refreshes and diffs again.
 */
export class SyncEngine {
  readonly #client: FolioClient
  readonly #id: string
  readonly #root: string
  readonly #record: FolderRecord
  readonly #mirror: boolean
  readonly #allowEmpty: boolean
  #ignored: IgnoreTest
  #message: string | undefined
  #remote: Remote | undefined

  constructor(options: SyncEngineOptions) {
    this.#client = options.client
    this.#id = options.id
    this.#root = options.root
    this.#ignored = options.ignored
    this.#message = options.message
    this.#record = options.record
    this.#mirror = options.deletions === 'mirror'
    this.#allowEmpty = options.allowEmpty ?? false
  }

  set ignored(test: IgnoreTest) {
    this.#ignored = test
  }

  async #refresh(call: CallOptions): Promise<Remote> {
    const manifest = await this.#client.call(getSyncManifest, { params: { id: this.#id } }, call.timeoutMs)
    this.#remote = { versionId: manifest.versionId, files: new Map(Object.entries(manifest.files).map(([p, f]) => [p, f.sha256])) }
    return this.#remote
  }

  /** The whole folder against the folio: what differs, what goes, what stays because the folder never had it. */
  async #planAll(remote: Remote): Promise<{ local: Map<string, LocalFile>; changes: Changes; kept: string[] }> {
    const local = await scanFolder(this.#root, this.#ignored)
    const changes: Changes = new Map()
    const kept: string[] = []
    for (const [path, file] of local) if (remote.files.get(path) !== file.sha256) changes.set(path, file)
    for (const path of remote.files.keys()) {
      if (local.has(path)) continue
      if (this.#mirror || this.#record.has(path)) changes.set(path, null)
      else kept.push(path)
    }
    return { local, changes, kept: kept.sort() }
  }

  /** What a full sync would add, change, delete and keep; nothing is sent but the manifest request. */
  async plan(call: CallOptions = {}): Promise<SyncPlan> {
    const remote = this.#remote ?? (await this.#refresh(call))
    const { changes, kept } = await this.#planAll(remote)
    const plan: SyncPlan = { versionId: remote.versionId, added: [], updated: [], deleted: [], kept }
    for (const [path, file] of [...changes].sort(([a], [b]) => (a < b ? -1 : 1))) {
      plan[file === null ? 'deleted' : remote.files.has(path) ? 'updated' : 'added'].push(path)
    }
    return plan
  }

  /**
   * The paths a full sync would send, judged against the last manifest fetched, with no request:
   * what is still unpushed when the server is away. Undefined when no manifest was ever fetched.
   */
  async unpushed(): Promise<string[] | undefined> {
    if (!this.#remote) return undefined
    const { changes } = await this.#planAll(this.#remote)
    return [...changes.keys()].sort()
  }

  /** The whole folder against the latest version: new, changed and deleted files. */
  async syncAll(call: CallOptions = {}): Promise<SyncOutcome> {
    return this.#withRetryOnConflict(call, async () => {
      const remote = this.#remote ?? (await this.#refresh(call))
      const { local, changes, kept } = await this.#planAll(remote)
      if (local.size === 0) this.#refuseDeletingFromEmptyFolder(changes)
      const outcome = await this.#push(changes, call)
      outcome.kept = kept
      await this.#record.replace(local.keys())
      return outcome
    })
  }

  /** Only these paths (a watcher's dirty set): each is re-read, or deleted when gone or ignored. */
  async syncPaths(paths: Iterable<string>, call: CallOptions = {}): Promise<SyncOutcome> {
    const candidates = [...paths]
    return this.#withRetryOnConflict(call, async () => {
      const remote = this.#remote ?? (await this.#refresh(call))
      const changes: Changes = new Map()
      const present: string[] = []
      const gone: string[] = []
      for (const path of candidates) {
        const file = this.#ignored(path) ? undefined : await hashFile(this.#root, join(this.#root, path))
        if (file) present.push(path)
        else gone.push(path)
        if (file && remote.files.get(path) !== file.sha256) changes.set(path, file)
        // The watcher saw it go from the folder: the folder had it, so the folio loses it too.
        if (!file && remote.files.has(path)) changes.set(path, null)
        // A removed folder: what the folio has under it from this folder goes too.
        if (!file) {
          for (const known of remote.files.keys()) {
            if (known.startsWith(`${path}/`) && (this.#mirror || this.#record.has(known))) {
              changes.set(known, null)
              gone.push(known)
            }
          }
        }
      }
      this.#refuseEmptyingTheFolio(remote, changes)
      const outcome = await this.#push(changes, call)
      await this.#record.update(present, gone)
      return outcome
    })
  }

  async #withRetryOnConflict(call: CallOptions, attempt: () => Promise<SyncOutcome>): Promise<SyncOutcome> {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt()
      } catch (error) {
        if (!(error instanceof ApiClientError && error.status === 409) || tries >= 3) throw error
        await this.#refresh(call)
      }
    }
  }

  /** An empty (or wholly ignored) folder is far more often a mistake than a wish to delete everything. */
  #refuseDeletingFromEmptyFolder(changes: Changes): void {
    const deleting = [...changes].filter(([, file]) => file === null).map(([path]) => path)
    if (deleting.length === 0 || this.#allowEmpty) return
    throw new CliError(
      `${this.#root} has no files to publish (after .gitignore/.folioignore), so this sync would delete ${deleting.length} file(s) from folio ${this.#id}: ${listed(deleting.sort())}. Nothing was changed. Check the folder and its ignore files, or pass --allow-empty to delete them.`,
    )
  }

  #refuseEmptyingTheFolio(remote: Remote, changes: Changes): void {
    if (this.#allowEmpty) return
    const after = new Set(remote.files.keys())
    for (const [path, file] of changes) {
      if (file) after.add(path)
      else after.delete(path)
    }
    if (after.size > 0 || remote.files.size === 0) return
    throw new CliError(`This push would delete every file of folio ${this.#id} (${listed([...remote.files.keys()].sort())}); refused. Pass --allow-empty to allow it.`)
  }

  /** Too big for one request: name the big files and say what to do with them. */
  #advice: Advice = (biggest) => {
    const image = biggest.find((f) => isImagePath(f.path))
    const folder = image && dirname(image.path)
    const upload = image
      ? ` Images can go with folio upload (up to 25 MB each, no new version), e.g. folio upload ${this.#id} ${join(this.#root, image.path)}${folder !== '.' ? ` --to ${folder}` : ''}; a file already in the folio is not sent again.`
      : ''
    return `Leave big files out with .folioignore.${upload}`
  }

  async #push(changes: Changes, call: CallOptions): Promise<SyncOutcome> {
    const remote = this.#remote!
    const outcome: SyncOutcome = { versionId: remote.versionId, changed: false, added: 0, updated: 0, deleted: 0, paths: [], deletedPaths: [], kept: [], filesSent: 0, bytesSent: 0 }
    if (changes.size === 0) return outcome
    const sorted = [...changes].sort(([a], [b]) => (a < b ? -1 : 1))
    const sending = sorted.flatMap(([, file]) => (file ? [{ path: file.path, size: file.size }] : []))
    refuseIfSurelyTooLarge(sending, this.#advice)
    const files: Record<string, string | { base64: string } | null> = {}
    for (const [path, file] of sorted) files[path] = file ? await readForSync(file) : null
    const body = fitOneRequest({ files, message: this.#message, baseVersionId: remote.versionId }, sending, this.#advice)
    const result = await this.#client.call(syncFiles, { params: { id: this.#id }, body }, call.timeoutMs ?? PUSH_TIMEOUT_MS)
    Object.assign(outcome, { versionId: result.versionId, changed: result.changed, ...result.files })
    for (const [path, file] of sorted) {
      outcome.paths.push(path)
      if (!file) outcome.deletedPaths.push(path)
      else {
        outcome.filesSent++
        outcome.bytesSent += file.size
      }
    }
    // What the folio now holds, so the next diff needs no round trip.
    remote.versionId = result.versionId
    for (const [path, file] of changes) {
      if (file) remote.files.set(path, file.sha256)
      else remote.files.delete(path)
    }
    return outcome
  }
}
