import type { H3Event } from 'h3'
import type { ServerContext } from '../../context.js'
import { CLIENT_AUTH_METHODS } from './oauth-clients.js'
import { nodeRequest, viaTunnel } from '../../http/remote.js'

/** The one scope: a token acts in its workspace as the member who approved it. */
export const OAUTH_SCOPE = 'folio'
export const MCP_PATH = '/api/mcp'

/**
 * The origin the client reached us at: the issuer, the resource, every metadata URL and the
 * callback's `iss` are built from it, and clients compare them exactly (oauth4webapi checks the
 * issuer, the MCP SDK the resource's origin). FOLIO_PUBLIC_URL when a proxy stands in front; the
 * tunnel's https URL for a request through the tunnel (whose Host arrives over plain http);
 * else the URL of the request itself (127.0.0.1 and localhost are different issuers).
 */
export function publicOrigin(ctx: Pick<ServerContext, 'config' | 'tunnel'>, event: H3Event): string {
  if (ctx.config.publicUrl) return ctx.config.publicUrl
  if (viaTunnel(nodeRequest(event))) {
    const tunnelUrl = ctx.tunnel?.status().url
    if (tunnelUrl) return new URL(tunnelUrl).origin
  }
  return event.url.origin
}

/**
 * The audiences a token of this server may be asked for (RFC 8707 `resource`): the server as a
 * whole (the root metadata's resource) or its MCP endpoint (the path-suffixed metadata's). The
 * token works on every protected endpoint either way: one server, one workspace.
 */
export function isOwnResource(origin: string, resource: string): boolean {
  let url: URL
  try {
    url = new URL(resource)
  } catch {
    return false
  }
  return url.origin === origin && !url.search && !url.hash && (url.pathname === '/' || url.pathname === MCP_PATH)
}

/** RFC 9728: for the server (`resource` = origin) or, path-suffixed, for its MCP endpoint. */
export function protectedResourceMetadata(origin: string, resource: string) {
  return {
    resource,
    authorization_servers: [origin],
    scopes_supported: [OAUTH_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'folio',
    resource_documentation: `${origin}/api/openapi`,
  }
}

/** RFC 8414: the issuer is the bare origin, so clients find this at the root well-known path. */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/api/oauth/authorize`,
    token_endpoint: `${origin}/api/oauth/token`,
    registration_endpoint: `${origin}/api/oauth/register`,
    revocation_endpoint: `${origin}/api/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    // S256 only: MCP clients refuse a server that does not say so (2025-11-25).
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    scopes_supported: [OAUTH_SCOPE],
    // RFC 9207: the callback carries iss, against mix-up attacks.
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${origin}/api/openapi`,
  }
}
