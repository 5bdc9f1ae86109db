import type { IncomingMessage, ServerResponse } from 'node:http'
import { LRUCache } from 'lru-cache'
import type { Access, RateLimitBucket } from '../api/contract.js'
import { type FolioStore, LIST_CACHE_ENTRY_BYTES } from '../store/index.js'
import { type Auth, DENIED, type Principal } from './auth/auth.js'
import type { PlanLimits } from './limits/plan-limits.js'
import type { RateLimiter, RateLimitState } from './limits/rate-limit.js'
import { noneMatchHits } from './http/conditional.js'
import { compress, type ContentEncoding, isCompressible, preferredEncoding } from './http/content-encoding.js'

/**
 * Finished answers to hot GETs, served in front of the router.
 *
 * An unchanged folio's JSON is built once and kept (FolioViews); sending it through h3 still
 * costs ~5 µs of framework per request, a third of what node:http itself spends. Routes that
 * answered from memory leave the exact bytes and headers here, keyed by the request URL, and
 * the next identical GET is written straight to the socket, after the same credential check
 * the router makes. Any change to a folio drops its entries (the store's change events), so
 * nothing stale is ever served; anything unusual falls through to the router.
 *
 * A workspace's list (GET /api/files) is one URL for every workspace: it is kept under the
 * caller's workspace and the URL, found only after the credential check says whose workspace
 * the caller is in, and dropped when the store says that workspace's list changed.
 */
export interface HotEntry {
  body: Buffer
  /** Flat [name, value, …] list, as node's writeHead takes it. */
  headers: string[]
  /** The same without the body's own headers, for a 304. */
  notModifiedHeaders: string[]
  access: Access
  /** What drops it: a folio's id (any change of that folio), or listScope(workspace). */
  scope: string
  /** Set when only callers of this workspace may see it. */
  workspaceId?: string
  /** Public endpoints count against the client's rate limit here too. */
  rateLimit?: RateLimitBucket
  /** A strong validator: a matching If-None-Match gets a 304. */
  etag?: string
  /** Worth compressing (text of 1 KB or more): then its copies per encoding, made once, in the background. */
  compressible: boolean
  encoded: Partial<Record<ContentEncoding, Answer | 'compressing' | 'incompressible'>>
  /** Built once: nothing is allocated per request on the common paths. */
  plain: Answer
  notModified: Answer
}

const MAX_BYTES = 32 * 1024 * 1024

/** The workspace plan's X-RateLimit-* (Cloud), as writeHead takes them. */
const planHeaders = (state: RateLimitState) => [
  'x-ratelimit-limit',
  String(state.limit),
  'x-ratelimit-remaining',
  String(state.remaining),
  'x-ratelimit-reset',
  String(state.reset),
]
/** A folio's answer is a copy of what FolioViews keeps: at most 1 MB of it is worth a second copy. */
const MAX_FOLIO_ENTRY_BYTES = 1024 * 1024

/** The scope of a workspace's list entries (a folio id never holds a space). */
const listScope = (workspaceId: string) => `list ${workspaceId}`
/** Where a workspace's answer to `url` is kept (a request target never holds a newline). */
const workspaceKey = (workspaceId: string, url: string) => `${workspaceId}\n${url}`

type NewEntry = Omit<HotEntry, 'body' | 'headers' | 'notModifiedHeaders' | 'scope' | 'compressible' | 'encoded' | 'plain' | 'notModified'> & {
  body: string | Buffer
  contentType: string
  headers?: Record<string, string>
  generation: number
}

