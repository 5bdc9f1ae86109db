import type { Contract, ParamsOf } from '../../src/api/contract.js'
import { createFolio } from '../../src/api/files.js'
import { createClient } from '../../src/client/index.js'
import type { RequestInput } from '../../src/client/client.js'

/** What an endpoint answered, 2xx or 4xx alike: status, headers and the body parsed (or its text). */
export interface Reply<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface SendInput<C extends Contract> {
  params?: ParamsOf<C>
  /** Loose on purpose: tests send values the contract refuses. */
  query?: Record<string, string | number | boolean | undefined>
  /** A JSON body; loose on purpose, for the same reason. */
  body?: unknown
  /** A raw body instead (malformed JSON, bytes, a stream, a FormData), sent as the contract's content type. */
  raw?: BodyInit
  /** Last: they may replace the key or the content type. */
  headers?: Record<string, string>
}

export async function readReply<T = any>(response: Response): Promise<Reply<T>> {
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: body as T, text }
}

/**
 * Holds a 2xx JSON answer to its contract's response schema (the one the OpenAPI document is
 * made of): a handler that drifts from it fails the test that called it, naming the endpoint.
 */
export function checkAnswer(contract: Contract, reply: Reply): void {
  const schema = contract.response.schema
  if (!schema || reply.status < 200 || reply.status > 299 || !reply.text) return
  if (!/[/+]json\b/.test(reply.headers.get('content-type') ?? '')) return
  const checked = schema.safeParse(reply.body)
  if (checked.success) return
  const issues = checked.error.issues.slice(0, 10).map((issue) => `  ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
  throw new Error(
    `${contract.operationId} (${contract.method} ${contract.path}) answered ${reply.status} with a body its response schema refuses:\n${issues.join('\n')}\nbody: ${reply.text.slice(0, 500)}`,
  )
}

/**
 * The tests' side of the API: the real typed client (src/client), so every request is built from
 * its contract and `grep -rn getFolio test/` finds the tests of GET /api/files/{id}. Unlike the
 * CLI's calls, nothing throws on a 4xx: tests assert on the answer.
 */
export function testApi(server: string, options: { key?: string } = {}) {
  // Long enough for the 1,000-request bursts and 20 MB bodies of the tests; a hang still fails.
  const client = createClient({ server, key: options.key, timeoutMs: 120_000 })

  /** The answer as it came, body unread: for event streams and bytes. */
  const request = <C extends Contract>(contract: C, input: SendInput<C> = {}) =>
    client.request(contract, { params: input.params, query: input.query, json: input.body, body: input.raw, headers: input.headers } as RequestInput<C>)

  return {
    server: client.server,
    /** The full URL of an endpoint, for what a test must send itself (HEAD, a wrong method, a raw socket). */
    url: <C extends Contract>(contract: C, params?: ParamsOf<C>) => client.url(contract, params),
    request,
    /** The answer read; a 2xx JSON answer its contract's schema refuses fails the test (checkAnswer). */
    async send<C extends Contract>(contract: C, input: SendInput<C> = {}): Promise<Reply> {
      const reply = await readReply(await request(contract, input))
      checkAnswer(contract, reply)
      return reply
    },
    /** Creates a folio and returns its id. */
    async create(title: string, files: Record<string, string> = { 'index.html': `<h1>${title}</h1>` }, extra: object = {}): Promise<string> {
      const reply = await readReply(await request(createFolio, { body: { title, defaultFiles: files, ...extra } }))
      checkAnswer(createFolio, reply)
      if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${reply.text}`)
      return reply.body.project.id as string
    },
  }
}

export type TestApi = ReturnType<typeof testApi>
