import type { IncomingMessage, ServerResponse } from 'node:http'
import { type Logger, LogLevels } from '../../log/logger.js'
import { onRequestEnd } from './request-end.js'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** `/v/{id}/{access}/…`: the access segment of a viewer frame URL is a signed grant. */
const VIEWER_ACCESS = /^(\/+v\/[^/]*\/)([^/]+)/i

/**
 * A request's path as logs may show it: no query string (keys and previews ride there), no
 * fragment, and the viewer grant of a frame URL replaced (`-`, the public marker, is no secret).
 * Takes a path or a whole URL (h3's event.req.url).
 */
export function redactPath(url: string): string {
  let path = url.split(/[?#]/, 1)[0]!
  if (!path.startsWith('/')) {
    try {
      path = new URL(path).pathname
    } catch {
      path = '/'
    }
  }
  return path.replace(VIEWER_ACCESS, (_, head: string, access: string) => `${head}${access === '-' ? '-' : '[grant]'}`)
}

/**
 * One debug line per request once it ends: method, redacted path, status (or "cut off" when the
 * connection closed before the answer was sent), milliseconds. Headers and bodies, where keys
 * travel, are never logged. `via` names a listener other than the main one.
 */
export function logRequests(logger: Logger, handle: Handler, via?: string): Handler {
  return (req, res) => {
    if (logger.level < LogLevels.debug) return handle(req, res)
    const started = performance.now()
    onRequestEnd(req, res, () => {
      const ms = Math.round(performance.now() - started)
      const outcome = res.writableFinished ? String(res.statusCode) : 'cut off'
      logger.debug(`${req.method} ${redactPath(req.url ?? '/')} ${outcome} ${ms} ms${via ? ` (${via})` : ''}`)
    })
    handle(req, res)
  }
}
