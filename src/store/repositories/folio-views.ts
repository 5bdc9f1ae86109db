import { analyticsFigures, analyticsListItem } from '../../domain/analytics-view.js'
import { LRUCache } from 'lru-cache'
import { compareFilePaths } from '../../domain/file-paths.js'
import { versionId } from '../../domain/ids.js'
import type { EngagementRepository } from './engagement-repository.js'
import type { FolioRepository } from './folio-repository.js'
import { toStream } from '../engine/text-stream.js'
import { WorkspaceLists } from './workspace-lists.js'
import type { FileMap, FolioMeta, VersionManifest } from '../../domain/model.js'

/** Which versions of a folio carry their file contents in a response. */
export type FilesMode = 'all' | 'latest' | 'none'

/** Above this estimated size a folio is streamed version by version instead of built in memory. */
const STREAM_ABOVE_BYTES = 8 * 1024 * 1024
const RESPONSE_CACHE_BYTES = 64 * 1024 * 1024

/**
 * Assembles the API's shapes (spec: Folio, Version with files as path → content) from the
 * store's pieces, and caches the JSON of whole folios: a GET of an unchanged folio is a
 * memory lookup. Any change to a folio drops its cached JSON.
 */
export class FolioViews {
  readonly #folios: FolioRepository
  readonly #engagement: EngagementRepository
  readonly #json = new LRUCache<string, string>({
    maxSize: RESPONSE_CACHE_BYTES,
    sizeCalculation: (s) => Math.max(1, s.length),
    maxEntrySize: STREAM_ABOVE_BYTES,
  })
  /** List items as JSON, per folio (dropped on any change of it). */
  readonly #items = new LRUCache<string, string>({ maxSize: 32 * 1024 * 1024, sizeCalculation: (s) => Math.max(1, s.length), maxEntrySize: 4 * 1024 * 1024 })
  /** Bumped on every change, so a response built during a write is never cached as current. */
  readonly #generation = new Map<string, number>()
  /** Bumped by forgetAll: what was built before is not kept. */
  #epoch = 0
  /** Each workspace's finished list (GET /api/files, workspace-lists.ts), dropped when any of its folios changes. */
  readonly lists: WorkspaceLists

  constructor(folios: FolioRepository, engagement: EngagementRepository) {
    this.#folios = folios
    this.#engagement = engagement
    this.lists = new WorkspaceLists({
      metas: (workspaceId) => folios.list(workspaceId),
      item: (meta) => this.#listItemJson(meta),
      workspaceOf: (id) => folios.peek(id)?.workspaceId,
    })
    folios.onChange((id, change) => this.#invalidate(id, change === 'deleted' ? 'gone' : 'folio'))
    engagement.onChange((id) => this.#invalidate(id, 'engagement'))
  }

  #generationOf(id: string): string {
    return `${this.#epoch}:${this.#generation.get(id) ?? 0}`
  }

  #invalidate(id: string, change: 'folio' | 'engagement' | 'gone'): void {
    this.#generation.set(id, (this.#generation.get(id) ?? 0) + 1)
    for (const mode of ['all', 'latest', 'none']) this.#json.delete(`${id}:${mode}`)
    this.#items.delete(id)
    this.lists.changed(id, change)
  }

  /**
   * Drops every folio's JSON and every list (messages from other instances may have been
   * missed: change-feed.ts); the lists' listeners hear of each workspace.
   */
  forgetAll(): void {
    this.#epoch++
    this.#json.clear()
    this.#items.clear()
    this.lists.reset()
  }

  /** The folio's JSON if it is cached; never touches storage. */
  peek(id: string, mode: FilesMode = 'all'): string | undefined {
    return this.#json.get(`${id}:${mode}`)
  }

  /** The whole folio as JSON text (or a stream of it when large); undefined when unknown. */
  async full(id: string, mode: FilesMode = 'all'): Promise<string | ReadableStream<Uint8Array> | undefined> {
    const cacheKey = `${id}:${mode}`
    const cached = this.#json.get(cacheKey)
    if (cached) return cached
    const generation = this.#generationOf(id)
    const meta = await this.#folios.get(id)
    if (!meta) return undefined
    const history = await this.#folios.history(meta)
    const carriesFiles = (m: VersionManifest) => mode === 'all' || (mode === 'latest' && m.versionId === versionId(meta.head))
    let estimate = 0
    for (const m of history) if (carriesFiles(m)) for (const ref of Object.values(m.files)) estimate += ref.m ? ref.s * 1.4 : ref.s
    const chunks = this.#chunks(meta, history, carriesFiles)
    if (estimate > STREAM_ABOVE_BYTES) return toStream(chunks)
    let json = ''
    for await (const chunk of chunks) json += chunk
    if (this.#generationOf(id) === generation) this.#json.set(cacheKey, json)
    return json
  }

  async *#chunks(meta: FolioMeta, history: VersionManifest[], carriesFiles: (m: VersionManifest) => boolean): AsyncGenerator<string> {
    const { comments, reactions, analytics } = await this.#engagementOf(meta.id)
    const head = JSON.stringify(metaFields(meta))
    yield `${head.slice(0, -1)},"versions":[`
    for (let i = 0; i < history.length; i++) {
      const m = history[i]!
      const files = carriesFiles(m) ? await this.#folios.readFiles(meta.id, m) : undefined
      yield (i ? ',' : '') + JSON.stringify(versionObject(m, files))
    }
    const tail = JSON.stringify({ comments, reactions, analytics, ...storageFields(meta) })
    yield `],${tail.slice(1)}`
  }

  async #engagementOf(id: string) {
    const [comments, reactions, analytics] = await Promise.all([this.#engagement.comments(id), this.#engagement.reactions(id), this.#engagement.analytics(id)])
    return { comments, reactions, analytics: analyticsFigures(analytics) }
  }

  /**
   * The folio as write responses return it: only the latest version, with its files unless
   * `mode` is none (then its fileList).
   */
  async withHead(meta: FolioMeta, head: VersionManifest, mode: FilesMode = 'latest') {
    const [files, engagement] = await Promise.all([mode === 'none' ? undefined : this.#folios.readFiles(meta.id, head), this.#engagementOf(meta.id)])
    return { ...metaFields(meta), versions: [versionObject(head, files)], ...engagement, ...storageFields(meta) }
  }

  /**
   * A list item as JSON: metadata, every version's summary (from the version log: no history
   * read), comments, engagement and storage size; no file contents. Kept until the folio changes.
   */
  async #listItemJson(meta: FolioMeta): Promise<string> {
    const cached = this.#items.get(meta.id)
    if (cached !== undefined) return cached
    const generation = this.#generationOf(meta.id)
    const [versions, comments, reactions, analytics] = await Promise.all([
      this.#folios.versionSummaries(meta),
      this.#engagement.comments(meta.id),
      this.#engagement.reactions(meta.id),
      this.#engagement.analytics(meta.id),
    ])
    // A list carries the short analytics (per slide, per link and per day are GET /api/files/{id}'s).
    const json = JSON.stringify({ ...metaFields(meta), versions, comments, reactions, analytics: analyticsListItem(analytics), ...storageFields(meta) })
    if (this.#generationOf(meta.id) === generation) this.#items.set(meta.id, json)
    return json
  }
}

function metaFields(meta: FolioMeta) {
  return {
    id: meta.id,
    title: meta.title,
    description: meta.description,
    createdAt: meta.createdAt,
    updatedAt: meta.updatedAt,
    isPrivate: meta.isPrivate,
    accessKey: meta.accessKey,
    allowComments: meta.allowComments,
    presentationModeOnly: meta.presentationModeOnly,
    commentModeration: meta.commentModeration ?? 'anyone',
    notifyViews: meta.notifyViews ?? false,
    status: meta.status,
    projectMode: meta.projectMode,
    collaborators: meta.collaborators,
    designPreferences: meta.designPreferences,
    referenceFiles: meta.referenceFiles,
    publicTunnelEnabled: meta.publicTunnelEnabled,
    latestVersionId: versionId(meta.head),
    versionCount: meta.head,
  }
}

function storageFields(meta: FolioMeta) {
  return { _storageBytes: meta.storageBytes }
}

function versionObject(m: VersionManifest, files: FileMap | undefined) {
  const base = { versionId: m.versionId, commitMessage: m.commitMessage, createdAt: m.createdAt, author: m.author }
  if (!files) return { ...base, fileList: Object.keys(m.files).sort(compareFilePaths) }
  return { ...base, files }
}
