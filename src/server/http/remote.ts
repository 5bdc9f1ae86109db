import type { IncomingMessage } from 'node:http'
import { isIP, type Socket } from 'node:net'
import type { H3Event } from 'h3'

/**
 * Requests that arrive through the public tunnel come in on a listener of their own; the mark
 * is set there, on the socket's request, so no header can fake it.
 */
const VIA_TUNNEL = Symbol('folio.viaTunnel')

/** `viewer`: the viewer's address, when the tunnel that forwarded the request names it. */
export function markViaTunnel(req: IncomingMessage, viewer?: string): void {
  ;(req as unknown as Record<symbol, string | true>)[VIA_TUNNEL] = viewer || true
}

export function viaTunnel(req: IncomingMessage | undefined): boolean {
  return Boolean(req && (req as unknown as Record<symbol, string | true>)[VIA_TUNNEL])
}

function tunnelViewer(req: IncomingMessage): string | undefined {
  const mark = (req as unknown as Record<symbol, string | true | undefined>)[VIA_TUNNEL]
  return typeof mark === 'string' ? mark : undefined
}

/**
 * The viewer behind a Cloudflare tunnel: Cloudflare's edge sets CF-Connecting-IP to the address
 * it was reached from (overwriting whatever the viewer sent). Read only on cloudflared's own
 * listener (serve.ts); anywhere else the header is the client's to write.
 */
export function cloudflareViewer(req: IncomingMessage): string | undefined {
  const value = req.headers['cf-connecting-ip']
  const address = (Array.isArray(value) ? value[0] : value)?.trim()
  return address && isIP(address) ? address : undefined
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
 * not come through the tunnel (whose client is on this machine too, and forwards strangers), nor
 * (with trustProxy) through the operator's proxy. Only the socket is asked: a Host or
 * X-Forwarded-For header is whatever the client wrote.
 */
export function fromThisMachine(req: IncomingMessage | undefined, trustProxy: boolean): boolean {
  if (!req || viaTunnel(req) || !loopbackPeer(req.socket)) return false
  return !(trustProxy && req.headers['x-forwarded-for'])
}

const LOOPBACK_PEER = Symbol('folio.loopbackPeer')

/** Asked once per connection: its peer does not change, and keep-alive clients send many requests. */
function loopbackPeer(socket: Socket): boolean {
  const marked = socket as Socket & { [LOOPBACK_PEER]?: boolean }
  return (marked[LOOPBACK_PEER] ??= isLoopbackAddress(socket.remoteAddress))
}

export function nodeRequest(event: H3Event): IncomingMessage | undefined {
  return (event.req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req
}

/**
 * The one id of every client behind a tunnel that does not name them: a localtunnel server
 * proxies with the viewer's own headers and appends no X-Forwarded-For (localtunnel/server,
 * lib/Client.js), so whatever that header says, the viewer typed. Unless the operator says their
 * proxy appends it (FOLIO_TRUST_PROXY), localtunnel's viewers are one client; cloudflared's are
 * told apart by CF-Connecting-IP.
 */
export const REMOTE_CLIENT = 'remote'
const UNKNOWN_CLIENT = 'unknown'

/** Whether an id names one client, rather than several the server cannot tell apart. */
export const namesOneClient = (client: string) => client !== REMOTE_CLIENT && client !== UNKNOWN_CLIENT

/**
 * Who the client is, for rate limits and key-guess budgets: the socket's peer address, or
 * through a tunnel `remote:<viewer>` where it names the viewer, else REMOTE_CLIENT. With trustProxy, the last X-Forwarded-For hop (the one the
 * operator's proxy appended; earlier hops are whatever the client sent), as `remote:<address>`.
 */
export function clientOf(req: IncomingMessage | undefined, trustProxy: boolean): string {
  if (!req) return UNKNOWN_CLIENT
  const forwarded = trustProxy ? lastForwardedHop(req) : undefined
  if (forwarded) return `${REMOTE_CLIENT}:${forwarded}`
  if (viaTunnel(req)) {
    const viewer = tunnelViewer(req)
    return viewer ? `${REMOTE_CLIENT}:${viewer}` : REMOTE_CLIENT
  }
  return req.socket.remoteAddress ?? UNKNOWN_CLIENT
}

function lastForwardedHop(req: IncomingMessage): string | undefined {
  const forwarded = req.headers['x-forwarded-for']
  return (Array.isArray(forwarded) ? forwarded.at(-1) : forwarded)?.split(',').at(-1)?.trim() || undefined
}
