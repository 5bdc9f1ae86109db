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

/** '/api/files/{id}' + {id: 'a b'} → '/api/files/a%20b'; a {path} keeps its slashes. */
export function contractPath(contract: Contract, params: Record<string, string> = {}): string {
  return contract.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined) throw new Error(`${contract.operationId} needs the ${name} parameter`)
    return name === 'path' ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value)
  })
}

/**
 * The one HTTP client: every CLI command, the TUI and tests go through it. Calls are built
 * from the same contracts the server validates with, so a URL, method or body shape cannot drift.
 */
export function createClient(options: ClientOptions) {
  const server = options.server.replace(/\/+$/, '')
  const auth: Record<string, string> = options.key ? { authorization: `Bearer ${options.key}` } : {}

  const url = <C extends Contract>(contract: C, params?: ParamsOf<C>, query?: Record<string, unknown>) => {
    const target = new URL(server + contractPath(contract, params as Record<string, string>))
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) target.searchParams.set(name, String(value))
    return target
  }

  async function send(contract: Contract, target: URL, init: RequestInit, timeoutMs = options.timeoutMs ?? 30_000): Promise<Response> {
    let response: Response
    try {
      response = await fetch(target, { ...init, method: contract.method, signal: AbortSignal.timeout(timeoutMs) })
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      if ((error as Error).name === 'TimeoutError') throw new ServerUnreachableError(server, `no answer within ${Math.round(timeoutMs / 1000)} s`)
      // fetch reports network failures as a TypeError with the socket error as its cause.
      if (error instanceof TypeError && cause) throw new ServerUnreachableError(server, cause.code ?? cause.message ?? error.message)
      throw error
    }
    if (!response.ok) {
      const text = await response.text()
      let body: { error?: string; message?: string } = {}
      try {
        body = JSON.parse(text)
      } catch {
        body = { error: text.slice(0, 200) || response.statusText }
      }
      throw new ApiClientError(response.status, body.error ?? `HTTP ${response.status}`, body.message, response.headers)
    }
    return response
  }

  return {
    server,
    url: <C extends Contract>(contract: C, params?: ParamsOf<C>) => url(contract, params).href,

    /** A JSON call: validated body in, typed answer out; 4xx/5xx throw ApiClientError. */
    async call<C extends Contract>(contract: C, input: CallInput<C> = {}, timeoutMs?: number): Promise<ResponseOf<C>> {
      const headers: Record<string, string> = { ...auth, accept: 'application/json' }
      if (input.body !== undefined) headers['content-type'] = 'application/json'
      const response = await send(contract, url(contract, input.params, input.query as Record<string, unknown>), {
        headers,
        body: input.body === undefined ? undefined : JSON.stringify(input.body),
      }, timeoutMs)
      return (await response.json()) as ResponseOf<C>
    },

    /** A call with a raw body (bytes, a stream, multipart); the contract gives its content type. */
    async raw<C extends Contract>(contract: C, input: RawInput<C>): Promise<ResponseOf<C>> {
      const streaming = typeof ReadableStream !== 'undefined' && input.body instanceof ReadableStream
      const contentType = contract.rawBody?.contentType
      const headers = { ...auth, ...(contentType && !contentType.startsWith('multipart/') ? { 'content-type': contentType } : {}), ...input.headers }
      const init: RequestInit & { duplex?: 'half' } = { headers, body: input.body }
      if (streaming) init.duplex = 'half'
      const response = await send(contract, url(contract, input.params), init, input.timeoutMs)
      return (await response.json()) as ResponseOf<C>
    },
  }
}

export type FolioClient = ReturnType<typeof createClient>
