import { join } from 'node:path'
import { type H3Event, HTTPError, HTTPResponse } from 'h3'
import { ERRORS, type ErrorCase } from '../../api/errors.js'
import {
  CorruptDocumentError,
  DatabaseUnavailableError,
  InsufficientStorageError,
  InvalidFilePathError,
  UnknownAssetError,
  VersionNotFoundError,
} from '../../store/index.js'
import { redactPath } from './request-log.js'

/** An error the client caused or may act on: answered as {error, message?} with its status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? error)
    this.detail = message
  }
  readonly detail: string | undefined
}

/**
 * One of the API's error cases (api/errors.ts) as the error to throw: `throw fail(ERRORS.x,
 * 'what to do')`. Its status and `error` string come from the case, so they match what the
 * contracts (and the OpenAPI document) declare.
 */
export const fail = (error: ErrorCase, message?: string, headers?: Record<string, string>) => new ApiError(error.status, error.error, message, headers)

/** h3's own errors (unmatched routes and the like), by status. */
const STATUS_ERRORS: Record<number, ErrorCase> = {
  400: ERRORS.badRequest,
  401: ERRORS.unauthorized,
  404: ERRORS.notFound,
  405: ERRORS.methodNotAllowed,
  413: ERRORS.payloadTooLarge,
}

export function jsonError(status: number, body: { error: string; message?: string }, headers: Record<string, string> = {}): HTTPResponse {
  return new HTTPResponse(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  })
}

/** Seconds a client waits before it tries again: the journal looks at the disk every second, writes come back 3 s after a full disk at the soonest; the database's pool tries for 5 s. */
const RETRY_AFTER_FULL_DISK = '10'
const RETRY_AFTER_DATABASE = '5'

/**
 * Store errors that are the client's doing become 4xx answers; the store's states (a full disk,
 * the database away) their 507 and 503, wherever in the chain of causes they are.
 */
function translate(error: Error): Error {
  if (error instanceof VersionNotFoundError) return fail(ERRORS.versionNotFound, error.message)
  if (error instanceof InvalidFilePathError || error instanceof UnknownAssetError) return fail(ERRORS.invalidBody, error.message)
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof InsufficientStorageError) {
      return fail(
        ERRORS.insufficientStorage,
        'The server’s disk is full, so this write was not made (nothing acknowledged before was lost). Writes resume by themselves once space is freed on the server: retry later.',
        { 'retry-after': RETRY_AFTER_FULL_DISK },
      )
    }
    if (e instanceof DatabaseUnavailableError) {
      return fail(
        ERRORS.databaseUnavailable,
        `The server cannot reach its database now${e.detail ? ` (${e.detail})` : ''}: the request may not have been carried out; retry it later.`,
        { 'retry-after': RETRY_AFTER_DATABASE },
      )
    }
  }
  return error
}

/**
 * The one place errors become responses (h3's default body is {status, message}; the spec wants
 * {error, message?}). Anything unexpected is logged with its stack and answered with a 500
 * that reveals nothing internal.
 */
export function createErrorHandler(log: (message: string, error?: unknown) => void, dataDir?: string) {
  return (error: HTTPError, event: H3Event): HTTPResponse => {
    const original = translate(error.cause instanceof Error ? error.cause : error)
    if (original instanceof ApiError) {
      const body = original.detail ? { error: original.error, message: original.detail } : { error: original.error }
      return jsonError(original.status, body, original.headers)
    }
    if (HTTPError.isError(error) && !error.unhandled && error.status < 500) {
      const message = error.status === 404 ? `No route for ${event.req.method} ${new URL(event.req.url).pathname}` : error.message
      return jsonError(error.status, { error: (STATUS_ERRORS[error.status] ?? ERRORS.badRequest).error, message })
    }
    // The path only: the query string and a viewer frame's grant are secrets (request-log.ts).
    const request = `${event.req.method} ${redactPath(event.req.url)}`
    if (original instanceof CorruptDocumentError) {
      // A known condition, not a bug: one line that names the file on disk and what to do.
      const file = dataDir ? join(dataDir, ...original.key.split(':')) : original.key
      log(`${request}: ${file} is damaged (not valid JSON). Restore it from a backup, or delete the folio.`)
      return jsonError(500, {
        error: ERRORS.internalError.error,
        message: 'This folio’s stored data is damaged (the server log names the file). Restore it from a backup, or DELETE the folio.',
      })
    }
    log(`Unhandled error on ${request}`, error.cause ?? error)
    return jsonError(500, { error: ERRORS.internalError.error, message: 'The server failed to handle this request; it has been logged.' })
  }
}
