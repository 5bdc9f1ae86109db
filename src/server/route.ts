import type { H3, H3Event } from 'h3'
import type { z } from 'zod'
import type { BodyOf, Contract, ParamsOf, QueryOf } from '../api/contract.js'
import type { Principal } from './auth.js'
import type { ServerContext } from './context.js'
import { ApiError, badRequest } from './errors.js'
import { readJsonObject } from './body.js'

export interface RouteInput<C extends Contract> {
  event: H3Event
  principal: Principal | undefined
  params: ParamsOf<C>
  query: QueryOf<C>
  body: BodyOf<C>
}

export type RouteHandler<C extends Contract> = (input: RouteInput<C>) => unknown

/** Error strings of the spec that a schema may carry as its message: they become `error` as is. */
const SPEC_VALIDATION_ERRORS = new Set(['Title is required'])

export function validationError(where: 'body' | 'query', error: z.ZodError): ApiError {
  const first = error.issues[0]
  if (first && SPEC_VALIDATION_ERRORS.has(first.message)) return badRequest(first.message)
  const described = error.issues.slice(0, 3).map((issue) => {
    const path = formatPath(issue.path)
    return path ? `${path}: ${issue.message}` : issue.message
  })
  return badRequest(where === 'body' ? 'INVALID_BODY' : 'INVALID_QUERY', described.join('; '))
}

/** ['files', '../x'] → files["../x"]; ['title'] → title */
function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'string' && /^[A-Za-z_$][\w$]*$/.test(p) ? `${i ? '.' : ''}${p}` : `[${JSON.stringify(typeof p === 'symbol' ? String(p) : p)}]`))
    .join('')
}

/** '/api/files/{id}' → '/api/files/:id' */
export const toRouterPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1')

/**
 * Mounts one contract: authorises, validates params, query and body with the contract's own
 * schemas, then calls the handler with typed input. Handlers stay thin.
 */
export function mountRoute<C extends Contract>(app: H3, ctx: ServerContext, contract: C, handler: RouteHandler<C>): void {
  app.on(contract.method, toRouterPath(contract.path), async (event) => {
    const principal = ctx.auth.authorize(event, contract.access)
    const params = (event.context.params ?? {}) as ParamsOf<C>
    let query = {} as QueryOf<C>
    if (contract.query) {
      const parsed = contract.query.safeParse(Object.fromEntries(event.url.searchParams))
      if (!parsed.success) throw validationError('query', parsed.error)
      query = parsed.data as QueryOf<C>
    }
    let body = undefined as BodyOf<C>
    if (contract.body) {
      const raw = await readJsonObject(event, {
        limit: ctx.config.limits.jsonBodyBytes,
        expandedLimit: ctx.config.limits.gzipExpandedBytes,
        tooLargeError: 'FOLIO_TOO_LARGE',
      })
      const parsed = contract.body.safeParse(raw)
      if (!parsed.success) throw validationError('body', parsed.error)
      body = parsed.data as BodyOf<C>
    }
    if (contract.response.status !== 200) event.res.status = contract.response.status
    return handler({ event, principal, params, query, body })
  })
}

/** A JSON text answered as is (cached responses are built once and sent many times). */
export function jsonText(text: string | ReadableStream<Uint8Array>, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(text, {
    status: init.status ?? 200,
    headers: { 'content-type': 'application/json; charset=utf-8', ...init.headers },
  })
}
