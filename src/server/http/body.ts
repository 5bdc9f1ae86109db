import type { IncomingMessage } from 'node:http'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import type { H3Event } from 'h3'
import { ERRORS, type ErrorCase } from '../../api/errors.js'
import { ApiError, fail } from './errors.js'
import { nodeRequest } from './remote.js'
import { type BodyTimeouts, bodyTimeoutsOf, nextChunkWithin, tooSlowMessage } from './slow-body.js'

const gunzipAsync = promisify(gunzip)

/**
 * Reads the request body, refusing it as soon as it passes `limit` bytes: a declared
 * Content-Length over the limit is refused before reading, a chunked body while streaming.
 * Nothing unbounded is ever buffered. A body that stops arriving, or comes slower than the
 * listener's minimum rate, is a 408 (slow-body.ts); the connection closes after it.
 */
export async function readBodyBytes(event: H3Event, limit: number, tooLarge: () => ApiError): Promise<Buffer> {
  const declared = Number(event.req.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > limit) throw tooLarge()
  const req = nodeRequest(event)
  if (req && req.readableFlowing === null) return readNodeBody(req, limit, tooLarge)
  const stream = event.req.body
  if (!stream) return Buffer.alloc(0)
  const body = timedBodyReader(event, stream)
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const chunk = await body.next()
    if (!chunk) break
    total += chunk.byteLength
    if (total > limit) {
      body.discardRest()
      throw tooLarge()
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, total)
}

/**
 * readBodyBytes on node's own request stream, unread so far (behind `folio serve`, always). The
 * Web stream h3 would hand over copies every chunk and races a timer against each read: for a
 * 100 KB version that was a tenth of the event loop's time. Here one timer checks the same rules
 * (nextChunkWithin) whenever it is due, and chunks are only counted and kept.
 */
function readNodeBody(req: IncomingMessage, limit: number, tooLarge: () => ApiError): Promise<Buffer> {
  const timeouts = bodyTimeoutsOf(req)
  const startedAt = Date.now()
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let total = 0
    let lastChunkAt = startedAt
    let timer: NodeJS.Timeout | undefined
    const settle = (error?: ApiError) => {
      clearTimeout(timer)
      req.off('data', onData).off('end', onEnd).off('close', onCutOff).off('error', onCutOff)
      if (error) reject(error)
      // Copied even when one chunk: a chunk is a slice of the socket's read, which a body kept
      // (an upload held until its checkpoint) would otherwise keep alive whole.
      else resolve(Buffer.concat(chunks, total))
    }
    const check = () => {
      const now = Date.now()
      const wait = nextChunkWithin(timeouts, startedAt, total, now, lastChunkAt)
      if (wait > 0) timer = setTimeout(check, wait)
      else {
        // Not destroyed: the client reads the 408, and the connection closes after it.
        settle(fail(ERRORS.requestTimeout, tooSlowMessage(timeouts), { connection: 'close' }))
        dropNodeRest(req)
      }
    }
    const onData = (chunk: Buffer) => {
      total += chunk.length
      lastChunkAt = Date.now()
      if (total <= limit) return void chunks.push(chunk)
      settle(tooLarge())
      dropNodeRest(req)
    }
    const onEnd = () => settle()
    const onCutOff = () => settle(fail(ERRORS.invalidBody, 'The request body was cut off before its end.'))
    req.on('data', onData).once('end', onEnd).once('close', onCutOff).once('error', onCutOff)
    check()
  })
}

/** After a refusal, what the client still sends is read and dropped (discardRest), up to a cap. */
function dropNodeRest(req: IncomingMessage, cap = DISCARD_CAP): void {
  let dropped = 0
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > cap) req.socket.destroy()
  })
  req.on('error', () => {})
}

/**
 * A request body chunk by chunk, under the listener's timeouts: next() answers undefined at the
 * end, throws a 400 when the client hung up mid-body (nothing to store, nobody to answer, nothing
 * to log) and a 408 when the body comes too slowly (the connection closes after it). The reader
 * is not cancelled then: that would reset the connection before the client reads the answer.
 */
export function timedBodyReader(event: H3Event, stream: ReadableStream<Uint8Array>) {
  const timeouts = bodyTimeoutsOf(nodeRequest(event))
  const startedAt = Date.now()
  const reader = stream.getReader()
  let received = 0
  return {
    async next(): Promise<Uint8Array | undefined> {
      let chunk: ReadableStreamReadResult<Uint8Array> | typeof TOO_SLOW
      try {
        chunk = await readWithin(reader, nextChunkWithin(timeouts, startedAt, received, Date.now()))
      } catch {
        throw fail(ERRORS.invalidBody, 'The request body was cut off before its end.')
      }
      if (chunk === TOO_SLOW) throw fail(ERRORS.requestTimeout, tooSlowMessage(timeouts), { connection: 'close' })
      if (chunk.done) return undefined
      received += chunk.value.byteLength
      return chunk.value
    },
    /** The rest is read and dropped, so the client reads the refusal (see discardRest). */
    discardRest: () => discardRest(reader, timeouts),
  }
}

/** A 408 from a body reader: endpoints that answer any bad body with success false still pass it on. */
export const isTooSlow = (error: unknown) => error instanceof ApiError && error.status === ERRORS.requestTimeout.status

const TOO_SLOW = Symbol('too slow')

