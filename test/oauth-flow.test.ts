import { readdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import * as oauth from 'oauth4webapi'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { createFolio, getFolio, listFolios } from '../src/api/files.js'
import { getKey, rotateKey } from '../src/api/keys.js'
import { authorizationServerMetadata, listOAuthGrants, protectedResourceMetadata, revokeOAuthGrant } from '../src/api/oauth.js'
import { defaultConfig } from '../src/server/config.js'
import type { StoreRepositories } from '../src/store/assemble-store.js'
import { testApi } from './helpers/api.js'
import { runCli } from './helpers/cli.js'
import { lanAddresses } from './helpers/cli-process.js'
import { instanceServers } from './helpers/instance-servers.js'
import { startInstances } from './helpers/instances.js'
import {
  approve,
  authorizationUrl,
  bearer,
  discoverAndRegister,
  insecure,
  obtainTokens,
  openConsent,
  REDIRECT_URI,
  submitConsent,
  tokenRequest,
} from './helpers/oauth.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean, expectCleanLog, useServer } from './helpers/use-server.js'

/** A replaced refresh token's grace period (config oauthRefreshGraceSeconds, 60 by default). */
const GRACE_MS = defaultConfig().oauthRefreshGraceSeconds * 1000

/**
 * OAuth 2.0 in OSS, driven by oauth4webapi (a strict, independent client): discovery, dynamic
 * registration, the consent page approved through its form by the local owner, the code with
 * PKCE, refresh rotation, revocation; and every way a code or token must be refused.
 */
describe('OAuth in OSS, with oauth4webapi', () => {
  const s = useServer({ config: { rateLimits: { auth: 10_000 } } })
  const base = () => s.ts.url
  afterEach(() => {
    vi.useRealTimers()
  })

  it('publishes discovery documents whose issuer and resource are the origin the client used', async () => {
    const root = await s.api.send(protectedResourceMetadata)
    expect(root.status).toBe(200)
    expect(root.body).toMatchObject({ resource: base(), authorization_servers: [base()], scopes_supported: ['folio'] })
    expect(root.headers.get('access-control-allow-origin')).toBe('*')
    const as = await s.api.send(authorizationServerMetadata)
    expect(as.body).toMatchObject({ issuer: base(), code_challenge_methods_supported: ['S256'], registration_endpoint: `${base()}/api/oauth/register` })
    // Reached as localhost, the server is another issuer: oauth4webapi compares them exactly.
    const viaLocalhost = base().replace('127.0.0.1', 'localhost')
    const other = await testApi(viaLocalhost).send(authorizationServerMetadata)
    expect(other.body.issuer).toBe(viaLocalhost)
  })

  it('runs the whole flow: register, consent, code + PKCE, use, refresh with rotation, revoke', async () => {
    const flow = await obtainTokens(base())
    expect(flow.registered).toMatchObject({ client_name: 'Probe agent', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' })
    expect(flow.callback.searchParams.get('iss')).toBe(base())
    const { tokens } = flow
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'folio' })
    expect(tokens.access_token).toMatch(/^folio_at_[0-9a-f]{48}$/)

    // The token is the credential: folio writes made with it, and a wrong token is refused.
    const created = await s.api.send(createFolio, { body: { title: 'By the agent' }, headers: bearer(tokens.access_token) })
    expect(created.status).toBe(201)
    expect((await s.api.send(listFolios, { headers: bearer(`folio_at_${'0'.repeat(48)}`) })).status).toBe(401)

    // An application works with folios, never with the key.
    expect((await s.api.send(getKey, { headers: bearer(tokens.access_token) })).status).toBe(403)
    expect((await s.api.send(rotateKey, { headers: bearer(tokens.access_token) })).status).toBe(403)

    // The owner sees the grant.
    const grants = await s.api.send(listOAuthGrants)
    expect(grants.body.grants).toEqual([expect.objectContaining({ clientId: flow.client.client_id, clientName: 'Probe agent', role: 'owner', current: false })])
    expect((await s.api.send(listOAuthGrants, { headers: bearer(tokens.access_token) })).body.grants[0].current).toBe(true)

    // Refresh: a new pair; the replaced refresh token presented again at once gets that pair
    // again (the grace period), and after the grace period revokes the grant.
    const refreshed = await oauth.processRefreshTokenResponse(
      flow.as,
      flow.client,
      await oauth.refreshTokenGrantRequest(flow.as, flow.client, oauth.None(), tokens.refresh_token!, {
        ...insecure,
        additionalParameters: { resource: flow.resource },
      }),
    )
    expect(refreshed).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'folio' })
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    expect((await s.api.send(listFolios, { headers: bearer(refreshed.access_token) })).status).toBe(200)
    const retried = await oauth.processRefreshTokenResponse(
      flow.as,
      flow.client,
      await oauth.refreshTokenGrantRequest(flow.as, flow.client, oauth.None(), tokens.refresh_token!, insecure),
    )
    expect([retried.access_token, retried.refresh_token]).toEqual([refreshed.access_token, refreshed.refresh_token])
    expect(retried.expires_in).toEqual(expect.any(Number))
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + GRACE_MS + 1_000 })
    const replay = await oauth.refreshTokenGrantRequest(flow.as, flow.client, oauth.None(), tokens.refresh_token!, insecure)
    const refused = await oauth.processRefreshTokenResponse(flow.as, flow.client, replay).catch((e) => e)
    expect(refused).toBeInstanceOf(oauth.ResponseBodyError)
    expect(refused.cause).toMatchObject({ error: 'invalid_grant' })
    expect((await s.api.send(listFolios, { headers: bearer(refreshed.access_token) })).status).toBe(401)
    expect((await s.api.send(listOAuthGrants)).body.grants).toEqual([])
  })

  it('answers parallel refreshes with one refresh token alike: the same new pair, and the grant keeps working', async () => {
    const flow = await obtainTokens(base())
    const refresh = async (token: string) =>
      oauth.processRefreshTokenResponse(
        flow.as,
        flow.client,
        await oauth.refreshTokenGrantRequest(flow.as, flow.client, oauth.None(), token, { ...insecure, additionalParameters: { resource: flow.resource } }),
      )
    // Several connections of one client (MCP sessions of one app) share the token and refresh at once.
    const answers = await Promise.all([1, 2, 3, 4].map(() => refresh(flow.tokens.refresh_token!)))
    const [first] = answers
    expect(first!.refresh_token).not.toBe(flow.tokens.refresh_token)
    for (const answer of answers) {
      expect([answer.access_token, answer.refresh_token]).toEqual([first!.access_token, first!.refresh_token])
      expect(answer.expires_in).toBeGreaterThan(3590)
      expect(answer.expires_in).toBeLessThanOrEqual(3600)
    }
    // One grant, working: the new access token, and the new refresh token refreshes again.
    expect((await s.api.send(listFolios, { headers: bearer(first!.access_token) })).status).toBe(200)
    const grants = (await s.api.send(listOAuthGrants)).body.grants.filter((g: { clientId: string }) => g.clientId === flow.client.client_id)
    expect(grants).toHaveLength(1)
    const next = await refresh(first!.refresh_token!)
    expect(next).toMatchObject({ expires_in: 3600 })
    expect(next.refresh_token).not.toBe(first!.refresh_token)
    expect((await s.api.send(listFolios, { headers: bearer(next.access_token) })).status).toBe(200)
  })

  it('gives the grace period to the same client only, and a replaced token reused after it revokes the grant', async () => {
    const flow = await obtainTokens(base())
    const refreshed = await tokenRequest(base(), { grant_type: 'refresh_token', refresh_token: flow.tokens.refresh_token!, client_id: flow.client.client_id })
    expect([refreshed.status, refreshed.body.expires_in]).toEqual([200, 3600])
    // Another client presenting it gets nothing, and changes nothing.
    const other = await discoverAndRegister(base())
    const stranger = await tokenRequest(base(), { grant_type: 'refresh_token', refresh_token: flow.tokens.refresh_token!, client_id: other.client.client_id })
    expect([stranger.status, stranger.body.error]).toEqual([400, 'invalid_grant'])
    expect((await s.api.send(listFolios, { headers: bearer(refreshed.body.access_token) })).status).toBe(200)
    // Within the grace period (59 s later): the same pair, its access token's time left.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + GRACE_MS - 1_000 })
    const again = await tokenRequest(base(), { grant_type: 'refresh_token', refresh_token: flow.tokens.refresh_token!, client_id: flow.client.client_id })
    expect(again.status).toBe(200)
    expect([again.body.access_token, again.body.refresh_token]).toEqual([refreshed.body.access_token, refreshed.body.refresh_token])
    expect(again.body.expires_in).toBeLessThanOrEqual(3600 - 58)
    // Past it: reuse detection, as before the grace period existed.
    vi.setSystemTime(Date.now() + 2_000)
    const late = await tokenRequest(base(), { grant_type: 'refresh_token', refresh_token: flow.tokens.refresh_token!, client_id: flow.client.client_id })
    expect([late.status, late.body.error]).toEqual([400, 'invalid_grant'])
    expect(late.body.error_description).toMatch(/revoked/)
    expect((await s.api.send(listFolios, { headers: bearer(refreshed.body.access_token) })).status).toBe(401)
    const next = await tokenRequest(base(), { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, client_id: flow.client.client_id })
    expect([next.status, next.body.error]).toEqual([400, 'invalid_grant'])
  })

  it('revokes (RFC 7009): the refresh token and its access token stop at once', async () => {
    const flow = await obtainTokens(base())
    expect((await s.api.send(listFolios, { headers: bearer(flow.tokens.access_token) })).status).toBe(200)
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(flow.as, flow.client, oauth.None(), flow.tokens.refresh_token!, {
        ...insecure,
        additionalParameters: { token_type_hint: 'refresh_token' },
      }),
    )
    expect((await s.api.send(listFolios, { headers: bearer(flow.tokens.access_token) })).status).toBe(401)
    const again = await tokenRequest(base(), { grant_type: 'refresh_token', refresh_token: flow.tokens.refresh_token!, client_id: flow.client.client_id })
    expect([again.status, again.body.error]).toEqual([400, 'invalid_grant'])
    // Unknown tokens are answered alike (RFC 7009 §2.2).
    await oauth.processRevocationResponse(await oauth.revocationRequest(flow.as, flow.client, oauth.None(), 'folio_rt_nothing', insecure))
  })

  it('refuses a wrong PKCE verifier, a reused code (revoking what it gave) and another redirect_uri', async () => {
    const found = await discoverAndRegister(base())
    const exchange = async (code: string, verifier: string, redirectUri = REDIRECT_URI) =>
      tokenRequest(base(), { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: found.client.client_id })

    const first = await authorizationUrl(found.as, found.client, found.resource)
    const code = (await approve(first, base())).searchParams.get('code')!
    const wrongVerifier = await exchange(code, oauth.generateRandomCodeVerifier())
    expect([wrongVerifier.status, wrongVerifier.body.error]).toEqual([400, 'invalid_grant'])
    expect(wrongVerifier.body.error_description).toMatch(/PKCE/)
    const otherRedirect = await exchange(code, first.verifier, 'http://127.0.0.1:53682/other')
    expect([otherRedirect.status, otherRedirect.body.error]).toEqual([400, 'invalid_grant'])
    const noVerifier = await tokenRequest(base(), { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: found.client.client_id })
    expect([noVerifier.status, noVerifier.body.error]).toEqual([400, 'invalid_request'])

    const good = await exchange(code, first.verifier)
    expect(good.status).toBe(200)
    expect((await s.api.send(listFolios, { headers: bearer(good.body.access_token) })).status).toBe(200)
    const reused = await exchange(code, first.verifier)
    expect([reused.status, reused.body.error]).toEqual([400, 'invalid_grant'])
    expect((await s.api.send(listFolios, { headers: bearer(good.body.access_token) })).status).toBe(401)
    const refresh = await tokenRequest(base(), { grant_type: 'refresh_token', refresh_token: good.body.refresh_token, client_id: found.client.client_id })
    expect(refresh.body.error).toBe('invalid_grant')
  })

  it('checks the client and redirect URI before redirecting anywhere; a loopback port may vary (RFC 8252)', async () => {
    const found = await discoverAndRegister(base())
    const elsewhere = await authorizationUrl(found.as, found.client, found.resource, { redirect_uri: 'https://evil.example/callback' })
    const page = await openConsent(elsewhere.url)
    expect(page.status).toBe(400)
    expect(page.html).toContain('Unknown redirect address')
    const otherPath = await openConsent((await authorizationUrl(found.as, found.client, found.resource, { redirect_uri: 'http://127.0.0.1:53682/other' })).url)
    expect(otherPath.status).toBe(400)
    const unknownClient = await openConsent((await authorizationUrl(found.as, { client_id: 'nobody' }, found.resource)).url)
    expect([unknownClient.status, unknownClient.html.includes('Unknown application')]).toEqual([400, true])

    // Another port of the same loopback URI: accepted, and the code is bound to that exact URI.
    const port61000 = 'http://127.0.0.1:61000/callback'
    const moved = await authorizationUrl(found.as, found.client, found.resource, { redirect_uri: port61000 })
    const callback = await approve(moved, base())
    expect(callback.origin + callback.pathname).toBe(port61000)
    const token = await tokenRequest(base(), {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      code_verifier: moved.verifier,
      redirect_uri: port61000,
      client_id: found.client.client_id,
    })
    expect(token.status).toBe(200)

    // Errors after that go back to the client with state and iss: no PKCE, plain PKCE, another resource.
    for (const [overrides, error] of [
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: '' }, 'invalid_request'],
      [{ resource: 'https://other.example/api/mcp' }, 'invalid_target'],
      [{ scope: 'admin' }, 'invalid_scope'],
    ] as const) {
      const start = await authorizationUrl(found.as, found.client, found.resource, overrides)
      const answer = await fetch(start.url, { redirect: 'manual' })
      const location = new URL(answer.headers.get('location')!)
      expect([answer.status, location.searchParams.get('error'), location.searchParams.get('state'), location.searchParams.get('iss')]).toEqual([
        302,
        error,
        start.state,
        base(),
      ])
    }
  })

  it('registers only redirect URIs a code may safely go to, and confidential clients with a secret', async () => {
    const register = (body: object) =>
      fetch(new URL('/api/oauth/register', base()), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as any }),
      )
    for (const uri of ['http://example.com/cb', 'https://app.example/cb#frag', 'javascript:alert(1)', 'not a uri']) {
      const refused = await register({ redirect_uris: [uri], token_endpoint_auth_method: 'none' })
      expect([uri, refused.status, refused.body.error]).toEqual([uri, 400, 'invalid_redirect_uri'])
    }
    expect((await register({ token_endpoint_auth_method: 'none' })).body.error).toBe('invalid_redirect_uri')
    expect((await register({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'private_key_jwt' })).body.error).toBe('invalid_client_metadata')
    for (const uri of ['https://app.example/cb', 'http://[::1]:8080/cb', 'http://localhost/cb', 'com.example.app:/oauth']) {
      expect((await register({ redirect_uris: [uri], token_endpoint_auth_method: 'none' })).status).toBe(201)
    }
    // Confidential: a secret that oauth4webapi's ClientSecretBasic then authenticates with.
    const found = await discoverAndRegister(base(), { token_endpoint_auth_method: 'client_secret_basic' })
    expect(found.registered).toMatchObject({ client_secret: expect.stringMatching(/^folio_cs_/), client_secret_expires_at: 0 })
    const client: oauth.Client = { client_id: found.client.client_id, token_endpoint_auth_method: 'client_secret_basic' }
    const start = await authorizationUrl(found.as, client, found.resource)
    const params = oauth.validateAuthResponse(found.as, client, await approve(start, base()), start.state)
    const basic = oauth.ClientSecretBasic(found.registered.client_secret as string)
    const tokens = await oauth.processAuthorizationCodeResponse(
      found.as,
      client,
      await oauth.authorizationCodeGrantRequest(found.as, client, basic, params, REDIRECT_URI, start.verifier, insecure),
    )
    expect(tokens.access_token).toMatch(/^folio_at_/)
    const wrongSecret = await oauth.refreshTokenGrantRequest(found.as, client, oauth.ClientSecretBasic('folio_cs_wrong'), tokens.refresh_token!, insecure)
    expect([wrongSecret.status, wrongSecret.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="folio"'])
    // Without the secret (as if it were public): refused too.
    const noSecret = await tokenRequest(base(), { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.client_id })
    expect([noSecret.status, noSecret.body.error]).toEqual([401, 'invalid_client'])
  })

  it('denies: access_denied goes back with the state, and the request cannot be answered twice', async () => {
    const found = await discoverAndRegister(base())
    const start = await authorizationUrl(found.as, found.client, found.resource)
    const page = await openConsent(start.url)
    const denied = await submitConsent(page, base(), { decision: 'deny' })
    const location = new URL(denied.headers.get('location')!)
    expect([location.searchParams.get('error'), location.searchParams.get('state')]).toEqual(['access_denied', start.state])
    const twice = await submitConsent(page, base())
    expect(twice.status).toBe(400)
  })

  it('takes the form only from the page it served: the CSRF cookie, and never another site’s page', async () => {
    const found = await discoverAndRegister(base())
    const page = await openConsent((await authorizationUrl(found.as, found.client, found.resource)).url)
    expect(page.cookie).toMatch(/^folio_oauth_csrf=[0-9a-f]{48}$/)
    const noCookie = await submitConsent({ ...page, cookie: '' }, base())
    expect(noCookie.status).toBe(403)
    // Another site's page posting the form: OSS's open API does not take it as the local owner.
    const foreign = await submitConsent(page, base(), { headers: { origin: 'https://evil.example' } })
    expect([foreign.status, foreign.headers.get('location')]).toEqual([401, null])
    // The page itself cannot be framed (clickjacking), and runs no script.
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
  })

  it('folio oauth lists the grants and revokes one', async () => {
    const flow = await obtainTokens(base())
    const listed = await runCli(['--server', base(), 'oauth', '--json'])
    const grant = listed.json().find((g: { clientId: string }) => g.clientId === flow.client.client_id)
    expect(grant).toMatchObject({ clientName: 'Probe agent', approvedBy: null, role: 'owner' })
    const table = await runCli(['--server', base(), 'oauth'])
    expect(table.stdout).toContain(grant.id)
    const revoked = await runCli(['--server', base(), 'oauth', 'revoke', grant.id])
    expect([revoked.code, revoked.stdout.trim()]).toEqual([0, `Revoked ${grant.id}: its tokens no longer work.`])
    expect((await s.api.send(listFolios, { headers: bearer(flow.tokens.access_token) })).status).toBe(401)
    const again = await runCli(['--server', base(), 'oauth', 'revoke', grant.id, '--json'])
    expect([again.code, again.json().error]).toEqual([1, 'Grant not found'])
    expect((await runCli(['--server', base(), 'oauth', 'revoke'])).code).toBe(2)
  })

  it('ends every third-party token when the key is rotated', async () => {
    const flow = await obtainTokens(base())
    expect((await s.api.send(listFolios, { headers: bearer(flow.tokens.access_token) })).status).toBe(200)
    expect((await s.api.send(rotateKey)).status).toBe(200)
    expect((await s.api.send(listFolios, { headers: bearer(flow.tokens.access_token) })).status).toBe(401)
    const refresh = await tokenRequest(base(), { grant_type: 'refresh_token', refresh_token: flow.tokens.refresh_token!, client_id: flow.client.client_id })
    expect(refresh.body.error).toBe('invalid_grant')
  })
})

