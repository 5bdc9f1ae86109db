import type { IncomingMessage } from 'node:http'
import type { H3Event } from 'h3'
import type { ToolRequest } from '../../api/mcp-tools.js'
import { nodeRequest } from './remote.js'

/** The caller's headers a sub-request carries: its credential, and what auth reads beside it. */
const CARRIED = ['authorization', 'host', 'origin', 'user-agent'] as const

/**
 * A request to this server's own router made on behalf of `event` (h3's fetchWithEvent does much
 * the same): it carries the caller's credential and the caller's node request (its socket), so
 * auth (credential, loopback peer, tunnel mark, Host), tenancy and rate limits decide exactly as
 * they did for the caller. Nothing but the server builds one: no header can ask for it.
 */
export function subRequest(event: H3Event, request: ToolRequest): Request {
  const headers = new Headers(request.headers)
  for (const name of CARRIED) {
    const value = event.req.headers.get(name)
    if (value !== null) headers.set(name, value)
  }
  headers.set('accept', 'application/json')
  let body: BodyInit | undefined
  if (request.raw) {
    headers.set('content-type', request.raw.contentType)
    body = request.raw.bytes
  } else if (request.json) {
    headers.set('content-type', 'application/json')
    body = JSON.stringify(request.json)
  }
  const sub = new Request(new URL(request.path, event.url), { method: request.method, headers, body })
  const outer = event.req as Request & { ip?: unknown; waitUntil?: unknown }
  const req = nodeRequest(event)
  // No node response: the answer comes back to the caller as a Response, never onto its socket.
  const runtime = req ? { name: 'node', node: { req: asTarget(req, request.path) } } : undefined
  return Object.assign(sub, { runtime, ip: outer.ip, waitUntil: outer.waitUntil })
}

/**
 * The caller's node request as seen by the sub-request: its socket, headers and marks (read
 * through the prototype), with the sub-request's own target. What is keyed by the target (the
 * hot cache) must not take a tool's answer for POST /api/mcp's.
 */
function asTarget(req: IncomingMessage, path: string): IncomingMessage {
  return Object.create(req, { url: { value: path, enumerable: true }, [FOR_AGENT]: { value: true } }) as IncomingMessage
}

/**
 * Marks a sub-request made by an MCP tool: its caller passed /api/mcp's `required` check, so it
 * is the owner; the viewer endpoints (comments) let such a caller in on drafts and private folios.
 * A symbol on the node request, set only here: no header can claim it.
 */
const FOR_AGENT = Symbol('folio.forAgent')

export function isAgentSubRequest(req: IncomingMessage | undefined): boolean {
  return Boolean(req && (req as unknown as Record<symbol, boolean>)[FOR_AGENT])
}