/** The next chunk, or TOO_SLOW when it does not come within `ms`. */
async function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<ReadableStreamReadResult<Uint8Array> | typeof TOO_SLOW> {
  if (ms <= 0) return TOO_SLOW
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([reader.read(), new Promise<typeof TOO_SLOW>((resolve) => (timer = setTimeout(resolve, ms, TOO_SLOW)))])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * After refusing a body, keep reading (and dropping) what the client still sends, so that it
 * finishes its upload and reads our answer; cancelling at once would reset the connection under
 * it. Past `cap` bytes, or slower than the listener's minimum rate, the client is not listening
 * anyway: then cancel.
 */
export function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, timeouts: BodyTimeouts, cap = DISCARD_CAP): void {
  void (async () => {
    const startedAt = Date.now()
    let dropped = 0
    try {
      for (;;) {
        const chunk = await readWithin(reader, nextChunkWithin(timeouts, startedAt, dropped, Date.now()))
        if (chunk === TOO_SLOW) {
          await reader.cancel()
          return
        }
        if (chunk.done) return
        dropped += chunk.value.byteLength
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

/** How much of a refused body is read and dropped before the connection is closed instead. */
const DISCARD_CAP = 64 * 1024 * 1024

/** Deeper than any real folio needs; JSON.stringify (when the value is stored) recurses per level. */
export const MAX_JSON_DEPTH = 64

/**
 * JSON.parse, then one iterative walk that drops every own "__proto__" key (it must never reach
 * an Object.assign or a merge) and refuses nesting deeper than MAX_JSON_DEPTH. A reviver would
 * do the first job recursively, and fail on valid input a few thousand levels deep.
 */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text)
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length) {
    const [node, depth] = stack.pop()!
    if (typeof node !== 'object' || node === null) continue
    if (depth > MAX_JSON_DEPTH) throw new JsonTooDeepError()
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) stack.push([item, depth + 1])
      continue
    }
    // biome-ignore lint/suspicious/noProto: deletes an own "__proto__" key a JSON body carried, never the accessor
    if (Object.hasOwn(node, '__proto__')) delete (node as Record<string, unknown>).__proto__
    for (const item of Object.values(node)) if (typeof item === 'object' && item !== null) stack.push([item, depth + 1])
  }
  return value
}

class JsonTooDeepError extends Error {
  constructor() {
    super(`The JSON is nested deeper than ${MAX_JSON_DEPTH} levels.`)
  }
}

const notJson = (what: string, error: unknown) =>
  error instanceof JsonTooDeepError
    ? fail(ERRORS.invalidBody, error.message)
    : fail(ERRORS.invalidJson, `${what} is not valid JSON (${(error as Error).message}).`)

/**
 * Gzip envelopes expand up to 32× their size on the wire: only this many are inflated and
 * parsed at once, so a burst of small requests cannot claim gigabytes together.
 */
const MAX_CONCURRENT_INFLATIONS = 2
let inflating = 0
const waitingToInflate: Array<() => void> = []

async function withInflationSlot<T>(work: () => Promise<T>): Promise<T> {
  if (inflating >= MAX_CONCURRENT_INFLATIONS) await new Promise<void>((resolve) => waitingToInflate.push(resolve))
  else inflating++
  try {
    return await work()
  } finally {
    const next = waitingToInflate.shift()
    if (next) next()
    else inflating--
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export interface JsonBodyOptions {
  limit: number
  /** What a `{_gz, _d}` payload may expand to. */
  expandedLimit: number
  tooLarge: ErrorCase
  /** The endpoint's own error for a body that is empty or not an object (spec: reactions, comments). */
  shapeError?: ErrorCase
}

/**
 * A JSON object body, with the spec's gzip envelope unwrapped: `{"_gz": true, "_d": base64}`
 * stands for the object that `_d` compresses.
 */
export async function readJsonObject(event: H3Event, options: JsonBodyOptions): Promise<Record<string, unknown>> {
  const tooLarge = () => fail(options.tooLarge, `The body is over ${mb(options.limit)}; send large folios gzip-compressed as {"_gz": true, "_d": "<base64>"}.`)
  const text = (await readBodyBytes(event, options.limit, tooLarge)).toString('utf8')
  if (!text.trim()) throw fail(options.shapeError ?? ERRORS.invalidJson, 'The body is empty; send a JSON object.')
  let value: unknown
  try {
    value = parseJson(text)
  } catch (error) {
    throw notJson('The body', error)
  }
  if (!isPlainObject(value)) throw fail(options.shapeError ?? ERRORS.invalidBody, 'The body must be a JSON object.')
  if (value._gz === true) return inflate(value._d, options)
  return value
}

async function inflate(payload: unknown, options: JsonBodyOptions): Promise<Record<string, unknown>> {
  if (typeof payload !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload.replace(/\s+/g, ''))) {
    throw fail(ERRORS.invalidBody, '_d must be a base64 string when _gz is true.')
  }
  const value = await withInflationSlot(async () => {
    let expanded: Buffer
    try {
      expanded = await gunzipAsync(Buffer.from(payload, 'base64'), { maxOutputLength: options.expandedLimit })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        throw fail(options.tooLarge, `The gzip payload expands to more than ${mb(options.expandedLimit)}.`)
      }
      throw fail(ERRORS.invalidBody, `The gzip payload cannot be decompressed (${(error as Error).message}).`)
    }
    try {
      return parseJson(expanded.toString('utf8'))
    } catch (error) {
      throw error instanceof JsonTooDeepError ? fail(ERRORS.invalidBody, error.message) : fail(ERRORS.invalidBody, 'The gzip payload does not hold JSON.')
    }
  })
  if (!isPlainObject(value)) throw fail(ERRORS.invalidBody, 'The gzip payload must hold a JSON object.')
  delete value._gz
  delete value._d
  return value
}

function mb(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MB`
}
