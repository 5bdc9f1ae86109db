import type { Storage } from 'unstorage'
import { versionId, versionNumber } from '../../domain/ids.js'
import type { BlobRef, FolioMeta, VersionManifest } from '../../domain/model.js'
import { type FolioContents, type IncomingFile, NOTHING_STAGED, type Staged } from './folio-contents.js'
import { GroupCommit, type Pending } from '../coordination/group-commit.js'
import type { HistoryPacker, TidyVersion } from './history-packer.js'
import type { HistorySegments } from './history-segments.js'
import { writeJson } from '../engine/json-io.js'
import type { Locks } from '../coordination/locks.js'
import { keys } from '../keys.js'
import { folioLock } from '../coordination/lock-keys.js'
import { VersionConflictError, VersionNotFoundError } from '../store-errors.js'
import { appendSummary, summaryOf, type VersionLog } from './version-log.js'

/** A change to a folio that goes through its commit queue, in the order it arrived. */
/**
 * A new version of these files. `ready`, when set, fills files and assets before the request is
 * staged (Cloud reads what pointers name first): the request keeps its place in the queue
 * meanwhile, so changes still commit in arrival order. `assets` are contents the files point to
 * (asset:// in text): held by the folio, in no manifest.
 */
export interface FilesRequest {
  kind: 'files'
  patch: Partial<FolioMeta>
  files: IncomingFile[]
  assets?: IncomingFile[]
  ready?: Promise<void>
  message: string
  author: string
}

export type FolioChangeRequest =
  /** Metadata only: no version. */
  | { kind: 'meta'; patch: Partial<FolioMeta> }
  /** A new version holding exactly these files (and the metadata patch with it). */
  | FilesRequest
  /** A new version copying an old one's files. */
  | { kind: 'restore'; patch: Partial<FolioMeta>; versionId: string; message?: string; author: string }
  /** File changes on top of the latest version (a file null: deleted); no version if nothing changes. */
  | { kind: 'patch'; changes: Array<{ path: string; file: IncomingFile | null }>; baseVersionId?: string; message?: string; author: string }

export interface CommitResult {
  /** The folio as this change left it (later changes of the same commit not included). */
  meta: FolioMeta
  head: VersionManifest
  /** False for a patch that changed nothing (no version). */
  changed: boolean
  /** A patch's files: added, updated, deleted. */
  counts?: { added: number; updated: number; deleted: number }
}

interface Job extends Pending {
  request: FolioChangeRequest
  /** The new blobs, stored from arrival on: all of a batch's are durable before its commit. */
  staged: Promise<Staged>
  resolve(result: CommitResult | undefined): void
}

/** What the commit being built holds so far. */
interface Batch {
  meta: FolioMeta
  head: VersionManifest
  /** The metadata as it was read, before this batch. */
  before: FolioMeta
  versions: VersionManifest[]
  closed: Array<{ first: number; summaries: ReturnType<typeof summaryOf>[] }>
  tidy: TidyVersion[]
  /** Contents new versions bring in (vs the version before each): the folio must hold them. */
  incoming: Map<string, IncomingFile>
  /** A request changed metadata fields (not only what versions move: head, log, dates). */
  metaChanged: boolean
}

/** The parts of FolioRepository that write a folio's history (lent to commits and to migrations' imports). */
export interface HistoryParts {
  storage: Storage
  locks: Locks
  history: HistorySegments
  log: VersionLog
  contents: FolioContents
  packer: HistoryPacker
}

export interface VersionCommitsOptions extends HistoryParts {
  meta: (id: string) => Promise<FolioMeta | undefined>
  /** The metadata written by a commit: the repository's cache. */
  committed: (meta: FolioMeta) => void
  /** After a commit is durable, before its requests are answered: whether it made versions, changed metadata. */
  changed: (id: string, what: { versions: boolean; meta: boolean }) => void
}

/** A refusal of one request; anything else thrown by a commit fails its whole batch. */
const isRefusal = (error: unknown) => error instanceof VersionConflictError || error instanceof VersionNotFoundError

/**
 * Group commit of a folio's versions and metadata changes (group-commit.ts), as engagement
 * writes have it. A request's blobs are stored as it arrives, concurrently with everything else;
 * requests queue per folio while the previous commit is on disk, then one commit applies them
 * in the order they came: each its own version (v7, v8, v9…, each with its own message, author
 * and date), a restore, a patch whose base must be the latest version at its turn, a metadata
 * change. One segment append and one metadata write (the commit point) carry them all, and each
 * request is answered once that write is durable. Folios never wait for each other.
 */