describe('OAuth codes expire', () => {
  const s = useServer({ config: { rateLimits: { auth: 10_000 }, oauthCodeSeconds: 1 } })

  it('refuses a code past its lifetime', async () => {
    const found = await discoverAndRegister(s.ts.url)
    const start = await authorizationUrl(found.as, found.client, found.resource)
    const code = (await approve(start, s.ts.url)).searchParams.get('code')!
    // Past the code's 1 s without waiting it out: the clock (Date only) moves on.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1_200 })
    try {
      const late = await tokenRequest(s.ts.url, {
        grant_type: 'authorization_code',
        code,
        code_verifier: start.verifier,
        redirect_uri: REDIRECT_URI,
        client_id: found.client.client_id,
      })
      expect([late.status, late.body.error]).toEqual([400, 'invalid_grant'])
    } finally {
      vi.useRealTimers()
    }
  })
})

/**
 * From another machine the open API is closed: the consent page asks for the key, and the token
 * it gives then works from there without the key (the same rules as the key, no more).
 */
describe('OAuth in OSS from a network address', () => {
  const lan = lanAddresses()[0]
  const s = useServer({ host: '0.0.0.0', config: { rateLimits: { auth: 10_000 } } })
  const lanBase = () => `http://${lan}:${new URL(s.ts.url).port}`

  it('approves with the key pasted, and the token works where no key is sent', async () => {
    expect(lan, 'a non-loopback IPv4 address of this machine').toBeTruthy()
    const key = s.ts.server.context.keys.current()!
    const found = await discoverAndRegister(lanBase())
    expect(found.as.issuer).toBe(lanBase())
    const start = await authorizationUrl(found.as, found.client, found.resource)
    const page = await openConsent(start.url)
    expect(page.html).toContain('name="api_key"')
    expect((await submitConsent(page, lanBase())).status).toBe(401)
    expect((await submitConsent(page, lanBase(), { apiKey: 'svc_live_wrong' })).status).toBe(401)
    const approved = await submitConsent(page, lanBase(), { apiKey: key })
    const callback = new URL(approved.headers.get('location')!)
    const params = oauth.validateAuthResponse(found.as, found.client, callback, start.state)
    const tokens = await oauth.processAuthorizationCodeResponse(
      found.as,
      found.client,
      await oauth.authorizationCodeGrantRequest(found.as, found.client, oauth.None(), params, REDIRECT_URI, start.verifier, insecure),
    )
    const remote = testApi(lanBase())
    expect((await remote.send(listFolios)).status).toBe(401)
    const id = await testApi(lanBase(), { key: tokens.access_token }).create('From afar')
    expect((await remote.send(getFolio, { params: { id }, headers: bearer(tokens.access_token) })).status).toBe(200)
    // A member of the workspace may end it: the token's own grant.
    const grantId = (await remote.send(listOAuthGrants, { headers: bearer(tokens.access_token) })).body.grants[0].id
    expect((await remote.send(revokeOAuthGrant, { params: { grantId }, headers: bearer(tokens.access_token) })).status).toBe(200)
    expect((await remote.send(listFolios, { headers: bearer(tokens.access_token) })).status).toBe(401)
  })
})

