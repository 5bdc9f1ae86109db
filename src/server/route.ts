import type { H3, H3Event, HTTPResponse } from 'h3'
import { FastResponse } from 'srvx'
import type { z } from 'zod'
import type { BodyOf, Contract, ParamsOf, QueryOf, RateLimitBucket, ResponseInputOf } from '../api/contract.js'
import { ERRORS } from '../api/errors.js'
import { rateLimitHeaders, type RateLimitState, tooManyRequests } from './limits/rate-limit.js'
import { nodeRequest } from './http/remote.js'
import type { Principal } from './auth/auth.js'
import type { ServerContext } from './context.js'
import { type ApiError, fail } from './http/errors.js'
import { readJsonObject } from './http/body.js'
import { compress, MIN_COMPRESSED_BYTES, preferredEncoding } from './http/content-encoding.js'

/** What mounting a route takes from the server's context: auth, rate limits, plan limits, body limits. */
export type RouteDeps = Pick<ServerContext, 'auth' | 'clientOf' | 'config' | 'limiter' | 'planLimits'>

export interface RouteInput<C extends Contract> {
  event: H3Event
  principal: Principal | undefined
  params: ParamsOf<C>
  query: QueryOf<C>
  body: BodyOf<C>
}

type MaybePromise<T> = T | Promise<T>

/**
 * What a handler may answer. With a JSON schema: a value of it (as sent: the schema's input), a
 * Response it built itself (a stream of that JSON), or JSON text made before (jsonBytes: a cached
 * folio or list; bytes tsc cannot see into, so the tests' helpers check them against the schema).
 * Without one (pages, files, event streams, redirects, the OpenAPI document): a Response, h3's
 * own (an EventStream), or JSON text made before.
 */
export type RouteAnswer<C extends Contract> = C['response']['schema'] extends z.ZodType
  ? ResponseInputOf<C> | Uint8Array | Response
  : Response | HTTPResponse | Uint8Array

export type RouteHandler<C extends Contract> = (input: RouteInput<C>) => MaybePromise<RouteAnswer<C>>

/** Errors of the spec whose string a schema carries as its message: answered as that error. */
const SPEC_VALIDATION_ERRORS = [
  ERRORS.titleRequired,
  ERRORS.missingCommentParameters,
  ERRORS.invalidReactions,
  ERRORS.promptRequired,
  ERRORS.missingType,
  ERRORS.invalidAssertionFormat,
]

export function validationError(where: 'body' | 'query', error: z.ZodError): ApiError {
  const first = error.issues[0]
  const specError = first && SPEC_VALIDATION_ERRORS.find((e) => e.error === first.message)
  if (specError) return fail(specError)
  const described = error.issues.slice(0, 3).map((issue) => {
    const path = formatPath(issue.path)
    return path ? `${path}: ${issue.message}` : issue.message
  })
  return fail(where === 'body' ? ERRORS.invalidBody : ERRORS.invalidQuery, described.join('; '))
}

/** Counts the request against its client's bucket: 429 past the limit, the X-RateLimit-* headers always. */
export function applyRateLimit(ctx: RouteDeps, event: H3Event, bucket: RateLimitBucket): void | Promise<void> {
  const counted = ctx.limiter.hit(bucket, clientAddress(ctx, event))
  const apply = (state: RateLimitState) => {
    if (!state.allowed) throw tooManyRequests(state)
    setRateLimitHeaders(event, state)
  }
  return counted instanceof Promise ? counted.then(apply) : apply(counted)
}

function setRateLimitHeaders(event: H3Event, state: RateLimitState): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(state))) event.res.headers.set(name, value)
}

/** Who the client is, for rate limits and key-guess budgets (see remote.ts). */
export function clientAddress(ctx: RouteDeps, event: H3Event): string {
  return ctx.clientOf(nodeRequest(event))
}

/** The request's path and query exactly as received: the key of the hot cache. */
export function requestTarget(event: H3Event): string {
  return nodeRequest(event)?.url ?? `${event.url.pathname}${event.url.search}`
}

/** ['files', '../x'] → files["../x"]; ['title'] → title */
function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) =>
      typeof p === 'string' && /^[A-Za-z_$][\w$]*$/.test(p) ? `${i ? '.' : ''}${p}` : `[${JSON.stringify(typeof p === 'symbol' ? String(p) : p)}]`,
    )
    .join('')
}

/** '/api/files/{id}' → '/api/files/:id'; a trailing {path} takes the rest of the URL, slashes included. */
export const toRouterPath = (path: string) => path.replace(/\{path\}$/, '**:path').replace(/\{(\w+)\}/g, ':$1')

/**
 * Mounts one contract: authorises, validates params, query and body with the contract's own
 * schemas, then calls the handler with typed input. Handlers stay thin. Requests without a body
 * stay synchronous up to the handler, so a cached answer costs no promise. The contract alone
 * fixes C (NoInfer): the handler's answer is then checked against it, literals kept (`success: true`).
 */
