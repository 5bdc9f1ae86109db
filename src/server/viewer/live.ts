import { PAGE_COMMENTS } from '../../api/engagement.js'
import { versionId } from '../../domain/ids.js'
import { compareFilePaths } from '../../domain/file-paths.js'
import type { FolioStore } from '../../store/index.js'
import { analyticsFigures } from '../../domain/analytics-view.js'

export interface LiveEvent {
  event: 'version' | 'comments' | 'reactions' | 'meta' | 'deleted' | 'revoked' | 'closing' | 'view'
  data: object
}

type Subscriber = (event: LiveEvent) => void

/**
 * Turns store changes into events for open share pages (Server-Sent Events). Work is done only
 * for folios somebody is watching. Of the analytics, only a view starting or ending is sent, as
 * `view`, and only to the owner's streams (sharing-routes.ts): the author's nudge. A folio's events go out
 * in the order of the changes (a version before the comments re-anchored to it).
 */
export class LiveUpdates {
  readonly #store: FolioStore
  readonly #subscribers = new Map<string, Set<Subscriber>>()
  readonly #queues = new Map<string, Promise<void>>()
  /** Per watched folio: the newest start or end of a view already sent (its time). */
  readonly #viewsSent = new Map<string, string>()

  constructor(store: FolioStore, log: (message: string, error?: unknown) => void) {
    this.#store = store
    const send = (id: string, make: () => Promise<LiveEvent[]>) => {
      if (!this.#subscribers.has(id)) return
      const deliver = () =>
        make().then(
          (events) => {
            for (const subscriber of this.#subscribers.get(id) ?? []) for (const e of events) subscriber(e)
          },
          (error) => log(`Live update for ${id} failed`, error),
        )
      const queued = (this.#queues.get(id) ?? Promise.resolve()).then(deliver)
      this.#queues.set(id, queued)
      void queued.then(() => {
        if (this.#queues.get(id) === queued) this.#queues.delete(id)
      })
    }
    store.folios.onChange((id, change) => {
      if (change === 'deleted') send(id, async () => [{ event: 'deleted', data: {} }])
      // The comments follow once re-anchored to the new version (a new version only: an upload
      // changes no pin): the engagement change below sends them.
      else if (change === 'versions') send(id, async () => [await this.#version(id)])
      else send(id, async () => [await this.#meta(id)])
    })
    store.engagement.onChange((id, kind) => {
      if (kind === 'comments') send(id, async () => [await this.#comments(id)])
      if (kind === 'reactions') send(id, async () => [await this.#reactions(id)])
      if (kind === 'analytics') send(id, async () => await this.#views(id))
    })
    // Several instances: changes made elsewhere may have been missed (store/change-feed.ts), so
    // every open page gets the folio's whole state again.
    store.changes?.onReset(() => {
      for (const id of this.#subscribers.keys()) {
        send(id, async () => {
          const meta = await this.#meta(id)
          return meta.event === 'deleted' ? [meta] : [meta, await this.#version(id), await this.#comments(id), await this.#reactions(id)]
        })
      }
    })
  }

  async #reactions(id: string): Promise<LiveEvent> {
    return { event: 'reactions', data: { reactions: await this.#store.engagement.reactions(id) } }
  }

  /** Starts and ends of views since the last sent (since the folio was first watched). */
  async #views(id: string): Promise<LiveEvent[]> {
    const doc = await this.#store.engagement.analytics(id)
    const since = this.#viewsSent.get(id) ?? ''
    const fresh = (analyticsFigures(doc).recentViews ?? []).filter((v) => v.at > since)
    if (fresh.length) this.#viewsSent.set(id, fresh[fresh.length - 1]!.at)
    return fresh.map((view) => ({ event: 'view', data: view }))
  }

  subscribe(folioId: string, subscriber: Subscriber): () => void {
    let set = this.#subscribers.get(folioId)
    if (!set) {
      this.#subscribers.set(folioId, (set = new Set()))
      if (!this.#viewsSent.has(folioId)) this.#viewsSent.set(folioId, new Date().toISOString())
    }
    set.add(subscriber)
    return () => {
      set.delete(subscriber)
      if (set.size === 0 && this.#subscribers.get(folioId) === set) {
        this.#subscribers.delete(folioId)
        this.#viewsSent.delete(folioId)
      }
    }
  }

  /**
   * The server is stopping: every open stream is told to end now. An event stream is a request
   * that never finishes by itself, so a graceful shutdown would otherwise wait out its whole
   * grace period for open share pages; they reconnect once the server is back.
   */
  closeAll(): void {
    for (const set of [...this.#subscribers.values()]) for (const subscriber of [...set]) subscriber({ event: 'closing', data: {} })
  }

  /** Number of open streams (for status screens). */
  get watchers(): number {
    let n = 0
    for (const set of this.#subscribers.values()) n += set.size
    return n
  }

  async #version(id: string): Promise<LiveEvent> {
    const meta = await this.#store.folios.get(id)
    const head = meta ? await this.#store.folios.manifest(id, meta.head) : undefined
    return {
      event: 'version',
      data: { latestVersionId: meta ? versionId(meta.head) : undefined, activeFileList: Object.keys(head?.files ?? {}).sort(compareFilePaths) },
    }
  }

  async #comments(id: string): Promise<LiveEvent> {
    const meta = await this.#store.folios.get(id)
    // What GET /public shows: the page replaces its list with this.
    return { event: 'comments', data: { comments: meta ? await this.#store.engagement.openComments(id, versionId(meta.head), PAGE_COMMENTS) : [] } }
  }

  async #meta(id: string): Promise<LiveEvent> {
    const meta = await this.#store.folios.get(id)
    if (!meta) return { event: 'deleted', data: {} }
    const { status, title, allowComments, presentationModeOnly, isPrivate } = meta
    return { event: 'meta', data: { status, title, allowComments, commentModeration: meta.commentModeration ?? 'anyone', presentationModeOnly, isPrivate } }
  }
}
