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

/** Clients behind the tunnel: their ids all start so (see RateLimiter's shared remote ceiling). */
export const REMOTE_CLIENT = 'remote'

/**
 * Who the client is, for rate limits. Through the tunnel every request comes from the local
 * tunnel client, so there X-Forwarded-For names the viewer: its last hop, the one the tunnel
 * server's proxy appended (earlier hops are whatever the client chose to send). A tunnel server
 * that adds no such header leaves it spoofable, which is why remote clients also share one
 * ceiling (rate-limit.ts).
 */
export function clientOf(req: IncomingMessage | undefined): string {
  if (!req) return 'unknown'
  if (isRemoteRequest(req)) {
    const forwarded = req.headers['x-forwarded-for']
    const last = (Array.isArray(forwarded) ? forwarded.at(-1) : forwarded)?.split(',').at(-1)?.trim()
    return last ? `${REMOTE_CLIENT}:${last}` : REMOTE_CLIENT
  }
  return req.socket.remoteAddress ?? 'unknown'
}
