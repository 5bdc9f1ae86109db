import { z } from 'zod'
import type { Contract, HttpMethod, Mode, ResponseOf } from './contract.js'

/**
 * An MCP tool is one of the API's operations offered to agents (api/mcp-tools.ts lists them).
 * Its input schema is assembled from the contract's own params, query and body schemas (the
 * same objects that validate the HTTP request and render the OpenAPI document), narrowed to what
 * the tool is for; its description is the tool's own (an agent pays for every byte of every
 * description on every turn: the endpoint's, written for HTTP callers, is not repeated). Running
 * it is an HTTP request to the endpoint, built here from the arguments (the server sends it
 * through its own router, the caller's credential attached: server/mcp/mcp-server.ts).
 */
export interface McpTool {
  name: string
  title: string
  description: string
  contract: Contract
  /** Arguments: a plain object schema, as MCP clients expect (tools/list renders it as JSON Schema). */
  input: z.ZodObject
  annotations: ToolAnnotations
  /** Offered only when the server runs in this mode (the contract's onlyIn). */
  onlyIn?: Mode
  /** The endpoint request for arguments that passed `input`. */
  request(args: Record<string, unknown>): ToolRequest
  /** What of the endpoint's answer the tool returns (by default all of it). */
  result(answer: unknown, args: Record<string, unknown>): unknown
  /** A short text for people (and the agent) about a success. */
  say(answer: unknown, args: Record<string, unknown>, context: ToolContext): string
  /** The text says it all (get_brief's markdown): no JSON of the result after it. */
  textOnly: boolean
  /** MCP Apps: the ui:// resource a host that supports Apps shows with this tool's answer. */
  ui?: string
  /** Where the tool differs from its endpoint: fields of its own, shorter descriptions, other defaults. */
  own: { fields: string[]; described: string[]; defaults: string[] }
}

export interface ToolAnnotations {
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

export interface ToolRequest {
  method: HttpMethod
  /** Path with its parameters filled in, and the query string. */
  path: string
  /** A JSON body. */
  json?: Record<string, unknown>
  /** A raw body (uploads) with its content type. */
  raw?: { bytes: Uint8Array<ArrayBuffer>; contentType: string }
  headers?: Record<string, string>
}

export interface ToolContext {
  /** The server's origin as the caller reached it, for the links a text gives. */
  base: string
}

type Shape = Record<string, z.ZodType>
type Args = Record<string, unknown>

interface ToolSpec<C extends Contract> {
  name: string
  title: string
  /** What the tool does and when to use it, for an agent: short, and its own. */
  description: string
  annotations: ToolAnnotations
  /** Query fields offered as arguments: all of the contract's (default), none, or these. */
  query?: 'all' | 'none' | readonly string[]
  /** Body fields offered: all (default), these, or all but these. */
  body?: 'all' | readonly string[] | { omit: readonly string[] }
  /** Arguments the tool requires though the endpoint lets them out. */
  require?: readonly string[]
  /** What the tool always sends. */
  fixed?: { query?: Record<string, string>; body?: Args }
  /** Body fields the tool works out from the arguments when the agent leaves them out (create_folio: from the page). */
  fill?(args: Args): Args
  /** Query values sent when the arguments leave them out (get_folio: no file contents by default). */
  defaults?: { query?: Record<string, string> }
  /** MCP Apps: the ui:// resource that shows this tool's answer (server/mcp/mcp-app.ts serves it). */
  ui?: string
  /** Shorter descriptions of the endpoint's fields, for this tool (the HTTP ones speak to HTTP callers). */
  describe?: Record<string, string>
  /** Arguments of the tool's own, not sent to the endpoint: result() and say() read them. */
  extra?: Shape
  textOnly?: boolean
  /** A raw body made from arguments of its own (the contract's body is bytes). */
  raw?: { shape: Shape; build(args: Args): { bytes: Uint8Array<ArrayBuffer>; contentType: string; headers?: Record<string, string> } }
  result?(answer: ResponseOf<C>, args: Args): unknown
  say(answer: ResponseOf<C>, args: Args, context: ToolContext): string
}

const shapeOf = (schema: z.ZodType | undefined): Shape => (schema instanceof z.ZodObject ? (schema.shape as Shape) : {})

function select(shape: Shape, which: 'all' | 'none' | readonly string[] | { omit: readonly string[] } | undefined): Shape {
  if (which === undefined || which === 'all') return shape
  if (which === 'none') return {}
  const keep = 'omit' in which ? Object.keys(shape).filter((k) => !which.omit.includes(k)) : which
  return Object.fromEntries(
    keep.map((key) => {
      if (!shape[key]) throw new Error(`mcp tool: the contract has no field ${key}`)
      return [key, shape[key]]
    }),
  )
}

const pick = (args: Args, keys: string[]): Args => Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]))