export class HotCache {
  readonly #entries = new LRUCache<string, HotEntry>({
    maxSize: MAX_BYTES,
    // A compressible entry's copies are counted before they are made: together under its own size.
    sizeCalculation: (e) => e.body.length * (e.compressible ? 2 : 1) + 256,
    maxEntrySize: LIST_CACHE_ENTRY_BYTES + 256,
    dispose: (entry, key) => this.#unlink(entry.scope, key),
  })
  readonly #byScope = new Map<string, Set<string>>()
  /** Bumped on every change of a scope: an answer built across awaits is kept only if unchanged. */
  readonly #generations = new Map<string, number>()
  /** Bumped by clear(): every scope's generation moves with it. */
  #cleared = 0
  /** URLs whose answer depends on the caller's workspace, with the access they need. */
  readonly #perWorkspace = new LRUCache<string, Access>({ max: 1024 })
  readonly #auth: Auth
  readonly #limiter: RateLimiter
  readonly #clientOf: (req: IncomingMessage) => string
  readonly #plan: PlanLimits | undefined

  constructor(store: FolioStore, auth: Auth, limiter: RateLimiter, clientOf: (req: IncomingMessage) => string, plan?: PlanLimits) {
    this.#plan = plan
    this.#auth = auth
    this.#limiter = limiter
    this.#clientOf = clientOf
    store.folios.onChange((id) => this.invalidate(id))
    store.engagement.onChange((id) => this.invalidate(id))
    store.views.lists.onChange((workspaceId) => this.invalidate(listScope(workspaceId)))
    // Several instances: changes made elsewhere may have been missed (store/change-feed.ts).
    store.changes?.onReset(() => this.clear())
  }

  /** Read before building an answer; hand it to put() so a change in between discards the answer. */
  generation(folioId: string): number {
    // Both only grow: the sum changes whenever either does.
    return this.#cleared + (this.#generations.get(folioId) ?? 0)
  }

  /** The same for a workspace's list: read before the list is built, hand it to putList(). */
  listGeneration(workspaceId: string): number {
    return this.generation(listScope(workspaceId))
  }

  /** Keeps an answer for `url`, if nothing changed the folio since `generation` was read. */
  put(url: string, entry: NewEntry & { folioId: string }): void {
    const { folioId, ...rest } = entry
    this.#keep(url, { ...rest, scope: folioId }, MAX_FOLIO_ENTRY_BYTES)
  }

  /**
   * Keeps a workspace's answer to `url` (its list), for callers of that workspace only, if the
   * list did not change since `generation` was read. The body is the store's own buffer, not a copy.
   */
  putList(url: string, entry: NewEntry & { workspaceId: string; body: Buffer }): void {
    this.#perWorkspace.set(url, entry.access)
    this.#keep(workspaceKey(entry.workspaceId, url), { ...entry, scope: listScope(entry.workspaceId) }, LIST_CACHE_ENTRY_BYTES)
  }

  #keep(key: string, entry: NewEntry & { scope: string }, maxBytes: number): void {
    if (entry.generation !== this.generation(entry.scope)) return
    const body = typeof entry.body === 'string' ? Buffer.from(entry.body) : entry.body
    if (body.length > maxBytes) return
    // The same answer again (the router answered a client whose encoding had no copy yet): the
    // entry stays, with the copies it has and is making.
    const existing = this.#entries.get(key)
    if (existing && existing.scope === entry.scope && (entry.etag ? existing.etag === entry.etag : existing.body.equals(body))) return
    const compressible = isCompressible(entry.contentType, body.length)
    const notModifiedHeaders: string[] = entry.etag ? ['etag', entry.etag] : []
    for (const [name, value] of Object.entries(entry.headers ?? {})) if (name !== 'vary') notModifiedHeaders.push(name, value)
    if (compressible) notModifiedHeaders.push('vary', 'accept-encoding')
    const headers = ['content-type', entry.contentType, 'content-length', String(body.length), ...notModifiedHeaders]
    const kept: HotEntry = {
      body,
      headers,
      notModifiedHeaders,
      access: entry.access,
      scope: entry.scope,
      workspaceId: entry.workspaceId,
      rateLimit: entry.rateLimit,
      etag: entry.etag,
      compressible,
      encoded: {},
      plain: { status: 200, headers, body },
      notModified: { status: 304, headers: notModifiedHeaders, body: undefined },
    }
    this.#entries.set(key, kept)
    // Browsers take brotli: its copy is made now, so the next viewer's answer is ready.
    if (compressible) this.#compress(kept, entry.contentType, 'br')
    let keys = this.#byScope.get(entry.scope)
    if (!keys) this.#byScope.set(entry.scope, (keys = new Set()))
    keys.add(key)
  }

  /** Drops everything kept for a folio (or, with listScope, a workspace's list). */
  invalidate(scope: string): void {
    this.#generations.set(scope, (this.#generations.get(scope) ?? 0) + 1)
    const keys = this.#byScope.get(scope)
    if (!keys) return
    this.#byScope.delete(scope)
    for (const key of keys) this.#entries.delete(key)
  }

  /** Drops everything kept; an answer built before is not kept either. */
  clear(): void {
    this.#cleared++
    this.#entries.clear()
    this.#byScope.clear()
  }

  #unlink(scope: string, key: string): void {
    this.#byScope.get(scope)?.delete(key)
  }

  /**
   * Answers the request if it can; false hands it to the router untouched. In Cloud an
   * authenticated answer first counts against the workspace's plan: at once when the shared
   * state is this process's memory, else after its promise, and then, past the limit, `router`
   * answers instead (the 429).
   */
  serve(req: IncomingMessage, res: ServerResponse, router?: (req: IncomingMessage, res: ServerResponse) => unknown): boolean {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.url) return false
    let entry = this.#entries.get(req.url)
    let principal: Principal | undefined
    if (entry) {
      const found = this.#auth.resolveRequest(req, entry.access)
      if (found === DENIED) return false // the router answers the 401
      if (entry.workspaceId && found?.workspaceId !== entry.workspaceId) return false
      principal = found
    } else {
      // An answer that depends on who asks: whose workspace it is decides which one is sent.
      const access = this.#perWorkspace.get(req.url)
      if (access === undefined) return false
      const found = this.#auth.resolveRequest(req, access)
      if (found === DENIED || found === undefined) return false
      entry = this.#entries.get(workspaceKey(found.workspaceId, req.url))
      if (!entry) return false
      principal = found
    }
    // Decided before anything is counted: when the router answers instead, it counts.
    const answer = this.#answerFor(req, entry)
    if (!answer) return false
    if (this.#plan && principal && entry.access !== 'public') {
      const counted = this.#plan.hit(principal)
      if (!(counted instanceof Promise)) return counted.allowed && this.#write(req, res, entry, answer, planHeaders(counted)) // else the router answers the 429
      if (!router) return false
      const kept = entry
      counted.then(
        (state) => (state.allowed ? this.#write(req, res, kept, answer, planHeaders(state)) : router(req, res)),
        () => router(req, res),
      )
      return true
    }
    return this.#write(req, res, entry, answer)
  }

  /**
   * What to send: a 304, the body as is, or its copy in the encoding the client prefers. No copy
   * yet: undefined, and the router answers this one, compressed (once per content there too),
   * while the copy is made for the next. A content that does not shrink goes as is.
   */
  #answerFor(req: IncomingMessage, entry: HotEntry): Answer | undefined {
    if (entry.etag && noneMatchHits(req.headers['if-none-match'], entry.etag)) return entry.notModified
    const encoding = entry.compressible ? preferredEncoding(req.headers['accept-encoding']) : undefined
    if (!encoding) return entry.plain
    const copy = entry.encoded[encoding]
    if (copy === undefined) this.#compress(entry, entry.headers[1]!, encoding)
    if (copy === undefined || copy === 'compressing') return undefined
    return copy === 'incompressible' ? entry.plain : copy
  }

  /** Makes an entry's copy in one encoding, once, off the main thread; until then it goes as it is. */
  #compress(entry: HotEntry, contentType: string, encoding: ContentEncoding): void {
    if (entry.encoded[encoding]) return
    entry.encoded[encoding] = 'compressing'
    compress(entry.body, encoding).then(
      (copy) => {
        if (copy.length >= entry.body.length) {
          entry.encoded[encoding] = 'incompressible'
          return
        }
        entry.encoded[encoding] = {
          status: 200,
          body: copy,
          headers: ['content-type', contentType, 'content-length', String(copy.length), 'content-encoding', encoding, ...entry.notModifiedHeaders],
        }
      },
      () => delete entry.encoded[encoding],
    )
  }

  #write(req: IncomingMessage, res: ServerResponse, entry: HotEntry, answer: Answer, extraHeaders?: string[]): boolean {
    let headers = answer.headers
    // Array literals, not concat(): concat asks every argument whether it is spreadable, which
    // cost the public metadata more than counting the request did.
    if (extraHeaders) headers = [...headers, ...extraHeaders]
    if (entry.rateLimit) {
      // Counted in the database (several instances): the router answers, and counts it once.
      if (!this.#limiter.countsInMemory) return false
      const state = this.#limiter.hit(entry.rateLimit, this.#clientOf(req))
      if (state instanceof Promise || !state.allowed) return false // the router answers the 429
      headers = [
        ...headers,
        'x-ratelimit-limit',
        String(state.limit),
        'x-ratelimit-remaining',
        String(state.remaining),
        'x-ratelimit-reset',
        String(state.reset),
      ]
    }
    res.writeHead(answer.status, headers)
    res.end(req.method === 'HEAD' ? undefined : answer.body)
    return true
  }
}

/** An entry's answer to one request, as writeHead and end take it. */
interface Answer {
  status: 200 | 304
  headers: string[]
  body: Buffer | undefined
}
