import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { getSyncManifest, syncFiles } from '../../api/sync.js'
import { fetchFolioFiles, hashesOf, latestManifest } from './folio-files.js'
import { ApiClientError, type FolioClient, ServerUnreachableError } from '../../client/index.js'
import { CliError } from '../errors.js'
import { MAX_EXPANDED_BYTES } from '../request-limits.js'
import type { FolderRecord } from './folder-record.js'
import { type IgnoreTest, type LocalFile, readLocalFile, scanFolder, unreadableReason } from './local-files.js'
import { madeElsewhere, type MadeElsewhere, MadeElsewhereError } from './made-elsewhere.js'
import { type NotPushed, tooBig, unreadable } from './not-pushed.js'
import { fitOnePush } from './push-body.js'
import type { CallOptions, SyncOutcome, SyncPlan } from './sync-outcome.js'

export type { CallOptions, SyncOutcome, SyncPlan } from './sync-outcome.js'

export interface SyncEngineOptions {
  client: FolioClient
  id: string
  root: string
  ignored: IgnoreTest
  message?: string
  /** Which files of the folio came from this folder (see folder-record.ts). */
  record: FolderRecord
  /**
   * Which folio files that the folder lacks a full sync deletes: 'known', those that came from
   * the folder (uploads and files added another way stay); 'mirror', every one of them.
   */
  deletions?: 'known' | 'mirror'
  /** Allow a push that leaves the folio without files, or deletes files while the folder is empty. */
  allowEmpty?: boolean
  /**
   * The watcher's pushes: changes that cannot fit in one request leave their biggest files for the
   * next push instead of being refused whole (a one-off sync refuses, naming them).
   */
  partial?: boolean
  /**
   * A latest version this sync did not make: 'stop' (the default) pushes nothing and throws
   * MadeElsewhereError, for the caller to pull or to name the conflict; 'reread' (folio sync
   * --force) compares the whole folder against it and pushes, so the folder wins.
   */
  elsewhere?: 'stop' | 'reread'
  /** With 'reread': told before the folder is compared against the version made elsewhere. */
  onElsewhere?: (event: MadeElsewhere) => void
}

type Changes = Map<string, LocalFile | null>
type Remote = { versionId: string; files: Map<string, string> }

/** A push waits this long for its answer: one request may carry 20 MB over a slow link. */
const PUSH_TIMEOUT_MS = 120_000

