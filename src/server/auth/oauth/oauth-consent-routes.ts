import { randomUUID } from 'node:crypto'
import type { H3, H3Event } from 'h3'
import { approveOAuth, authorizeOAuth } from '../../../api/oauth.js'
import { DENIED, type Principal } from '../auth.js'
import { secretsEqual } from '../auth-secrets.js'
import type { ServerContext } from '../../context.js'
import { newToken, tokenHash } from '../credential-index.js'
import { ApiError } from '../../http/errors.js'
import type { OAuthClient } from './oauth-clients.js'
import { consentPage, oauthErrorPage, PAGE_HEADERS, reloadPage } from './oauth-consent-page.js'
import { readForm } from './oauth-http.js'
import { isOwnResource, OAUTH_SCOPE, publicOrigin } from './oauth-metadata.js'
import { redirectUriRegistered } from './oauth-redirects.js'
import { nodeRequest } from '../../http/remote.js'
import { applyRateLimit, type RouteDeps } from '../../route.js'
import { readCookie } from '../viewer-access.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type OauthConsentRoutesDeps = RouteDeps & Pick<ServerContext, 'oauth' | 'shared' | 'store'>

/** An authorization request waiting for the person's answer (kept server-side, not in the form). */
interface PendingAuthorization {
  clientId: string
  clientName: string
  redirectUri: string
  state?: string
  codeChallenge: string
  scope: string
  /** sha256 of the CSRF token the page's form and its cookie both carry. */
  csrfHash: string
}

const PENDING_MS = 10 * 60_000
/** Binds the form to the browser that loaded the page: SameSite=Strict, so no other site's POST carries it. */
const CSRF_COOKIE = 'folio_oauth_csrf'
/** Credentials that may approve: the local owner, the workspace key, a person signed in. Not a token, not an unclaimed agent. */
const MAY_APPROVE: ReadonlySet<Principal['via']> = new Set(['open', 'api-key', 'session'])

const html = (body: string, status = 200, headers: Record<string, string> = {}) => new Response(body, { status, headers: { ...PAGE_HEADERS, ...headers } })

/** Back to the client (RFC 6749 §4.1.2), with state and iss (RFC 9207) always. */
function redirectBack(redirectUri: string, params: Record<string, string | undefined>): Response {
  const url = new URL(redirectUri)
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value)
  return new Response(null, { status: 302, headers: { location: url.href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } })
}

