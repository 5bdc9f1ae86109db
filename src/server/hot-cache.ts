import type { IncomingMessage, ServerResponse } from 'node:http'
import { LRUCache } from 'lru-cache'
import type { Access, RateLimitBucket } from '../api/contract.js'
import type { FolioStore } from '../store/index.js'
import { type Auth, DENIED } from './auth.js'
import type { RateLimiter } from './rate-limit.js'
import { noneMatchHits } from './conditional.js'

/**
 * Finished answers to hot GETs, served in front of the router.
 *
 * An unchanged folio's JSON is built once and kept (FolioViews); sending it through h3 still
 * costs ~5 µs of framework per request, a third of what node:http itself spends. Routes that
 * answered from memory leave the exact bytes and headers here, keyed by the request URL, and
 * the next identical GET is written straight to the socket, after the same credential check
 * the router makes. Any change to a folio drops its entries (the store's change events), so
 * nothing stale is ever served; anything unusual falls through to the router.
 */
export interface HotEntry {
  body: Buffer
  /** Flat [name, value, …] list, as node's writeHead takes it. */
  headers: string[]
  /** The same without the body's own headers, for a 304. */
  notModifiedHeaders: string[]
  access: Access
  /** The folio it shows: changes to that folio drop the entry. */
  folioId: string
  /** Set when only callers of this workspace may see it. */
  workspaceId?: string
  /** Public endpoints count against the client's rate limit here too. */
  rateLimit?: RateLimitBucket
  /** A strong validator: a matching If-None-Match gets a 304. */
  etag?: string
}

const MAX_BYTES = 32 * 1024 * 1024

export class HotCache {
  readonly #entries = new LRUCache<string, HotEntry>({
    maxSize: MAX_BYTES,
    sizeCalculation: (e) => e.body.length + 256,
    maxEntrySize: 1024 * 1024,
    dispose: (entry, url) => this.#unlink(entry.folioId, url),
  })
  readonly #byFolio = new Map<string, Set<string>>()
  /** Bumped on every change of a folio: an answer built across awaits is kept only if unchanged. */
  readonly #generations = new Map<string, number>()
  readonly #auth: Auth
  readonly #limiter: RateLimiter
  readonly #clientOf: (req: IncomingMessage) => string

  constructor(store: FolioStore, auth: Auth, limiter: RateLimiter, clientOf: (req: IncomingMessage) => string) {
    this.#auth = auth
    this.#limiter = limiter
    this.#clientOf = clientOf
    store.folios.onChange((id) => this.invalidate(id))
    store.engagement.onChange((id) => this.invalidate(id))
  }

  /** Read before building an answer; hand it to put() so a change in between discards the answer. */
  generation(folioId: string): number {
    return this.#generations.get(folioId) ?? 0
  }

  /** Keeps an answer for `url`, if nothing changed the folio since `generation` was read. */
  put(
    url: string,
    entry: Omit<HotEntry, 'body' | 'headers' | 'notModifiedHeaders'> & { body: string | Buffer; contentType: string; headers?: Record<string, string>; generation: number },
  ): void {
    if (entry.generation !== this.generation(entry.folioId)) return
    const body = typeof entry.body === 'string' ? Buffer.from(entry.body) : entry.body
    if (body.length > 1024 * 1024) return
    const notModifiedHeaders: string[] = entry.etag ? ['etag', entry.etag] : []
    for (const [name, value] of Object.entries(entry.headers ?? {})) notModifiedHeaders.push(name, value)
    const headers = ['content-type', entry.contentType, 'content-length', String(body.length), ...notModifiedHeaders]
    this.#entries.set(url, {
      body,
      headers,
      notModifiedHeaders,
      access: entry.access,
      folioId: entry.folioId,
      workspaceId: entry.workspaceId,
      rateLimit: entry.rateLimit,
      etag: entry.etag,
    })
    let urls = this.#byFolio.get(entry.folioId)
    if (!urls) this.#byFolio.set(entry.folioId, (urls = new Set()))
    urls.add(url)
  }

  invalidate(folioId: string): void {
    this.#generations.set(folioId, this.generation(folioId) + 1)
    const urls = this.#byFolio.get(folioId)
    if (!urls) return
    this.#byFolio.delete(folioId)
    for (const url of urls) this.#entries.delete(url)
  }

  #unlink(folioId: string, url: string): void {
    this.#byFolio.get(folioId)?.delete(url)
  }

  /** Answers the request if it can; false hands it to the router untouched. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.url) return false
    const entry = this.#entries.get(req.url)
    if (!entry) return false
    const principal = this.#auth.resolveRequest(req, entry.access)
    if (principal === DENIED) return false // the router answers the 401
    if (entry.workspaceId && principal?.workspaceId !== entry.workspaceId) return false
    const notModified = noneMatchHits(req.headers['if-none-match'], entry.etag)
    let headers = notModified ? entry.notModifiedHeaders : entry.headers
    if (entry.rateLimit) {
      const state = this.#limiter.hit(entry.rateLimit, this.#clientOf(req))
      if (!state.allowed) return false // the router answers the 429
      headers = headers.concat('x-ratelimit-limit', String(state.limit), 'x-ratelimit-remaining', String(state.remaining), 'x-ratelimit-reset', String(state.reset))
    }
    if (notModified) {
      res.writeHead(304, headers)
      res.end()
      return true
    }
    res.writeHead(200, headers)
    res.end(req.method === 'HEAD' ? undefined : entry.body)
    return true
  }
}