const listed = (paths: string[], max = 5) => (paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`)
const byPath = <T>([a]: [string, T], [b]: [string, T]) => (a < b ? -1 : 1)
const isConflict = (error: unknown) => error instanceof ApiClientError && error.status === 409
const canList = (dir: string) =>
  readdir(dir).then(
    () => true,
    () => false,
  )

/**
 * Pushes a folder's changes to a folio. It knows the content hash of every file in the latest
 * version, so only files whose bytes differ travel; deletions travel as null. A push is one
 * request and so one version. Each push names the version it was computed against: when the
 * latest version is one this sync did not make (409, or the check after a save that changed
 * nothing), it says so and compares the whole folder against it. A file that cannot go (it
 * cannot be read, or is too big for any request) is left out and listed in every outcome until
 * it goes, is ignored or is deleted; it never holds back the rest, and is never taken for deleted.
 */
export class SyncEngine {
  readonly #client: FolioClient
  readonly #id: string
  readonly #root: string
  readonly #record: FolderRecord
  readonly #mirror: boolean
  readonly #allowEmpty: boolean
  readonly #partial: boolean
  readonly #onElsewhere: (event: MadeElsewhere) => void
  #reread: boolean
  #ignored: IgnoreTest
  #message: string | undefined
  #remote: Remote | undefined
  #notPushed = new Map<string, NotPushed>()

  constructor(options: SyncEngineOptions) {
    this.#client = options.client
    this.#id = options.id
    this.#root = options.root
    this.#ignored = options.ignored
    this.#message = options.message
    this.#record = options.record
    this.#mirror = options.deletions === 'mirror'
    this.#allowEmpty = options.allowEmpty ?? false
    this.#partial = options.partial ?? false
    this.#onElsewhere = options.onElsewhere ?? (() => {})
    this.#reread = options.elsewhere === 'reread'
  }

  /** folio sync --watch --force: the folder wins its first push only; later versions made elsewhere are pulled or stop the watch. */
  set elsewhere(policy: 'stop' | 'reread') {
    this.#reread = policy === 'reread'
  }

  set ignored(test: IgnoreTest) {
    this.#ignored = test
  }

  /**
   * The latest version's files. A version other than the one known before (made-elsewhere.ts)
   * stops the sync (MadeElsewhereError; the known version stays the base) unless it re-reads.
   */
  async #refresh(call: CallOptions): Promise<Remote> {
    const latest = await latestManifest(this.#client, this.#id, call.timeoutMs)
    const starting = this.#remote === undefined
    const known = this.#remote?.versionId ?? this.#record.versionId
    if (known && known !== latest.versionId) {
      const event = await madeElsewhere(this.#client, this.#id, known, latest.versionId, starting)
      const base = this.#reread ? undefined : (this.#remote?.files ?? this.#record.base ?? (await this.#filesOf(known)))
      if (base) throw new MadeElsewhereError(event, { versionId: known, files: base }, latest)
      this.#onElsewhere(event)
    }
    this.#remote = latest
    return this.#remote
  }

  /** A version's hashes, for a record that kept none (written by an older folio, or by folio create); undefined when it cannot be read. */
  async #filesOf(versionId: string): Promise<Map<string, string> | undefined> {
    return fetchFolioFiles(this.#client, this.#id, versionId).then(
      (v) => hashesOf(v.files),
      () => undefined,
    )
  }

  /** Asks for the latest version (a live event said one was made): MadeElsewhereError when it is not the one known. */
  async checkLatest(call: CallOptions = {}): Promise<void> {
    await this.#refresh(call)
  }

  /** After a pull brought `latest` into the folder: the folder and the folio agree on it. */
  adopt(latest: { versionId: string; files: ReadonlyMap<string, string> }): void {
    this.#remote = { versionId: latest.versionId, files: new Map(latest.files) }
  }

  /** Whether the server answers at all (whatever the status): the watcher's cheap probe while it is away. */
  async answers(timeoutMs: number): Promise<boolean> {
    try {
      const response = await this.#client.request(getSyncManifest, { params: { id: this.#id }, timeoutMs })
      await response.body?.cancel()
      return true
    } catch (error) {
      if (error instanceof ServerUnreachableError) return false
      throw error
    }
  }

  async #current(call: CallOptions): Promise<Remote> {
    return this.#remote ?? (await this.#refresh(call))
  }

  /** The whole folder against the folio: what differs, what goes, what stays because it did not come from the folder. */
  async #planAll(remote: Remote) {
    const scan = await scanFolder(this.#root, this.#ignored)
    const changes: Changes = new Map()
    const kept: string[] = []
    for (const [path, file] of scan.files) if (remote.files.get(path) !== file.sha256) changes.set(path, file)
    for (const [path, sha256] of remote.files) {
      // A file the folder has but cannot read is not a deleted file: the folio keeps its copy.
      if (scan.files.has(path) || unreadableReason(scan.unreadable, path)) continue
      if (this.#mirror || this.#record.cameFromFolder(path, sha256)) changes.set(path, null)
      else kept.push(path)
    }
    const notPushed = new Map<string, NotPushed>()
    for (const [path, reason] of scan.unreadable) {
      const inFolio = path.endsWith('/') ? [...remote.files.keys()].some((p) => p.startsWith(path)) : remote.files.has(path)
      notPushed.set(path, unreadable(path, reason, inFolio))
    }
    return { scan, changes, kept: kept.sort(), notPushed }
  }

  /** What a full sync would add, change, delete and keep; nothing is sent but the manifest request. */
  async plan(call: CallOptions = {}): Promise<SyncPlan> {
    const remote = await this.#current(call)
    const { changes, kept, notPushed } = await this.#planAll(remote)
    const plan: SyncPlan = { versionId: remote.versionId, added: [], updated: [], deleted: [], kept, notPushed: [] }
    for (const [path, file] of [...changes].sort(byPath)) {
      if (file && file.size > MAX_EXPANDED_BYTES) notPushed.set(path, tooBig(path, file.size, { id: this.#id, root: this.#root }))
      else plan[file === null ? 'deleted' : remote.files.has(path) ? 'updated' : 'added'].push(path)
    }
    plan.notPushed = [...notPushed.values()]
    return plan
  }

  /**
   * The paths a full sync would send, judged against the last manifest fetched, with no request,
   * and those left out: what is still unpushed when the server is away. Undefined when no
   * manifest was ever fetched.
   */
  async unpushed(): Promise<string[] | undefined> {
    if (!this.#remote) return undefined
    const { changes, notPushed } = await this.#planAll(this.#remote)
    return [...new Set([...changes.keys(), ...notPushed.keys(), ...this.#notPushed.keys()])].sort()
  }

  /** The whole folder against the latest version: new, changed and deleted files. */
  async syncAll(call: CallOptions = {}): Promise<SyncOutcome> {
    return this.#withRetryOnConflict(call, async () => {
      const remote = await this.#current(call)
      const { scan, changes, kept, notPushed } = await this.#planAll(remote)
      if (scan.files.size === 0) this.#refuseDeletingFromEmptyFolder(changes)
      const outcome = await this.#push(changes, notPushed, call)
      outcome.kept = kept
      // The folder has what it could not read too; so has it what the folio holds from an unreadable folder of it.
      const unreadableFiles = [...scan.unreadable.keys()].filter((p) => !p.endsWith('/'))
      const inUnreadableFolders = [...remote.files.keys()].filter((p) => this.#record.has(p) && unreadableReason(scan.unreadable, p))
      await this.#record.replace(
        [...scan.files.keys(), ...unreadableFiles, ...inUnreadableFolders],
        this.#fromFolder(scan.files.keys(), notPushed),
        this.#remote!,
      )
      return this.#settle(outcome, notPushed)
    })
  }

  /**
   * Only these paths (a watcher's dirty set): each is re-read, or deleted when gone or ignored.
   * When the latest version turns out to be one made elsewhere, the whole folder is compared instead.
   */
  async syncPaths(paths: Iterable<string>, call: CallOptions = {}): Promise<SyncOutcome> {
    try {
      return await this.#pushPaths(new Set(paths), call)
    } catch (error) {
      if (!isConflict(error)) throw error
    }
    await this.#refresh(call)
    return this.syncAll(call)
  }

  async #pushPaths(candidates: Set<string>, call: CallOptions): Promise<SyncOutcome> {
    let remote = await this.#current(call)
    // Left out last time for a reason no save may report (a permission fixed, room in this push):
    // tried again. A too-big file is tried again when it changes, which the watcher reports. A
    // folder readable again holds files no one has seen: the whole folder is compared.
    for (const [path, entry] of this.#notPushed) if (entry.problem !== 'too-big' && !path.endsWith('/')) candidates.add(path)
    for (const path of this.#notPushed.keys()) if (path.endsWith('/') && (await canList(join(this.#root, path)))) return this.syncAll(call)
    const notPushed = new Map(this.#notPushed)
    const changes: Changes = new Map()
    const present: string[] = []
    const gone: string[] = []
    for (const path of candidates) {
      notPushed.delete(path)
      const reading = this.#ignored(path) ? ({ kind: 'gone' } as const) : await readLocalFile(this.#root, join(this.#root, path))
      if (reading.kind === 'file') {
        present.push(path)
        if (remote.files.get(path) !== reading.file.sha256) changes.set(path, reading.file)
      } else if (reading.kind === 'unreadable') {
        present.push(path)
        notPushed.set(path, unreadable(path, reading.reason, remote.files.has(path)))
      } else {
        // Gone (or a folder now stands there): the folder had it, so the folio loses it too.
        gone.push(path)
        if (remote.files.has(path)) changes.set(path, null)
      }
      if (reading.kind !== 'gone') continue
      // A removed folder: what the folio has under it from this folder goes too.
      for (const [known, sha256] of remote.files) {
        if (known.startsWith(`${path}/`) && (this.#mirror || this.#record.cameFromFolder(known, sha256))) {
          changes.set(known, null)
          gone.push(known)
        }
      }
      for (const left of notPushed.keys()) if (left.startsWith(`${path}/`)) notPushed.delete(left)
    }
    if (changes.size === 0) {
      // Nothing to send, so no 409 would tell: check that the latest version is still the one known.
      const seen = remote.versionId
      remote = await this.#refresh(call)
      if (remote.versionId !== seen) return this.syncAll(call)
    }
    this.#refuseEmptyingTheFolio(remote, changes)
    const outcome = await this.#push(changes, notPushed, call)
    await this.#record.update(present, gone, this.#fromFolder(present, notPushed), this.#remote!)
    return this.#settle(outcome, notPushed)
  }

  /** Pairs of (path, content hash) the folio now holds from the folder: what the record remembers. */
  #fromFolder(paths: Iterable<string>, notPushed: Map<string, NotPushed>): Array<[string, string]> {
    const remote = this.#remote!
    return [...paths].filter((p) => !notPushed.has(p) && remote.files.has(p)).map((p) => [p, remote.files.get(p)!])
  }

  #settle(outcome: SyncOutcome, notPushed: Map<string, NotPushed>): SyncOutcome {
    this.#notPushed = notPushed
    outcome.notPushed = [...notPushed.values()].sort((a, b) => (a.path < b.path ? -1 : 1))
    return outcome
  }

  async #withRetryOnConflict(call: CallOptions, attempt: () => Promise<SyncOutcome>): Promise<SyncOutcome> {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt()
      } catch (error) {
        if (!isConflict(error) || tries >= 3) throw error
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
    throw new CliError(
      `This push would delete every file of folio ${this.#id} (${listed([...remote.files.keys()].sort())}); refused. Pass --allow-empty to allow it.`,
    )
  }

  async #push(changes: Changes, notPushed: Map<string, NotPushed>, call: CallOptions): Promise<SyncOutcome> {
    const remote = this.#remote!
    const outcome: SyncOutcome = {
      versionId: remote.versionId,
      changed: false,
      added: 0,
      updated: 0,
      deleted: 0,
      paths: [],
      deletedPaths: [],
      kept: [],
      notPushed: [],
      filesSent: 0,
      bytesSent: 0,
    }
    if (changes.size === 0) return outcome
    const where = { id: this.#id, root: this.#root }
    const fitting = {
      changes,
      notPushed,
      where,
      partial: this.#partial,
      message: this.#message,
      baseVersionId: remote.versionId,
      inFolio: (path: string) => remote.files.has(path),
    }
    const { body, read, deletions } = await fitOnePush(fitting)
    if (read.size === 0 && deletions.length === 0) return outcome
    const result = await this.#client.call(syncFiles, { params: { id: this.#id }, body }, call.timeoutMs ?? PUSH_TIMEOUT_MS)
    Object.assign(outcome, { versionId: result.versionId, changed: result.changed, ...result.files })
    for (const [path, sent] of read) {
      outcome.filesSent++
      outcome.bytesSent += sent.size
      remote.files.set(path, sent.sha256) // what the folio now holds, so the next diff needs no round trip
    }
    for (const path of deletions) remote.files.delete(path)
    outcome.paths = [...read.keys(), ...deletions].sort()
    outcome.deletedPaths = [...deletions].sort()
    remote.versionId = result.versionId
    return outcome
  }
}