/** GET /api/oauth/authorize (the consent page) and its form's POST. */
export function registerOAuthConsentRoutes(app: H3, ctx: OauthConsentRoutesDeps): void {
  const { clients, grants } = ctx.oauth
  const secure = (event: H3Event) => publicOrigin(ctx, event).startsWith('https:')

  /** Who would approve: the session, the local owner's open API, or the key pasted in the form. */
  const approverOf = (event: H3Event, apiKey: string | undefined): Principal | undefined => {
    const headers = ctx.auth.credentialsOf(nodeRequest(event))
    const principal = ctx.auth.resolve({ ...headers, authorization: apiKey ? `Bearer ${apiKey}` : undefined }, 'required')
    return principal !== DENIED && principal && MAY_APPROVE.has(principal.via) ? principal : undefined
  }

  const render = (event: H3Event, client: Pick<OAuthClient, 'name' | 'id'>, redirectUri: string, requestId: string, csrf: string, problem?: string) => {
    const approver = approverOf(event, undefined)
    const workspace = approver && (ctx.config.mode === 'cloud' ? ctx.store.workspaces.get(approver.workspaceId)?.name : 'this folio server')
    return consentPage({
      clientName: client.name ?? `Unnamed client ${client.id.slice(0, 8)}`,
      redirectHost: new URL(redirectUri).host || redirectUri,
      origin: publicOrigin(ctx, event),
      requestId,
      csrf,
      approver: approver && { workspace: workspace ?? approver.workspaceId, who: approver.email ?? approver.name, role: approver.role },
      mode: ctx.config.mode,
      problem,
    })
  }

  app.get(authorizeOAuth.path, async (event) => {
    // Each page keeps a pending request for 10 minutes: bounded per client.
    await applyRateLimit(ctx, event, 'auth')
    const query = event.url.searchParams
    const client = await clients.get(query.get('client_id') ?? undefined)
    const redirectUri = query.get('redirect_uri')
    // Never redirect anywhere before the client and its redirect URI are known (RFC 6749 §4.1.2.1).
    if (!client) return html(oauthErrorPage('Unknown application', 'This client_id is not registered here (or was registered with another folio server).'), 400)
    if (!redirectUri || !redirectUriRegistered(client.redirectUris, redirectUri)) {
      return html(oauthErrorPage('Unknown redirect address', 'redirect_uri is missing or is not one the application registered.'), 400)
    }
    const state = query.get('state') ?? undefined
    const origin = publicOrigin(ctx, event)
    const back = (error: string, description: string) => redirectBack(redirectUri, { error, error_description: description, state, iss: origin })
    if (query.get('response_type') !== 'code') return back('unsupported_response_type', 'response_type must be code.')
    const challenge = query.get('code_challenge')
    if (query.get('code_challenge_method') !== 'S256' || !challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return back('invalid_request', 'PKCE is required: code_challenge (S256 of the verifier, base64url) and code_challenge_method=S256.')
    }
    const scopes = (query.get('scope') ?? OAUTH_SCOPE).split(' ').filter(Boolean)
    if (scopes.some((s) => s !== OAUTH_SCOPE)) return back('invalid_scope', `The only scope is ${OAUTH_SCOPE}.`)
    const resource = query.get('resource')
    if (resource !== null && !isOwnResource(origin, resource)) return back('invalid_target', `resource must be ${origin} or ${origin}/api/mcp.`)
    if (!client.grantTypes.includes('authorization_code')) return back('unauthorized_client', 'This client did not register the authorization_code grant.')

    // A navigation from another site (the agent's web page) brings no SameSite=Strict sign-in
    // cookie: reload once from our own page, which does (Cloud; OSS has no sessions).
    if (ctx.config.mode === 'cloud' && event.req.headers.get('sec-fetch-site') === 'cross-site' && !query.has('reloaded')) {
      query.set('reloaded', '1')
      return html(reloadPage(`${event.url.pathname}?${query}`))
    }
    // One CSRF token per browser (two tabs of consent both work), in a cookie and in the form.
    const known = readCookie(event.req.headers.get('cookie'), CSRF_COOKIE)
    const csrf = known && /^[0-9a-f]{48}$/.test(known) ? known : newToken('')
    const requestId = randomUUID()
    const pending: PendingAuthorization = {
      clientId: client.id,
      clientName: client.name ?? '',
      redirectUri,
      state,
      codeChallenge: challenge,
      scope: OAUTH_SCOPE,
      csrfHash: tokenHash(csrf),
    }
    await ctx.shared.set(`oauth:request:${requestId}`, pending, Date.now() + PENDING_MS)
    const cookie = `${CSRF_COOKIE}=${csrf}; Path=/api/oauth; Max-Age=${PENDING_MS / 1000}; HttpOnly; SameSite=Strict${secure(event) ? '; Secure' : ''}`
    return html(render(event, client, redirectUri, requestId, csrf), 200, { 'set-cookie': cookie })
  })

  app.post(approveOAuth.path, async (event) => {
    await applyRateLimit(ctx, event, 'auth')
    let form: URLSearchParams
    try {
      form = await readForm(event)
    } catch (error) {
      if (error instanceof ApiError) return html(oauthErrorPage('Bad request', error.detail ?? error.error), error.status)
      throw error
    }
    const requestId = form.get('request_id') ?? ''
    const key = `oauth:request:${requestId}`
    const found = /^[0-9a-f-]{36}$/.test(requestId) ? await ctx.shared.get<PendingAuthorization>(key) : undefined
    if (!found) return html(oauthErrorPage('This request has expired', 'It was answered already, or is more than 10 minutes old.'), 400)
    const pending = found.value
    const csrf = form.get('csrf') ?? ''
    const cookie = readCookie(event.req.headers.get('cookie'), CSRF_COOKIE)
    if (!csrf || cookie !== csrf || !secretsEqual(tokenHash(csrf), pending.csrfHash)) {
      return html(
        oauthErrorPage('Not sent from the consent page', 'The form did not come with this browser’s consent page: open the link from the application again.'),
        403,
      )
    }
    const origin = publicOrigin(ctx, event)
    const decision = form.get('decision')
    const approver = decision === 'approve' ? approverOf(event, form.get('api_key') || undefined) : undefined
    if (decision === 'approve' && !approver) {
      const problem = form.get('api_key') ? 'That key is not valid here.' : 'Approving needs the workspace’s API key (or, in Cloud, signing in first).'
      return html(render(event, { id: pending.clientId, name: pending.clientName || undefined }, pending.redirectUri, requestId, csrf, problem), 401)
    }
    // Answered once: of two submissions, one takes the request.
    if (!(await ctx.shared.delete(key, found.version))) return html(oauthErrorPage('This request has expired', 'It was answered already.'), 400)
    if (!approver)
      return redirectBack(pending.redirectUri, { error: 'access_denied', error_description: 'The request was denied.', state: pending.state, iss: origin })
    const code = await grants.issueCode({
      clientId: pending.clientId,
      clientName: pending.clientName || `Unnamed client ${pending.clientId.slice(0, 8)}`,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      scope: pending.scope,
      approver: { workspaceId: approver.workspaceId, email: approver.email, role: approver.role, name: approver.name },
    })
    return redirectBack(pending.redirectUri, { code, state: pending.state, iss: origin })
  })
}
