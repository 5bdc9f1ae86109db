import type { z } from 'zod'
import type { ErrorCase } from './errors.js'

export type { ErrorCase }

/**
 * One contract per endpoint: plain data that drives request validation on the server, the
 * OpenAPI document, the typed client and the MCP tool schemas. No h3 or storage here.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * Who may call: `public` needs nothing; `required` needs the workspace credential (open in OSS
 * to programs on this machine); `guarded` is `required` that also needs FOLIO_API_KEY, whenever
 * that is set, from programs on this machine (spec: Authentication 8 names the sync endpoint;
 * reading the key is the other).
 */
export type Access = 'public' | 'required' | 'guarded'

/** OSS: self-hosted, open to this machine. Cloud: workspaces, keys, plans (spec: two modes). */
export type Mode = 'oss' | 'cloud'

export type RateLimitBucket = 'comments' | 'reactions' | 'analytics' | 'public' | 'events' | 'auth'

export interface Contract {
  operationId: string
  method: HttpMethod
  /** OpenAPI style: /api/files/{id} */
  path: string
  tag: string
  summary: string
  description?: string
  access: Access
  /** The endpoint exists in one mode only; in the other every call gets this error (and message, saying what to do instead). */
  onlyIn?: { mode: Mode; error: ErrorCase; message?: string }
  params?: z.ZodObject
  query?: z.ZodObject
  /** A JSON body, validated before the handler runs. */
  body?: z.ZodType
  /** The spec's error for a body that is missing or not a JSON object, where it names one. */
  bodyShapeError?: ErrorCase
  /** Optional request headers the endpoint reads: name → what they carry. */
  headers?: Record<string, string>
  /** A body the handler reads itself (raw bytes, multipart, or JSON that may be malformed). */
  rawBody?: { contentType: string; description: string; schema?: z.ZodType; headers?: Record<string, string> }
  /** Public endpoints are rate limited per client, in this bucket. */
  rateLimit?: RateLimitBucket
  response: { status: number; description: string; schema?: z.ZodType; contentType?: string; headers?: Record<string, string> }
  /** What the endpoint may answer instead: cases of api/errors.ts. */
  errors: ErrorCase[]
}

export function defineContract<const C extends Contract>(contract: C): C {
  return contract
}

export type ParamsOf<C extends Contract> = C['params'] extends z.ZodObject ? z.output<C['params']> : Record<string, never>
export type QueryOf<C extends Contract> = C['query'] extends z.ZodObject ? z.output<C['query']> : Record<string, never>
export type BodyOf<C extends Contract> = C['body'] extends z.ZodType ? z.output<C['body']> : undefined
export type BodyInputOf<C extends Contract> = C['body'] extends z.ZodType ? z.input<C['body']> : undefined
export type ResponseOf<C extends Contract> = C['response']['schema'] extends z.ZodType ? z.output<C['response']['schema']> : unknown
/** What a handler answers with: the JSON as sent, before any parse (so the schema's input side). */
export type ResponseInputOf<C extends Contract> = C['response']['schema'] extends z.ZodType ? z.input<C['response']['schema']> : unknown
