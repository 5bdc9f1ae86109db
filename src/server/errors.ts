import { type H3Event, HTTPError, HTTPResponse } from 'h3'
import { CorruptDocumentError, InvalidFilePathError, VersionNotFoundError } from '../store/index.js'
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

export const notFound = (error = 'Project not found', message?: string) => new ApiError(404, error, message)
export const badRequest = (error: string, message?: string) => new ApiError(400, error, message)

const STATUS_ERRORS: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Payload too large',
}

export function jsonError(status: number, body: { error: string; message?: string }, headers: Record<string, string> = {}): HTTPResponse {
  return new HTTPResponse(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  })
}

/** Store errors that are the client's doing become 4xx answers. */
function translate(error: Error): Error {
  if (error instanceof VersionNotFoundError) return badRequest('VERSION_NOT_FOUND', error.message)
  if (error instanceof InvalidFilePathError) return badRequest('INVALID_BODY', error.message)
  return error
}

/**
 * The one place errors become responses (h3's default body is {status, message}; the spec wants
 * {error, message?}). Anything unexpected is logged with its stack and answered with a 500
 * that reveals nothing internal.
 */
export function createErrorHandler(log: (message: string, error: unknown) => void) {
  return (error: HTTPError, event: H3Event): HTTPResponse => {
    const original = translate(error.cause instanceof Error ? error.cause : error)
    if (original instanceof ApiError) {
      const body = original.detail ? { error: original.error, message: original.detail } : { error: original.error }
      return jsonError(original.status, body, original.headers)
    }
    if (HTTPError.isError(error) && !error.unhandled && error.status < 500) {
      const message = error.status === 404 ? `No route for ${event.req.method} ${new URL(event.req.url).pathname}` : error.message
      return jsonError(error.status, { error: STATUS_ERRORS[error.status] ?? 'Bad request', message })
    }
    // The path only: the query string and a viewer frame's grant are secrets (request-log.ts).
    log(`Unhandled error on ${event.req.method} ${redactPath(event.req.url)}`, error.cause ?? error)
    if (original instanceof CorruptDocumentError) {
      return jsonError(500, { error: 'Internal error', message: 'This folio’s stored data is damaged (the server log names the file). Restore it from a backup, or DELETE the folio.' })
    }
    return jsonError(500, { error: 'Internal error', message: 'The server failed to handle this request; it has been logged.' })
  }
}
