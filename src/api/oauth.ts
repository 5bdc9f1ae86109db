import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'

/**
 * OAuth 2.0 for third-party clients and agents (spec: Authentication 4): discovery (RFC 8414,
 * RFC 9728), dynamic registration (RFC 7591), the authorization code flow with PKCE S256 and a
 * consent page, token (rotating refresh tokens), revocation (RFC 7009), and the owner's list of
 * what was granted. The OAuth endpoints answer errors as RFC 6749 codes in `error`, with
 * `error_description` (and `message`, alike).
 */

const form = 'application/x-www-form-urlencoded'

const ProtectedResource = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
  resource_documentation: z.string(),
})

export const protectedResourceMetadata = defineContract({
  operationId: 'protectedResourceMetadata',
  method: 'GET',
  path: '/.well-known/oauth-protected-resource',
  tag: 'OAuth',
  summary: 'Protected resource metadata (RFC 9728): this server, and where to get a token',
  description:
    'The 401 of POST /api/mcp points here. `resource` is the server’s origin; the same document for the MCP endpoint is at /.well-known/oauth-protected-resource/api/mcp.',
  access: 'public',
  response: { status: 200, description: 'The metadata', schema: ProtectedResource },
  errors: [],
})

export const mcpResourceMetadata = defineContract({
  operationId: 'mcpResourceMetadata',
  method: 'GET',
  path: '/.well-known/oauth-protected-resource/api/mcp',
  tag: 'OAuth',
  summary: 'Protected resource metadata of the MCP endpoint (RFC 9728, path-suffixed)',
  access: 'public',
  response: { status: 200, description: 'The metadata (`resource` is <origin>/api/mcp)', schema: ProtectedResource },
  errors: [],
})

export const authorizationServerMetadata = defineContract({
  operationId: 'authorizationServerMetadata',
  method: 'GET',
  path: '/.well-known/oauth-authorization-server',
  tag: 'OAuth',
  summary: 'Authorization server metadata (RFC 8414)',
  description:
    'The issuer is the server’s origin (FOLIO_PUBLIC_URL, the tunnel’s URL through the tunnel). PKCE S256 only; public clients (none) and client secrets (basic, post).',
  access: 'public',
  response: { status: 200, description: 'The metadata', schema: z.record(z.string(), z.unknown()) },
  errors: [],
})

export const registerOAuthClient = defineContract({
  operationId: 'registerOAuthClient',
  method: 'POST',
  path: '/api/oauth/register',
  tag: 'OAuth',
  summary: 'Register a client (RFC 7591 dynamic client registration)',
  description:
    '`redirect_uris` (https, loopback http on any port, or a private-use scheme) is required. `token_endpoint_auth_method: "none"` registers a public client (PKCE only, what MCP clients use); otherwise a `client_secret` is issued.',
  access: 'public',
  rateLimit: 'auth',
  rawBody: {
    contentType: 'application/json',
    description: 'Client metadata',
    schema: z.object({
      redirect_uris: z.array(z.string()),
      client_name: z.string().optional(),
      client_uri: z.string().optional(),
      token_endpoint_auth_method: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional(),
      grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
      response_types: z.array(z.literal('code')).optional(),
    }),
  },
  response: { status: 201, description: 'The client as registered, with its client_id (and client_secret)', schema: z.record(z.string(), z.unknown()) },
  errors: [ERRORS.oauthInvalidRedirectUri, ERRORS.oauthInvalidClientMetadata, ERRORS.tooManyRequests],
})

export const authorizeOAuth = defineContract({
  operationId: 'authorizeOAuth',
  method: 'GET',
  path: '/api/oauth/authorize',
  tag: 'OAuth',
  summary: 'Start the authorization code flow: the consent page',
  description:
    'Query: response_type=code, client_id, redirect_uri (as registered; a loopback port may differ), code_challenge + code_challenge_method=S256, state, scope (folio), resource (optional: this server or its /api/mcp). The page says which client, which workspace, what it may do. In Cloud the person signs in first (the session cookie) or pastes the workspace key; in OSS the local owner approves from this machine (or with the key). A bad client or redirect URI is an error page; other errors go back to the redirect URI.',
  access: 'public',
  rateLimit: 'auth',
  response: { status: 200, description: 'The consent page', contentType: 'text/html' },
  errors: [when(ERRORS.oauthInvalidRequest, 'Unknown client_id or unregistered redirect_uri: an error page, no redirect'), ERRORS.tooManyRequests],
})