describe('OAuth across a restart', () => {
  it('keeps clients, grants and tokens (hashed) in the data dir', async () => {
    const first = await startTestServer({ config: { rateLimits: { auth: 10_000 } } })
    let second: TestServer | undefined
    try {
      const flow = await obtainTokens(first.url)
      await first.stop()
      const stored = await readdirRecursive(first.dataDir)
      expect(stored.some((text) => text.includes(flow.tokens.access_token) || text.includes(flow.tokens.refresh_token!))).toBe(false)
      second = await startTestServer({ dataDir: first.dataDir, config: { rateLimits: { auth: 10_000 } } })
      const api = testApi(second.url)
      expect((await api.send(listFolios, { headers: bearer(flow.tokens.access_token) })).status).toBe(200)
      const refreshed = await tokenRequest(second.url, {
        grant_type: 'refresh_token',
        refresh_token: flow.tokens.refresh_token!,
        client_id: flow.client.client_id,
      })
      expect(refreshed.status).toBe(200)
      expect((await api.send(listFolios, { headers: bearer(refreshed.body.access_token) })).status).toBe(200)
    } finally {
      await closeClean(second)
      await rm(first.dataDir, { recursive: true, force: true })
      expectCleanLog(first)
    }
  })
})

/**
 * Cloud runs several instances over one store: the two refreshes of one token may reach two of
 * them. Two real apps over stores that share ONE storage, SharedState and message bus
 * (test/helpers/instances.ts), as in instances-http.test.ts.
 */