export class VersionCommits {
  readonly #o: VersionCommitsOptions
  readonly #queue: GroupCommit

  constructor(options: VersionCommitsOptions) {
    this.#o = options
    this.#queue = new GroupCommit(options.locks)
  }

  /** Queues a change; undefined when the folio does not exist (or is deleted before its turn). */
  submit(id: string, request: FolioChangeRequest): Promise<CommitResult | undefined> {
    return new Promise((resolve, reject) => {
      const job: Job = { request, staged: this.#stage(id, request), resolve, reject }
      // Settled by the flush; never an unhandled rejection in between.
      job.staged.catch(() => {})
      this.#queue.add(folioLock(id), job, (batch) => this.#flush(id, batch))
    })
  }

  /** Resolves once every queued change is committed. */
  async idle(): Promise<void> {
    await this.#queue.idle()
  }

  /** Stores the blobs of a request's files that the latest version does not already hold. */
  async #stage(id: string, request: FolioChangeRequest): Promise<Staged> {
    if (request.kind === 'files') await request.ready
    const files = request.kind === 'files' ? request.files : request.kind === 'patch' ? request.changes.flatMap((c) => (c.file ? [c.file] : [])) : []
    if (files.length === 0) return NOTHING_STAGED
    const meta = await this.#o.meta(id)
    if (!meta) return NOTHING_STAGED
    const latest = (await this.#o.history.manifest(id, meta.head))?.files ?? {}
    const assets = request.kind === 'files' ? (request.assets ?? []) : []
    return this.#o.contents.stage(id, [...files.filter((f) => !sameRef(latest[f.path], f.ref)), ...assets])
  }

  async #flush(id: string, jobs: Job[]): Promise<void> {
    const staged = await Promise.allSettled(jobs.map((job) => job.staged))
    const before = await this.#o.meta(id)
    if (!before) {
      // Deleted while these waited: what they stored belongs to nothing.
      await this.#o.contents.release(id, new Set(staged.flatMap((s) => (s.status === 'fulfilled' ? [...s.value.hashes] : []))))
      for (const job of jobs) job.resolve(undefined)
      return
    }
    const head = await this.#o.history.manifest(id, before.head)
    if (!head) throw new Error(`Folio ${id} is missing its manifest v${before.head}`)
    const batch: Batch = { meta: before, head, before, versions: [], closed: [], tidy: [], incoming: new Map(), metaChanged: false }
    const answers: Array<() => void> = []
    for (const [i, job] of jobs.entries()) {
      const stored = staged[i]!
      if (stored.status === 'rejected') {
        job.reject(stored.reason)
        continue
      }
      // Bytes a refused request stored stay with the folio (until it is deleted): counted too.
      if (stored.value.added) batch.meta = { ...batch.meta, storageBytes: batch.meta.storageBytes + stored.value.added }
      try {
        const result = await this.#apply(id, batch, job.request, stored.value.created)
        answers.push(() => job.resolve(result))
      } catch (error) {
        if (!isRefusal(error)) throw error
        job.reject(error)
      }
    }
    if (batch.meta === before) return answers.forEach((answer) => answer())
    await this.#commit(id, batch)
    this.#o.changed(id, { versions: batch.versions.length > 0, meta: batch.metaChanged })
    for (const answer of answers) answer()
  }

