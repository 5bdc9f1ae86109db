import type { IncomingMessage, ServerResponse } from 'node:http'
import { LRUCache } from 'lru-cache'
import type { Access } from '../api/contract.js'
import type { FolioStore } from '../store/index.js'
import { type Auth, DENIED } from './auth.js'

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
  access: Access
  /** The folio it shows: changes to that folio drop the entry. */
  folioId: string
  /** Set when only callers of this workspace may see it. */
  workspaceId?: string
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
  readonly #auth: Auth

  constructor(store: FolioStore, auth: Auth) {
    this.#auth = auth
    store.folios.onChange((id) => this.invalidate(id))
    store.engagement.onChange((id) => this.invalidate(id))
  }

  /** Keeps an answer for `url`. Call only with bytes that are current at this very moment. */
  put(url: string, entry: Omit<HotEntry, 'body' | 'headers'> & { body: string | Buffer; contentType: string; headers?: Record<string, string> }): void {
    const body = typeof entry.body === 'string' ? Buffer.from(entry.body) : entry.body
    if (body.length > 1024 * 1024) return
    const headers = ['content-type', entry.contentType, 'content-length', String(body.length)]
    for (const [name, value] of Object.entries(entry.headers ?? {})) headers.push(name, value)
    this.#entries.set(url, { body, headers, access: entry.access, folioId: entry.folioId, workspaceId: entry.workspaceId })
    let urls = this.#byFolio.get(entry.folioId)
    if (!urls) this.#byFolio.set(entry.folioId, (urls = new Set()))
    urls.add(url)
  }

  invalidate(folioId: string): void {
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
    const principal = this.#auth.resolve(req.headers.authorization, entry.access)
    if (principal === DENIED) return false // the router answers the 401
    if (entry.workspaceId && principal?.workspaceId !== entry.workspaceId) return false
    res.writeHead(200, entry.headers)
    res.end(req.method === 'HEAD' ? undefined : entry.body)
    return true
  }
}