describe('OAuth refresh across instances', () => {
  let running: Awaited<ReturnType<typeof startInstances>> | undefined
  const instances = instanceServers()
  afterAll(async () => {
    await instances.closeAll()
    await running?.close()
    expect(instances.problems).toEqual([])
  })
  const serve = (repositories: StoreRepositories) => instances.serve(repositories, { rateLimits: { auth: 10_000 } })

  it('gives both the same new pair when one refresh token reaches two instances at once', async () => {
    running = await startInstances(2)
    const [a, b] = running.instances
    const urlA = await serve(a!.store)
    const urlB = await serve(b!.store)
    const { apiKey } = await a!.store.workspaces.create({ name: 'Team', owner: { name: 'Owner', email: 'owner@example.com' } })
    const flow = await obtainTokens(urlA, { apiKey })
    const form = { grant_type: 'refresh_token', refresh_token: flow.tokens.refresh_token!, client_id: flow.client.client_id }
    const answers = await Promise.all([tokenRequest(urlA, form), tokenRequest(urlB, form), tokenRequest(urlB, form), tokenRequest(urlA, form)])
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200])
    const pair = answers.map((answer) => [answer.body.access_token, answer.body.refresh_token])
    expect(new Set(pair.map((p) => p.join(' '))).size).toBe(1)
    for (const answer of answers) expect(answer.body.expires_in).toEqual(expect.any(Number))
    const [access, refresh] = pair[0]!
    for (const url of [urlA, urlB]) expect((await testApi(url).send(listFolios, { headers: bearer(access) })).status).toBe(200)
    const next = await tokenRequest(urlB, { ...form, refresh_token: refresh })
    expect([next.status, next.body.expires_in]).toEqual([200, 3600])
    expect((await testApi(urlA).send(listFolios, { headers: bearer(next.body.access_token) })).status).toBe(200)
  })
})