/** One tool over one contract: its arguments are the contract's fields, sent where the contract takes them. */
export function contractTool<C extends Contract>(contract: C, spec: ToolSpec<C>): McpTool {
  const parts = {
    params: shapeOf(contract.params),
    query: select(shapeOf(contract.query), spec.query),
    body: spec.raw ? spec.raw.shape : select(shapeOf(contract.body), spec.body),
    extra: spec.extra ?? {},
  }
  const shape: Shape = {}
  for (const part of Object.values(parts)) {
    for (const [key, field] of Object.entries(part)) {
      if (shape[key]) throw new Error(`mcp tool ${spec.name}: ${key} is in two parts of ${contract.operationId}`)
      shape[key] = field
    }
  }
  for (const key of spec.require ?? []) {
    const field = shape[key]
    if (!(field instanceof z.ZodOptional)) throw new Error(`mcp tool ${spec.name}: ${key} is not an optional field`)
    // The description sits on the optional wrapper (`.optional().describe(…)`): keep it.
    const inner = field.unwrap() as z.ZodType
    shape[key] = field.description ? inner.describe(field.description) : inner
  }
  // A default of the tool's own shows in its schema: what the agent gets when it leaves the field out.
  for (const [key, value] of Object.entries(spec.defaults?.query ?? {})) {
    const field = shape[key]
    if (!(field instanceof z.ZodDefault)) throw new Error(`mcp tool ${spec.name}: ${key} has no default to change`)
    shape[key] = (field.unwrap() as z.ZodType).default(value as never)
  }
  for (const [key, text] of Object.entries(spec.describe ?? {})) {
    if (!shape[key]) throw new Error(`mcp tool ${spec.name}: no field ${key} to describe`)
    shape[key] = shape[key].describe(text)
  }
  const keys = { params: Object.keys(parts.params), query: Object.keys(parts.query), body: Object.keys(parts.body) }
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    contract,
    input: z.object(shape),
    annotations: spec.annotations,
    onlyIn: contract.onlyIn?.mode,
    request(args) {
      const path = contract.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(args[name])))
      const query = new URLSearchParams({ ...spec.defaults?.query, ...stringValues(pick(args, keys.query)), ...spec.fixed?.query })
      const url = query.size ? `${path}?${query}` : path
      if (spec.raw) {
        const { headers, ...raw } = spec.raw.build(args)
        return { method: contract.method, path: url, raw, headers }
      }
      const filled = spec.fill ? pick(spec.fill(args), keys.body) : {}
      const json = contract.body ? { ...filled, ...pick(args, keys.body), ...spec.fixed?.body } : undefined
      return { method: contract.method, path: url, json }
    },
    result: (answer, args) => (spec.result ? spec.result(answer as ResponseOf<C>, args) : answer),
    say: (answer, args, context) => spec.say(answer as ResponseOf<C>, args, context),
    textOnly: spec.textOnly ?? false,
    ...(spec.ui ? { ui: spec.ui } : {}),
    own: { fields: Object.keys(parts.extra), described: Object.keys(spec.describe ?? {}), defaults: Object.keys(spec.defaults?.query ?? {}) },
  }
}

/** Query values as the URL carries them (the endpoint's schema parses them back). */
const stringValues = (args: Args): Record<string, string> =>
  Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
