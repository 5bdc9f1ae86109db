import type { IncomingMessage } from 'node:http'
import type { H3Event } from 'h3'

/**
 * Requests that arrive through the public tunnel come in on a listener of their own; the mark
 * is set there, on the socket's request, so no header can fake it.
 */
const REMOTE = Symbol('folio.remote')

export function markRemote(req: IncomingMessage): void {
  ;(req as unknown as Record<symbol, boolean>)[REMOTE] = true
}

export function isRemoteRequest(req: IncomingMessage | undefined): boolean {
  return Boolean(req && (req as unknown as Record<symbol, boolean>)[REMOTE])
}

export function nodeRequest(event: H3Event): IncomingMessage | undefined {
  return (event.req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req
}

/**
 * Who the client is, for rate limits. Through the tunnel every request comes from the local
 * tunnel client, so there the first X-Forwarded-For hop names the viewer.
 */
export function clientOf(req: IncomingMessage | undefined): string {
  if (!req) return 'unknown'
  if (isRemoteRequest(req)) {
    const forwarded = req.headers['x-forwarded-for']
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim()
    if (first) return `remote:${first}`
    return 'remote'
  }
  return req.socket.remoteAddress ?? 'unknown'
}