export function mountRoute<C extends Contract>(app: H3, ctx: RouteDeps, contract: C, handler: NoInfer<RouteHandler<C>>): void {
  // Parsed once: most requests carry no query string, and their query is the defaults.
  const defaultQuery = contract.query?.safeParse({})
  const route = (event: H3Event) => {
    if (contract.onlyIn && ctx.config.mode !== contract.onlyIn.mode) throw fail(contract.onlyIn.error, contract.onlyIn.message)
    const principal = ctx.auth.authorizeOrRefresh(event, contract.access)
    // A key another instance made: known once the storage was read again.
    return principal instanceof Promise ? principal.then((found) => limited(event, found)) : limited(event, principal)
  }
  const limited = (event: H3Event, principal: Principal | undefined) => {
    const counted = contract.rateLimit ? applyRateLimit(ctx, event, contract.rateLimit) : undefined
    // Several instances count in the database: the rest waits for the count.
    return counted ? counted.then(() => admitted(event, principal)) : admitted(event, principal)
  }
  const admitted = (event: H3Event, principal: Principal | undefined) => {
    // Cloud: an authenticated request counts against its workspace's plan (public endpoints keep
    // their per-client limits above).
    if (ctx.planLimits && principal && contract.access !== 'public') {
      const counted = ctx.planLimits.hit(principal)
      const admit = (state: RateLimitState) => {
        setRateLimitHeaders(event, state)
        if (!state.allowed) throw tooManyRequests(state)
        return proceed(event, principal)
      }
      return counted instanceof Promise ? counted.then(admit) : admit(counted)
    }
    return proceed(event, principal)
  }
  const proceed = (event: H3Event, principal: Principal | undefined) => {
    const params = (event.context.params ?? {}) as ParamsOf<C>
    let query = {} as QueryOf<C>
    if (contract.query) {
      const parsed = event.url.search === '' && defaultQuery?.success ? defaultQuery : contract.query.safeParse(Object.fromEntries(event.url.searchParams))
      if (!parsed.success) throw validationError('query', parsed.error)
      query = parsed.data as QueryOf<C>
    }
    if (contract.response.status !== 200) event.res.status = contract.response.status
    if (!contract.body) return answered(event, handler({ event, principal, params, query, body: undefined as BodyOf<C> }))
    return readJsonObject(event, {
      limit: ctx.config.limits.jsonBodyBytes,
      expandedLimit: ctx.config.limits.gzipExpandedBytes,
      tooLarge: ERRORS.folioTooLarge,
      shapeError: contract.bodyShapeError,
    }).then((raw) => {
      const parsed = contract.body!.safeParse(raw)
      if (!parsed.success) throw validationError('body', parsed.error)
      return answered(event, handler({ event, principal, params, query, body: parsed.data as BodyOf<C> }))
    })
  }
  app.on(contract.method, toRouterPath(contract.path), route)
  // HEAD answers like GET without the body (the catch-all would otherwise claim it).
  if (contract.method === 'GET') app.on('HEAD', toRouterPath(contract.path), route)
}

/**
 * A handler's answer as it goes out: a JSON value of 1 KB or more, compressed when the client
 * takes it (a folio, a list, an agent's answer through a tunnel). Smaller values, and answers a
 * handler built itself, go as they are. The hot GETs never get here twice (hot-cache.ts keeps
 * their compressed copies); this compresses what is made once per request anyway.
 */
function answered(event: H3Event, result: unknown): unknown {
  if (result instanceof Promise) return result.then((value) => answered(event, value))
  if (result === null || typeof result !== 'object' || result instanceof Response) return result
  // JSON made before (jsonBytes: a cached folio, a list), or a value to make it of.
  const made = result instanceof Uint8Array
  if (made && event.res.headers.get('content-type') !== JSON_CONTENT_TYPE) return result
  const body = made ? result : Buffer.from(JSON.stringify(result))
  if (body.length < MIN_COMPRESSED_BYTES) return made ? body : result
  // Bytes with their headers on the event: h3 sends them with a Content-Length (a Response
  // would be re-wrapped around its stream, to add the headers set before, and go chunked).
  const headers = event.res.headers
  headers.set('content-type', JSON_CONTENT_TYPE)
  headers.set('vary', 'accept-encoding')
  const encoding = preferredEncoding(event.req.headers.get('accept-encoding'))
  if (!encoding) return body
  return compress(Buffer.from(body.buffer, body.byteOffset, body.byteLength), encoding).then((copy) => {
    headers.set('content-encoding', encoding)
    return copy
  })
}

/**
 * JSON made before (a cached folio, a list), answered as the bytes it is, with `headers`: like a
 * handler's value, compressed when worth it (see answered).
 */
export function jsonBytes(event: H3Event, body: string | Uint8Array, headers: Record<string, string> = {}): Uint8Array {
  for (const [name, value] of Object.entries(headers)) event.res.headers.set(name, value)
  event.res.headers.set('content-type', JSON_CONTENT_TYPE)
  return typeof body === 'string' ? Buffer.from(body) : body
}

/**
 * A JSON text answered as is (cached responses are built once and sent many times). srvx's
 * FastResponse with plain headers goes straight to node:http: no web Headers, no stream.
 */
export function jsonText(
  text: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  // Bytes, not a string: srvx gives bytes a Content-Length, and sends a string chunked.
  return new FastResponse(typeof text === 'string' ? (Buffer.from(text) as Uint8Array<ArrayBuffer>) : text, {
    status: init.status ?? 200,
    headers: init.headers ? { 'content-type': JSON_TYPE, ...init.headers } : JSON_HEADERS,
  })
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'
const JSON_TYPE = JSON_CONTENT_TYPE
const JSON_HEADERS = { 'content-type': JSON_TYPE }
