import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { FolioMeta } from '../../domain/model.js'
import { mapLimit } from '../engine/map-limit.js'
import { prepend, toStream } from '../engine/text-stream.js'

/** A workspace's list as it is sent: the JSON bytes and their strong validator. */
export interface FinishedList {
  body: Buffer<ArrayBuffer>
  /** A strong ETag: a hash of exactly these bytes. */
  etag: string
}

/**
 * Lists up to this size are kept whole, one per workspace. A bigger one (10,000 small folios
 * make 7 MB) is never held whole: it is streamed page by page as it is built, on every GET.
 */
export const LIST_CACHE_ENTRY_BYTES = 4 * 1024 * 1024
const LIST_CACHE_BYTES = 16 * 1024 * 1024
/** Items made at a time: a cold list of 10,000 folios must not put 30,000 reads in flight at once. */
const PAGE = 256

export interface ListSource {
  /** The workspace's folios, most recently updated first. */
  metas(workspaceId: string): Promise<FolioMeta[]>
  /** One folio's list item as JSON (cached per folio by the caller). */
  item(meta: FolioMeta): Promise<string>
  /** The workspace of a folio whose metadata is in memory; never touches storage. */
  workspaceOf(folioId: string): string | undefined
}

/**
 * GET /api/files served like a file: the finished body of each workspace's list and its ETag,
 * kept until any folio of the workspace changes (metadata, versions, comments, reactions,
 * analytics, a delete). A change only drops the body: the next GET rebuilds it, from list
 * items that are themselves cached per folio, so a burst of beacons costs one rebuild per
 * list actually read, not one per beacon. Concurrent GETs of a dropped list share one build.
 */
export class WorkspaceLists {
  readonly #source: ListSource
  readonly #finished = new LRUCache<string, FinishedList>({
    maxSize: LIST_CACHE_BYTES,
    sizeCalculation: (list) => list.body.length + 64,
    maxEntrySize: LIST_CACHE_ENTRY_BYTES,
  })
  /** Bumped on every change in the workspace: a list built across a change is not kept. */
  readonly #generations = new Map<string, number>()
  /** Which workspace each listed folio is in: a deleted folio's metadata is gone by the time we hear of it. */
  readonly #workspaceOf = new Map<string, string>()
  /**
   * The folios of each kept list, in order. Comments, reactions and analytics change no
   * metadata: after them the list is rebuilt from these, without listing the workspace again
   * (a directory read that was most of a rebuild's cost).
   */
  readonly #orders = new Map<string, FolioMeta[]>()
  readonly #building = new Map<string, { generation: number; list: Promise<FinishedList | undefined> }>()
  readonly #listeners = new Set<(workspaceId: string) => void>()

  constructor(source: ListSource) {
    this.#source = source
  }

  /** Called with the workspace whose list just changed (after the cached body was dropped). */
  onChange(listener: (workspaceId: string) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** The workspace's finished list if it is kept; never touches storage. */
  peek(workspaceId: string): FinishedList | undefined {
    return this.#finished.get(workspaceId)
  }

  generation(workspaceId: string): number {
    return this.#generations.get(workspaceId) ?? 0
  }

  /**
   * The workspace's list: finished bytes with an ETag, kept; or past LIST_CACHE_ENTRY_BYTES a
   * stream built as it is read, with no ETag.
   */
  async get(workspaceId: string): Promise<FinishedList | ReadableStream<Uint8Array>> {
    const kept = this.#finished.get(workspaceId)
    if (kept) return kept
    if (!this.#generations.has(workspaceId)) this.#generations.set(workspaceId, 0)
    const generation = this.generation(workspaceId)
    const pending = this.#building.get(workspaceId)
    if (pending?.generation === generation) {
      const shared = await pending.list
      if (shared) return shared
    }
    let settle: (list: FinishedList | undefined) => void = () => {}
    const mine = { generation, list: new Promise<FinishedList | undefined>((resolve) => (settle = resolve)) }
    this.#building.set(workspaceId, mine)
    try {
      const metas = this.#orders.get(workspaceId) ?? (await this.#source.metas(workspaceId))
      const built = await this.#build(workspaceId, metas)
      // A stream can be read once: concurrent callers then build their own.
      const finished = built instanceof ReadableStream ? undefined : built
      settle(finished)
      if (finished && this.generation(workspaceId) === generation) {
        this.#finished.set(workspaceId, finished)
        this.#orders.set(workspaceId, metas)
      }
      return built
    } catch (error) {
      settle(undefined)
      throw error
    } finally {
      if (this.#building.get(workspaceId) === mine) this.#building.delete(workspaceId)
    }
  }

  /**
   * A folio changed: its workspace's list is dropped, to be rebuilt when next read. `engagement`
   * (comments, reactions, analytics) leaves its metadata as it was; `gone` is a delete.
   */
  changed(folioId: string, change: 'folio' | 'engagement' | 'gone'): void {
    const workspaceId = this.#source.workspaceOf(folioId) ?? this.#workspaceOf.get(folioId)
    if (change === 'gone') this.#workspaceOf.delete(folioId)
    else if (workspaceId !== undefined) this.#workspaceOf.set(folioId, workspaceId)
    // Not known: it is in no list built so far, but dropping every list costs little and is safe.
    const affected = workspaceId !== undefined ? [workspaceId] : [...this.#generations.keys()]
    for (const id of affected) {
      this.#generations.set(id, this.generation(id) + 1)
      this.#finished.delete(id)
      if (change !== 'engagement') this.#orders.delete(id)
      for (const listener of this.#listeners) listener(id)
    }
  }

  /** Drops every kept list (messages from other instances may have been missed); each workspace's listeners hear of it. */
  reset(): void {
    this.#finished.clear()
    this.#orders.clear()
    for (const id of this.#generations.keys()) {
      this.#generations.set(id, this.generation(id) + 1)
      for (const listener of this.#listeners) listener(id)
    }
  }

  async #build(workspaceId: string, metas: FolioMeta[]): Promise<FinishedList | ReadableStream<Uint8Array>> {
    for (const meta of metas) this.#workspaceOf.set(meta.id, workspaceId)
    const pages = this.#pages(metas)
    let json = ''
    for (;;) {
      const { value, done } = await pages.next()
      if (done) break
      json += value
      if (json.length > LIST_CACHE_ENTRY_BYTES) return toStream(prepend(json, pages))
    }
    const body = Buffer.from(json)
    return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` }
  }

  async *#pages(metas: FolioMeta[]): AsyncGenerator<string> {
    if (metas.length === 0) yield '['
    for (let start = 0; start < metas.length; start += PAGE) {
      const items = await mapLimit(metas.slice(start, start + PAGE), 32, (meta) => this.#source.item(meta))
      yield (start === 0 ? '[' : ',') + items.join(',')
    }
    yield ']'
  }
}
