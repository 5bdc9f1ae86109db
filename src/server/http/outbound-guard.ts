import { type LookupAddress, promises as dns } from 'node:dns'
import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { pipeline, type Readable } from 'node:stream'
import zlib from 'node:zlib'
import { hostOf, isLocalName, isPublicAddress, NO_PRIVATE_HOSTS, type PrivateHosts, privateHostAllowed } from '../../domain/public-address.js'

/**
 * The one door for requests the server makes on a user's behalf: AI providers (a Cloud
 * workspace's base URL, an Ollama host), web_fetch, chat webhooks. A name or address chosen by a
 * user must not make the server call its own network (the cloud's metadata address, a database
 * on loopback, the LAN), so:
 *
 * - the address is judged where the socket connects: node's `lookup` hook resolves the name and
 *   refuses it when any address it has is not public (domain/public-address.ts), so the checked
 *   address is the one dialled and DNS rebinding between a check and the connection is
 *   impossible; an address literal, which skips the hook, is judged before the request;
 * - redirects are followed here, hop by hop, each hop judged again (and its credentials left
 *   behind when it leaves the origin);
 * - failures say only "not allowed" or "could not be reached": the remote's TLS and socket words
 *   ("self-signed certificate", ECONNREFUSED) stay in `detail`, for the operator's log.
 *
 * What may be private is the caller's decision, made from who chose the address (ai-service.ts
 * for providers; FOLIO_WEBHOOKS_ALLOW_PRIVATE for webhooks; never for web_fetch) plus the
 * operator's FOLIO_ALLOW_PRIVATE_HOSTS. No connection is pooled: a socket opened under one
 * policy is never lent to a request under another.
 */

/** Every address a name has (dns.lookup with all: the resolver node's own sockets use). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>

/** The operator's allowances (ServerConfig.outbound), read once from the environment. */
export interface OutboundSettings {
  /** FOLIO_AI_ALLOW_PRIVATE=1: an AI provider address a caller chose (a workspace's baseURL) may be private. */
  aiAllowPrivate: boolean
  /** FOLIO_ALLOW_PRIVATE_HOSTS: names, addresses and ranges AI providers and webhooks may reach though not public. */
  privateHosts: PrivateHosts
  /** Tests only: a stand-in for DNS. */
  resolve?: Resolve
  /** Tests only: which addresses count as public (a loopback listener standing in for a public host). */
  isPublic?: (address: string) => boolean
  /** Tests only: the certificate authority https destinations are checked against (a local listener's self-signed one). */
  ca?: string
}

export const DEFAULT_OUTBOUND_SETTINGS: OutboundSettings = { aiAllowPrivate: false, privateHosts: NO_PRIVATE_HOSTS }

export interface OutboundPolicy {
  /** Any address may be reached: the operator chose it, or allowed private ones for this kind of request. */
  allowPrivate?: boolean
  privateHosts?: PrivateHosts
  /** Redirects followed, each hop judged again; 0: a redirect is the answer. Default 3. */
  maxRedirects?: number
  /** No byte in or out for this long ends the request. Default 5 minutes (a model may think long). */
  idleTimeoutMs?: number
  resolve?: Resolve
  isPublic?: (address: string) => boolean
  ca?: string
}

/** The policy for a kind of request under the operator's settings. */
export const outboundPolicy = (settings: OutboundSettings, policy: OutboundPolicy): OutboundPolicy => ({
  privateHosts: settings.privateHosts,
  resolve: settings.resolve,
  isPublic: settings.isPublic,
  ca: settings.ca,
  ...policy,
})

/** The destination is not public and the operator did not allow it. The message is safe to show anyone. */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused'
}

/** The destination could not be reached. The message says only that; `detail` is for the operator's log. */
export class OutboundUnreachable extends Error {
  override name = 'OutboundUnreachable'
  constructor(
    host: string,
    readonly detail: string,
  ) {
    super(`${host} could not be reached.`)
  }
}

const refusal = (host: string) =>
  new OutboundRefused(`${host} is not a public address: the server does not connect to private, loopback or reserved networks on a user's behalf.`)

const allows = (policy: OutboundPolicy, host: string, address: string): boolean =>
  Boolean(policy.allowPrivate) || (policy.isPublic ?? isPublicAddress)(address) || privateHostAllowed(policy.privateHosts ?? NO_PRIVATE_HOSTS, host, address)

/**
 * Why a URL cannot be a destination, judged without a network call (when it is saved: an
 * address literal, localhost); undefined: it may be tried (its name is judged again at every
 * connection). Not an http(s) URL is a problem too.
 */
export function destinationProblem(raw: string, policy: OutboundPolicy): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'is not a URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL'
  const host = hostOf(url)
  if (policy.allowPrivate || privateHostAllowed(policy.privateHosts ?? NO_PRIVATE_HOSTS, host)) return undefined
  if (isLocalName(host) || (isIP(host) !== 0 && !allows(policy, host, host))) return 'points into a private network'
  return undefined
}

