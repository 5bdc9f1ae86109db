import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import type { H3Event } from 'h3'
import { ApiError, badRequest } from './errors.js'

const gunzipAsync = promisify(gunzip)

/**
 * Reads the request body, refusing it as soon as it passes `limit` bytes: a declared
 * Content-Length over the limit is refused before reading, a chunked body while streaming.
 * Nothing unbounded is ever buffered.
 */
export async function readBodyBytes(event: H3Event, limit: number, tooLarge: () => ApiError): Promise<Buffer> {
  const declared = Number(event.req.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > limit) throw tooLarge()
  const stream = event.req.body
  if (!stream) return Buffer.alloc(0)
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>
    try {
      chunk = await reader.read()
    } catch {
      // The client hung up mid-body: nothing to store, nobody to answer, nothing to log.
      throw badRequest('INVALID_BODY', 'The request body was cut off before its end.')
    }
    const { value, done } = chunk
    if (done) break
    total += value.byteLength
    if (total > limit) {
      discardRest(reader)
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}

/**
 * After refusing a body, keep reading (and dropping) what the client still sends, so that it
 * finishes its upload and reads our answer; cancelling at once would reset the connection under
 * it. Past `cap` bytes the client is not listening anyway: then cancel.
 */
export function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, cap = 64 * 1024 * 1024): void {
  void (async () => {
    let dropped = 0
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        dropped += value.byteLength
        if (dropped > cap) {
          await reader.cancel()
          return
        }
      }
    } catch {
      // the client went away: nothing left to drain
    }
  })()
}

/** JSON.parse reviver: a "__proto__" key must never reach an object spread or merge. */
const dropProtoKeys = (key: string, value: unknown) => (key === '__proto__' ? undefined : value)

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export interface JsonBodyOptions {
  limit: number
  /** What a `{_gz, _d}` payload may expand to. */
  expandedLimit: number
  tooLargeError: string
  /** The endpoint's own error string for a body that is empty or not an object (spec: reactions, comments). */
  shapeError?: string
}

/**
 * A JSON object body, with the spec's gzip envelope unwrapped: `{"_gz": true, "_d": base64}`
 * stands for the object that `_d` compresses.
 */
export async function readJsonObject(event: H3Event, options: JsonBodyOptions): Promise<Record<string, unknown>> {
  const tooLarge = () =>
    new ApiError(413, options.tooLargeError, `The body is over ${mb(options.limit)}; send large folios gzip-compressed as {"_gz": true, "_d": "<base64>"}.`)
  const text = (await readBodyBytes(event, options.limit, tooLarge)).toString('utf8')
  if (!text.trim()) throw badRequest(options.shapeError ?? 'INVALID_JSON', 'The body is empty; send a JSON object.')
  let value: unknown
  try {
    value = JSON.parse(text, dropProtoKeys)
  } catch (error) {
    throw badRequest('INVALID_JSON', `The body is not valid JSON (${(error as Error).message}).`)
  }
  if (!isPlainObject(value)) throw badRequest(options.shapeError ?? 'INVALID_BODY', 'The body must be a JSON object.')
  if (value._gz === true) return inflate(value._d, options)
  return value
}

async function inflate(payload: unknown, options: JsonBodyOptions): Promise<Record<string, unknown>> {
  if (typeof payload !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload.replace(/\s+/g, ''))) {
    throw badRequest('INVALID_BODY', '_d must be a base64 string when _gz is true.')
  }
  let expanded: Buffer
  try {
    expanded = await gunzipAsync(Buffer.from(payload, 'base64'), { maxOutputLength: options.expandedLimit })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new ApiError(413, options.tooLargeError, `The gzip payload expands to more than ${mb(options.expandedLimit)}.`)
    }
    throw badRequest('INVALID_BODY', `The gzip payload cannot be decompressed (${(error as Error).message}).`)
  }
  let value: unknown
  try {
    value = JSON.parse(expanded.toString('utf8'), dropProtoKeys)
  } catch {
    throw badRequest('INVALID_BODY', 'The gzip payload does not hold JSON.')
  }
  if (!isPlainObject(value)) throw badRequest('INVALID_BODY', 'The gzip payload must hold a JSON object.')
  delete value._gz
  delete value._d
  return value
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`
}