  /** Applies one request on top of the batch so far: its result, or a refusal thrown. */
  async #apply(id: string, batch: Batch, request: FolioChangeRequest, created: Set<string>): Promise<CommitResult> {
    if (request.kind !== 'patch' && Object.keys(request.patch).length) batch.metaChanged = true
    if (request.kind === 'meta') {
      batch.meta = { ...batch.meta, ...request.patch, updatedAt: now(batch) }
      return { meta: batch.meta, head: batch.head, changed: true }
    }
    if (request.kind === 'restore') {
      const n = versionNumber(request.versionId)
      const source =
        n === undefined || n > batch.meta.head
          ? undefined
          : n > batch.before.head
            ? batch.versions[n - batch.before.head - 1]
            : await this.#o.history.manifest(id, n)
      if (!source) throw new VersionNotFoundError(request.versionId, batch.meta.head)
      // Old contents the history packed become blobs of the folio again.
      await this.#o.contents.ensureBlobs(id, source.files)
      return this.#addVersion(batch, request.patch, source.files, request.message ?? `Restore ${source.versionId}`, request.author, [], true)
    }
    if (request.kind === 'files') {
      const files = Object.fromEntries(request.files.map((f) => [f.path, f.ref]))
      this.#bringIn(batch, [...request.files, ...(request.assets ?? [])])
      return this.#addVersion(batch, request.patch, files, request.message, request.author, compactions(batch.head.files, request.files, created), false)
    }
    const latest = versionId(batch.meta.head)
    if (request.baseVersionId !== undefined && request.baseVersionId !== latest) throw new VersionConflictError(request.baseVersionId, latest)
    const files = { ...batch.head.files }
    const counts = { added: 0, updated: 0, deleted: 0 }
    const written: IncomingFile[] = []
    for (const { path, file } of request.changes) {
      const was = files[path]
      if (!file) {
        if (was) counts.deleted++
        delete files[path]
      } else if (!sameRef(was, file.ref)) {
        counts[was ? 'updated' : 'added']++
        files[path] = file.ref
        written.push(file)
      }
    }
    if (written.length === 0 && counts.deleted === 0) return { meta: batch.meta, head: batch.head, changed: false, counts }
    const summary = [counts.added && `${counts.added} added`, counts.updated && `${counts.updated} changed`, counts.deleted && `${counts.deleted} deleted`]
      .filter(Boolean)
      .join(', ')
    this.#bringIn(batch, written)
    const result = this.#addVersion(
      batch,
      {},
      files,
      request.message ?? `Sync: ${summary}`,
      request.author,
      compactions(batch.head.files, written, created),
      false,
    )
    return { ...result, counts }
  }

  /** Notes the contents a version takes in that the version before it did not hold. */
  #bringIn(batch: Batch, files: IncomingFile[]): void {
    const held = new Set(Object.values(batch.head.files).map((r) => r.h))
    for (const file of files) if (!held.has(file.ref.h)) batch.incoming.set(file.ref.h, file)
  }

  #addVersion(
    batch: Batch,
    patch: Partial<FolioMeta>,
    files: Record<string, BlobRef>,
    message: string,
    author: string,
    replaced: Array<[string, string]>,
    restored: boolean,
  ): CommitResult {
    const n = batch.meta.head + 1
    const createdAt = now(batch)
    const head: VersionManifest = { versionId: versionId(n), commitMessage: message, createdAt, author, files }
    const { log, logStart, closed } = appendSummary(batch.meta, n, summaryOf(head))
    if (closed) batch.closed.push(closed)
    batch.meta = { ...batch.meta, ...patch, updatedAt: createdAt, head: n, log, logStart }
    batch.head = head
    batch.versions.push(head)
    batch.tidy.push({ n, head, compactions: replaced, restored })
    return { meta: batch.meta, head, changed: true }
  }

  /**
   * Makes the batch durable, its metadata last (the commit point): until that write, none of its
   * versions exists; after it, all of them with all their files.
   */
  async #commit(id: string, batch: Batch): Promise<void> {
    if (batch.versions.length) {
      const held = await this.#o.contents.hold(id, [...batch.incoming.values()])
      if (held.added) batch.meta = { ...batch.meta, storageBytes: batch.meta.storageBytes + held.added }
      // Not waited for: the metadata write below, after it in the journal, makes it durable.
      await this.#o.history.appendAll(id, batch.before.head + 1, batch.versions, { durableWithNext: true })
      for (const chunk of batch.closed) await this.#o.log.close(id, chunk)
    }
    await writeJson(this.#o.storage, keys.meta(id), batch.meta)
    this.#o.committed(batch.meta)
    if (batch.tidy.length) this.#o.packer.tidyLater(id, batch.tidy)
  }
}

function sameRef(a: BlobRef | undefined, b: BlobRef): boolean {
  return a !== undefined && a.h === b.h && a.m === b.m
}

/** [replaced hash, new hash] for each file whose new content this request's blob store created. */
function compactions(previous: Record<string, BlobRef>, files: IncomingFile[], created: Set<string>): Array<[string, string]> {
  const out: Array<[string, string]> = []
  for (const file of files) {
    const was = previous[file.path]
    if (was && was.h !== file.ref.h && created.has(file.ref.h)) out.push([was.h, file.ref.h])
  }
  return out
}

/** A timestamp for the next change of the batch: never before the one of the change before it. */
function now(batch: Batch): string {
  const at = new Date().toISOString()
  return at > batch.meta.updatedAt ? at : batch.meta.updatedAt
}