/** Every file's text under a folder (what an attacker with the disk reads). */
async function readdirRecursive(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(await readFile(join(entry.parentPath, entry.name), 'utf8'))
  }
  return out
}

describe('OAuth behind a proxy (FOLIO_PUBLIC_URL)', () => {
  const s = useServer({ config: { publicUrl: 'https://folio.example.com' } })

  it('names the public origin in every document, and marks the CSRF cookie Secure', async () => {
    expect((await s.api.send(authorizationServerMetadata)).body).toMatchObject({
      issuer: 'https://folio.example.com',
      token_endpoint: 'https://folio.example.com/api/oauth/token',
    })
    expect((await s.api.send(protectedResourceMetadata)).body).toMatchObject({
      resource: 'https://folio.example.com',
      authorization_servers: ['https://folio.example.com'],
    })
    const registered = await fetch(new URL('/api/oauth/register', s.ts.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', client_name: 'Proxy probe' }),
    }).then((r) => r.json() as Promise<{ client_id: string }>)
    const url = new URL('/api/oauth/authorize', s.ts.url)
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: 'https://folio.example.com/api/mcp',
    })) {
      url.searchParams.set(name, value)
    }
    const page = await fetch(url)
    expect(page.status).toBe(200)
    expect(page.headers.getSetCookie()[0]).toMatch(/; Secure$/)
    // The request's own origin is not this server's resource any more.
    url.searchParams.set('resource', s.ts.url)
    const wrong = await fetch(url, { redirect: 'manual' })
    expect(new URL(wrong.headers.get('location')!).searchParams.get('error')).toBe('invalid_target')
  })
})
