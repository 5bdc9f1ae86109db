import type { BodyInputOf, Contract, ParamsOf, QueryOf, ResponseOf } from '../api/contract.js'
import { ApiClientError, ServerUnreachableError } from './errors.js'

export interface ClientOptions {
  /** e.g. http://127.0.0.1:3000 */
  server: string
  /** Sent as Authorization: Bearer <key> */
  key?: string
  /** Per request; uploads pass their own. */
  timeoutMs?: number
}

export interface CallInput<C extends Contract> {
  params?: ParamsOf<C>
  query?: Partial<QueryOf<C>>
  body?: BodyInputOf<C>
}

export interface RawInput<C extends Contract> {
  params?: ParamsOf<C>
  /** Raw bytes, a stream, or a FormData. */
  body: BodyInit
  headers?: Record<string, string>
  timeoutMs?: number
}

export interface RequestInput<C extends Contract> {
  params?: ParamsOf<C>
  query?: Partial<QueryOf<C>>
  /** A JSON body, serialised and sent as application/json… */
  json?: BodyInputOf<C>
  /** …or a raw one (bytes, a stream, a FormData, text), sent as the contract's content type. */
  body?: BodyInit
  /** Last, so they may replace the key or the content type. */
  headers?: Record<string, string>
  timeoutMs?: number
  /** Ends the request (and the reading of its body) when aborted; replaces the timeout, so an event stream can stay open. */
  signal?: AbortSignal
}

/**
 * '/api/files/{id}' + {id: 'a b'} → '/api/files/a%20b'; a {path} keeps its slashes. `verbatim`
 * puts the values in as given: for tests whose point is a path escaping would defuse (`..`, `%00`).
 */
export function contractPath(contract: Contract, params: Record<string, string> = {}, options: { verbatim?: boolean } = {}): string {
  return contract.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined) throw new Error(`${contract.operationId} needs the ${name} parameter`)
    if (options.verbatim) return value
    return name === 'path' ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value)
  })
}

/**
 * The one HTTP client: every CLI command, the TUI and tests go through it. Calls are built
 * from the same contracts the server validates with, so a URL, method or body shape cannot drift.
 */
export function createClient(options: ClientOptions) {
  const server = options.server.replace(/\/+$/, '')
  // Bypass-Tunnel-Reminder: through the public localtunnel server (a folio behind `folio tunnel`),
  // the reminder page meant for browsers would answer instead of the API.
  const auth: Record<string, string> = { 'bypass-tunnel-reminder': 'folio', ...(options.key ? { authorization: `Bearer ${options.key}` } : {}) }

  const url = <C extends Contract>(contract: C, params?: ParamsOf<C>, query?: Record<string, unknown>) => {
    const target = new URL(server + contractPath(contract, params as Record<string, string>))
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) target.searchParams.set(name, String(value))
    return target
  }

  /** The answer whatever its status (the caller reads it); only an unreachable server throws. */
  async function request<C extends Contract>(contract: C, input: RequestInput<C> = {}): Promise<Response> {
    const timeoutMs = input.timeoutMs ?? options.timeoutMs ?? 30_000
    const body = input.json === undefined ? input.body : JSON.stringify(input.json)
    // A JSON endpoint's body is JSON, even a malformed one; multipart needs fetch's boundary.
    const declared = input.json !== undefined || contract.body ? 'application/json' : contract.rawBody?.contentType
    const contentType: Record<string, string> = body !== undefined && declared && !declared.startsWith('multipart/') ? { 'content-type': declared } : {}
    const init: RequestInit & { duplex?: 'half' } = { method: contract.method, headers: { ...auth, ...contentType, ...input.headers }, body }
    if (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) init.duplex = 'half'
    try {
      return await fetch(url(contract, input.params, input.query as Record<string, unknown>), {
        ...init,
        signal: input.signal ?? AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      if ((error as Error).name === 'TimeoutError') throw new ServerUnreachableError(server, `no answer within ${Math.round(timeoutMs / 1000)} s`)
      // fetch reports network failures as a TypeError with the socket error as its cause.
      if (error instanceof TypeError && cause) throw new ServerUnreachableError(server, cause.code ?? cause.message ?? error.message)
      throw error
    }
  }

  /** A 2xx answer's JSON; anything else becomes an ApiClientError with the server's {error, message}. */
  async function expectOk<C extends Contract>(response: Response): Promise<ResponseOf<C>> {
    if (response.ok) return (await response.json()) as ResponseOf<C>
    const text = await response.text()
    let body: { error?: string; message?: string } = {}
    try {
      body = JSON.parse(text)
    } catch {
      body = { error: text.slice(0, 200) || response.statusText }
    }
    throw new ApiClientError(response.status, body.error ?? `HTTP ${response.status}`, body.message, response.headers)
  }

  return {
    server,
    url: <C extends Contract>(contract: C, params?: ParamsOf<C>) => url(contract, params).href,

    request,

    /** A JSON call: validated body in, typed answer out; 4xx/5xx throw ApiClientError. */
    async call<C extends Contract>(contract: C, input: CallInput<C> = {}, timeoutMs?: number): Promise<ResponseOf<C>> {
      const { params, query, body } = input
      return expectOk<C>(await request(contract, { params, query, json: body, headers: { accept: 'application/json' }, timeoutMs }))
    },

    /** A call with a raw body (bytes, a stream, multipart); the contract gives its content type. */
    async raw<C extends Contract>(contract: C, input: RawInput<C>): Promise<ResponseOf<C>> {
      return expectOk<C>(await request(contract, input))
    },
  }
}

export type FolioClient = ReturnType<typeof createClient>
