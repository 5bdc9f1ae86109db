import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import type { H3Event } from 'h3'

/**
 * Requests that arrive through the public tunnel come in on a listener of their own; the mark
 * is set there, on the socket's request, so no header can fake it.
 */
const VIA_TUNNEL = Symbol('folio.viaTunnel')

export function markViaTunnel(req: IncomingMessage): void {
  ;(req as unknown as Record<symbol, boolean>)[VIA_TUNNEL] = true
}

export function viaTunnel(req: IncomingMessage | undefined): boolean {
  return Boolean(req && (req as unknown as Record<symbol, boolean>)[VIA_TUNNEL])
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (a listener on :: sees ::ffff:127.0.0.1). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false
  const bare = address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '')
  if (isIP(bare) === 4) return bare.startsWith('127.')
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1'
}

/**
 * From a program on this machine: the socket's peer is a loopback address and the request did
 * not come through the tunnel (whose client is on this machine too, and forwards strangers).
 * Only the socket is asked: a Host or X-Forwarded-For header is whatever the client wrote.
 */
export function fromThisMachine(req: IncomingMessage | undefined): boolean {
  return Boolean(req) && !viaTunnel(req) && isLoopbackAddress(req!.socket.remoteAddress)
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
  if (viaTunnel(req)) {
    const forwarded = req.headers['x-forwarded-for']
    const last = (Array.isArray(forwarded) ? forwarded.at(-1) : forwarded)?.split(',').at(-1)?.trim()
    return last ? `${REMOTE_CLIENT}:${last}` : REMOTE_CLIENT
  }
  return req.socket.remoteAddress ?? 'unknown'
}
