import * as oauth from 'oauth4webapi'
import { parse } from 'parse5'

/** oauth4webapi refuses http:// unless told: the test servers listen on loopback http. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const

export const REDIRECT_URI = 'http://127.0.0.1:53682/callback'

/** A public client registered by oauth4webapi after RFC 9728 + RFC 8414 discovery, from the MCP URL alone. */
export async function discoverAndRegister(base: string, metadata: Record<string, unknown> = {}) {
  const mcpUrl = new URL('/api/mcp', base)
  const rs = await oauth.processResourceDiscoveryResponse(mcpUrl, await oauth.resourceDiscoveryRequest(mcpUrl, insecure))
  const issuer = new URL(rs.authorization_servers![0]!)
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: 'Probe agent',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        ...metadata,
      },
      insecure,
    ),
  )
  const client: oauth.Client = { client_id: registered.client_id as string, token_endpoint_auth_method: 'none' }
  return { rs, as, client, registered, resource: rs.resource }
}

export interface AuthorizationStart {
  url: URL
  state: string
  verifier: string
}

/** The authorization URL a client builds: PKCE S256, state, scope, resource. */
export async function authorizationUrl(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  resource: string,
  overrides: Record<string, string> = {},
): Promise<AuthorizationStart> {
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const url = new URL(as.authorization_endpoint!)
  const params = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    scope: 'folio',
    resource,
    ...overrides,
  }
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
  return { url, state, verifier }
}

/** The consent page as a browser has it: its status, the form's fields, the cookie it set. */
export interface ConsentPage {
  status: number
  html: string
  action: string
  fields: Record<string, string>
  cookie: string
  headers: Headers
}

type Node = { nodeName: string; attrs?: Array<{ name: string; value: string }>; childNodes?: Node[] }
const attr = (node: Node, name: string) => node.attrs?.find((a) => a.name === name)?.value

/** GETs the authorization URL and reads the page's form with an HTML parser, as a browser would. */
export async function openConsent(url: URL, headers: Record<string, string> = {}): Promise<ConsentPage> {
  const response = await fetch(url, { headers, redirect: 'manual' })
  const html = await response.text()
  const fields: Record<string, string> = {}
  let action = ''
  const walk = (node: Node) => {
    if (node.nodeName === 'form') action = attr(node, 'action') ?? ''
    if (node.nodeName === 'input' && attr(node, 'type') === 'hidden') fields[attr(node, 'name')!] = attr(node, 'value') ?? ''
    for (const child of node.childNodes ?? []) walk(child)
  }
  walk(parse(html) as unknown as Node)
  const setCookie = response.headers.getSetCookie()[0]
  const cookie = setCookie ? setCookie.split(';')[0]! : (headers.cookie ?? '')
  return { status: response.status, html, action, fields, cookie, headers: response.headers }
}

/**
 * Submits the consent form with the button the person pressed (and what they typed), with the
 * cookies a browser would send and its Origin. Returns the answer unfollowed (a 302 to the client).
 */
export async function submitConsent(
  page: ConsentPage,
  base: string,
  input: { decision?: 'approve' | 'deny'; apiKey?: string; cookies?: string[]; headers?: Record<string, string> } = {},
): Promise<Response> {
  const form = new URLSearchParams({ ...page.fields, decision: input.decision ?? 'approve' })
  if (input.apiKey !== undefined) form.set('api_key', input.apiKey)
  const cookie = [page.cookie, ...(input.cookies ?? [])].filter(Boolean).join('; ')
  return fetch(new URL(page.action, base), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(base).origin, ...(cookie ? { cookie } : {}), ...input.headers },
    body: form,
  })
}

/** Consent approved through the page: the callback URL the client receives (code, state, iss). */
export async function approve(
  start: AuthorizationStart,
  base: string,
  input: Parameters<typeof submitConsent>[2] & { pageHeaders?: Record<string, string> } = {},
): Promise<URL> {
  const page = await openConsent(start.url, input.pageHeaders)
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.html.slice(0, 300)}`)
  const answer = await submitConsent(page, base, input)
  const location = answer.headers.get('location')
  if (answer.status !== 302 || !location) throw new Error(`consent: ${answer.status} ${(await answer.text()).slice(0, 300)}`)
  return new URL(location)
}

/** The whole flow up to tokens, the way oauth4webapi checks each step. */
export async function obtainTokens(base: string, input: Parameters<typeof approve>[2] = {}) {
  const found = await discoverAndRegister(base)
  const start = await authorizationUrl(found.as, found.client, found.resource)
  const callback = await approve(start, base, input)
  const params = oauth.validateAuthResponse(found.as, found.client, callback, start.state)
  const tokens = await oauth.processAuthorizationCodeResponse(
    found.as,
    found.client,
    await oauth.authorizationCodeGrantRequest(found.as, found.client, oauth.None(), params, REDIRECT_URI, start.verifier, {
      ...insecure,
      additionalParameters: { resource: found.resource },
    }),
  )
  return { ...found, start, callback, tokens }
}

/** The token endpoint asked by hand (for what a stock client would never send). */
export async function tokenRequest(base: string, form: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(new URL('/api/oauth/token', base), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  })
  return { status: response.status, body: await response.json() }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