export const approveOAuth = defineContract({
  operationId: 'approveOAuth',
  method: 'POST',
  path: '/api/oauth/authorize',
  tag: 'OAuth',
  summary: 'The consent page’s form: approve or deny',
  description:
    'Only the consent page posts it (its request_id and CSRF token, with the cookie the page set). Approved: 302 to redirect_uri with code, state and iss; denied: error=access_denied.',
  access: 'public',
  rateLimit: 'auth',
  rawBody: { contentType: form, description: 'request_id, csrf, decision (approve | deny), api_key (when not signed in)' },
  response: { status: 302, description: 'Back to the client’s redirect URI' },
  errors: [
    when(ERRORS.oauthInvalidRequest, 'The request expired, was answered already, or the CSRF token does not match'),
    ERRORS.unauthorized,
    ERRORS.tooManyRequests,
  ],
})

export const oauthToken = defineContract({
  operationId: 'oauthToken',
  method: 'POST',
  path: '/api/oauth/token',
  tag: 'OAuth',
  summary: 'Exchange a code (with its PKCE verifier) or a refresh token for tokens',
  description:
    'grant_type=authorization_code (code, code_verifier, redirect_uri, client_id) or refresh_token (refresh_token, client_id). Codes are single-use and live 5 minutes; a reused code revokes the tokens it gave. Refresh tokens rotate: each use returns a new one. A replaced one presented again by its client within 60 seconds returns the same new pair (connections that share a token may refresh at once); later, it revokes the grant. Every answer has expires_in. The access token (Bearer, 1 hour) works on every protected endpoint, in the workspace that approved it.',
  access: 'public',
  rateLimit: 'auth',
  rawBody: { contentType: form, description: 'The grant' },
  response: {
    status: 200,
    description: 'Tokens',
    schema: z.object({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number(), refresh_token: z.string(), scope: z.string() }),
  },
  errors: [
    ERRORS.oauthInvalidRequest,
    ERRORS.oauthInvalidClient,
    ERRORS.oauthInvalidGrant,
    ERRORS.oauthUnauthorizedClient,
    ERRORS.oauthUnsupportedGrantType,
    ERRORS.oauthInvalidTarget,
    ERRORS.tooManyRequests,
  ],
})

export const revokeOAuthToken = defineContract({
  operationId: 'revokeOAuthToken',
  method: 'POST',
  path: '/api/oauth/revoke',
  tag: 'OAuth',
  summary: 'Revoke a token (RFC 7009): its whole grant ends',
  description: 'token (an access or refresh token of this client), token_type_hint optional. Answers 200 whether or not the token was known.',
  access: 'public',
  rateLimit: 'auth',
  rawBody: { contentType: form, description: 'token, token_type_hint, client authentication' },
  response: { status: 200, description: 'Revoked (or never known)' },
  errors: [ERRORS.oauthInvalidRequest, ERRORS.oauthInvalidClient, ERRORS.tooManyRequests],
})

export const OAuthGrantView = z.object({
  id: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  approvedBy: z.string().nullable().describe('The member who approved (null: the key holder, or the local owner in OSS)'),
  role: z.enum(['owner', 'admin', 'member']),
  scope: z.string(),
  createdAt: z.string(),
  current: z.boolean().describe('The grant of the token making this request'),
})

export const listOAuthGrants = defineContract({
  operationId: 'listOAuthGrants',
  method: 'GET',
  path: '/api/oauth/grants',
  tag: 'OAuth',
  summary: 'The OAuth clients this workspace authorized, newest first',
  description:
    'Owner or Admin (an OAuth token: its own grant only). Rotating or revoking the workspace key ends every grant (its clients must be approved again).',
  access: 'required',
  response: { status: 200, description: 'Live grants', schema: z.object({ grants: z.array(OAuthGrantView) }) },
  errors: [ERRORS.unauthorized, ERRORS.forbidden],
})

export const revokeOAuthGrant = defineContract({
  operationId: 'revokeOAuthGrant',
  method: 'DELETE',
  path: '/api/oauth/grants/{grantId}',
  tag: 'OAuth',
  summary: 'Revoke a client’s authorization: its tokens stop working at once',
  description: 'Owner or Admin; a token may revoke its own grant.',
  access: 'required',
  params: z.object({ grantId: z.string().max(100) }),
  response: { status: 200, description: 'Revoked', schema: z.object({ success: z.literal(true) }) },
  errors: [ERRORS.unauthorized, ERRORS.forbidden, ERRORS.grantNotFound],
})