/** node's lookup hook: every address the name has must be allowed, else the connection is refused. */
function guardedLookup(policy: OutboundPolicy, host: string): LookupFunction {
  const resolve = policy.resolve ?? ((name: string) => dns.lookup(name, { all: true }))
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (all) => {
        const addresses = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all
        if (all.some((a) => !allows(policy, host, a.address))) return callback(refusal(host), '', 0)
        if (!addresses.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0)
        if (options.all) return callback(null, addresses)
        callback(null, addresses[0]!.address, addresses[0]!.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }
}

export type GuardedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

const REDIRECTS = new Set([301, 302, 303, 307, 308])
/** What a request keeps when a redirect leaves its origin: never a credential, whatever its header's name. */
const CROSS_ORIGIN_HEADERS = new Set(['accept', 'accept-language', 'content-type', 'user-agent'])

/**
 * fetch() through the guard: the same Request and Response, redirects followed here (at most
 * policy.maxRedirects, each hop judged; `redirect: 'manual'` returns the first answer).
 */
export function guardedFetch(policy: OutboundPolicy): GuardedFetch {
  return async (input, init = {}) => {
    const request = new Request(input, init)
    const signal = init.signal ?? undefined
    let body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined
    let [url, method, headers] = [new URL(request.url), request.method, new Headers(request.headers)]
    const maxRedirects = init.redirect === 'manual' ? 0 : (policy.maxRedirects ?? 3)
    for (let hop = 0; ; hop++) {
      const response = await once(policy, url, method, headers, body, signal)
      const location = response.headers.get('location')
      if (!REDIRECTS.has(response.status) || location === null || maxRedirects === 0) return response
      await response.body?.cancel()
      if (init.redirect === 'error' || hop >= maxRedirects) throw new OutboundRefused(`${hostOf(url)} redirected more than ${maxRedirects} times.`)
      const next = new URL(location, url)
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new OutboundRefused(`A redirect to ${next.protocol} is not followed.`)
      if (next.origin !== url.origin) for (const name of [...headers.keys()]) if (!CROSS_ORIGIN_HEADERS.has(name)) headers.delete(name)
      // fetch's rules: 303, and 301/302 after a POST, continue as a GET without the body.
      if (response.status === 303 ? method !== 'HEAD' : (response.status === 301 || response.status === 302) && method === 'POST') {
        method = 'GET'
        body = undefined
        for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) headers.delete(name)
      }
      url = next
    }
  }
}

function once(
  policy: OutboundPolicy,
  url: URL,
  method: string,
  headers: Headers,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const host = hostOf(url)
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.reject(new OutboundRefused(`Only http(s) addresses are reached, not ${url.protocol}`))
  // An address literal skips the lookup hook: judged here.
  if (isIP(host) !== 0 && !allows(policy, host, host)) return Promise.reject(refusal(host))
  return new Promise<Response>((resolve, reject) => {
    const outgoing: Record<string, string> = Object.fromEntries(headers)
    if (body) outgoing['content-length'] = String(body.length)
    const client = url.protocol === 'https:' ? https : http
    const tls = url.protocol === 'https:' && policy.ca ? { ca: policy.ca } : {}
    const req = client.request(url, { method, headers: outgoing, agent: false, lookup: guardedLookup(policy, host), signal, ...tls }, (res) => {
      try {
        resolve(responseOf(res, url, method, signal))
      } catch (error) {
        res.destroy()
        reject(new OutboundUnreachable(host, `unusable answer: ${String(error)}`))
      }
    })
    const idleMs = policy.idleTimeoutMs ?? 5 * 60_000
    req.setTimeout(idleMs, () => req.destroy(Object.assign(new Error(`no data for ${idleMs / 1000} s`), { code: 'ETIMEDOUT' })))
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (signal?.aborted) return reject(signal.reason)
      if (error instanceof OutboundRefused) return reject(error)
      reject(new OutboundUnreachable(host, [error.code, error.message].filter(Boolean).join(' ')))
    })
    req.end(body)
  })
}

/** No body by definition (fetch's null-body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304])

function responseOf(res: IncomingMessage, url: URL, method: string, signal: AbortSignal | undefined): Response {
  const status = res.statusCode ?? 0
  const headers = new Headers()
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!)
    } catch {
      // a header value fetch itself would refuse: left out
    }
  }
  let source: Readable = res
  const encoding = headers.get('content-encoding')?.trim().toLowerCase()
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined
  if (decoder) {
    source = decoder
    pipeline(res, decoder, () => undefined)
    headers.delete('content-length')
  }
  const empty = NULL_BODY.has(status) || method === 'HEAD'
  if (empty) res.resume()
  const response = new Response(empty ? null : streamOf(source, signal), { status, statusText: res.statusMessage, headers })
  Object.defineProperty(response, 'url', { value: url.href })
  return response
}

/**
 * The body as a web stream. A body cut short errors the stream as fetch does (TypeError
 * "terminated"), or with the abort's reason when the caller aborted: never the socket's words.
 */
function streamOf(source: Readable, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let settled = false
  return new ReadableStream<Uint8Array>({
    start(controller) {
      source.on('data', (chunk: Buffer) => {
        if (settled) return
        controller.enqueue(new Uint8Array(chunk))
        if ((controller.desiredSize ?? 1) <= 0) source.pause()
      })
      source.once('end', () => {
        if (settled) return
        settled = true
        controller.close()
      })
      source.once('close', () => {
        if (settled) return
        settled = true
        controller.error(signal?.aborted ? signal.reason : new TypeError('terminated'))
      })
      // 'close' follows an error and ends the stream.
      source.on('error', () => undefined)
    },
    pull() {
      source.resume()
    },
    cancel() {
      settled = true
      source.destroy()
    },
  })
}
