import type { H3, H3Event } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { mcp, PROTECTED_RESOURCE_METADATA_PATH } from '../../api/mcp.js'
import { toolsFor } from '../../api/mcp-tools.js'
import { packageVersion } from '../../version.js'
import { readBodyBytes } from '../http/body.js'
import type { ServerContext } from '../context.js'
import { ApiError, fail } from '../http/errors.js'
import { OAUTH_SCOPE, publicOrigin } from '../auth/oauth/oauth-metadata.js'
import { subRequest } from '../http/sub-request.js'

/** What this file takes from the server's context. */
export type McpRoutesDeps = Pick<ServerContext, 'auth' | 'config'>

/**
 * The 401 of the MCP endpoint: WWW-Authenticate names the protected-resource metadata (RFC 9728),
 * which is where a stock MCP client starts OAuth.
 */
export function mcpUnauthorized(ctx: McpRoutesDeps, event: H3Event) {
  return fail(
    ERRORS.unauthorized,
    'Send Authorization: Bearer <credential>: the workspace’s API key (folio keys show prints it) or an OAuth access token. In OSS, programs on this machine need none.',
    {
      // The origin the client used (the tunnel's https URL through the tunnel): clients compare it.
      'www-authenticate': `Bearer resource_metadata="${publicOrigin(ctx, event)}${PROTECTED_RESOURCE_METADATA_PATH}", scope="${OAUTH_SCOPE}"`,
    },
  )
}

let mcpSession: Promise<typeof import('./mcp-session.js')> | undefined

/**
 * POST /api/mcp: MCP over Streamable HTTP (mcp-session.ts, loaded on the first call). The
 * caller is checked here by the server's one auth (whatever credential it accepts, this endpoint
 * accepts), then each tool runs its endpoint through the router with the caller's credential
 * (sub-request.ts).
 */
export function registerMcpRoute(app: H3, ctx: McpRoutesDeps): void {
  const limit = ctx.config.limits.jsonBodyBytes
  app.post(mcp.path, async (event) => {
    // Several instances: a credential another instance made is looked for before the refusal.
    try {
      await ctx.auth.authorizeOrRefresh(event, mcp.access)
    } catch (error) {
      throw error instanceof ApiError && error.status === 401 ? mcpUnauthorized(ctx, event) : error
    }
    const body = await readBodyBytes(event, limit, () => fail(ERRORS.payloadTooLarge, `An MCP message may hold at most ${limit} bytes.`))
    const headers = new Headers(event.req.headers)
    // The transport wants both types accepted (a client could take either); curl and plain
    // JSON-RPC callers send neither, and get the JSON they expect.
    headers.set('accept', 'application/json, text/event-stream')
    headers.delete('content-length')
    const request = new Request(event.url, { method: 'POST', headers, body: new Uint8Array(body) })
    const { answerMcp } = await (mcpSession ??= import('./mcp-session.js'))
    return answerMcp(request, {
      tools: toolsFor(ctx.config.mode),
      send: (toolRequest) => Promise.resolve(app.fetch(subRequest(event, toolRequest))),
      context: { base: publicOrigin(ctx, event) },
      version: packageVersion(),
      maxBodyBytes: limit,
    })
  })
}
