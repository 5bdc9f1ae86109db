import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFolio, getFolio, listFolios } from '../src/api/files.js'
import { rotateKey } from '../src/api/keys.js'
import { listOAuthGrants, revokeOAuthGrant } from '../src/api/oauth.js'
import { requestSignInCode, signIn } from '../src/api/sign-in.js'
import { testApi } from './helpers/api.js'
import { codeMailedTo } from './helpers/agents.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'
import { authorizationUrl, bearer, discoverAndRegister, obtainTokens, openConsent, REDIRECT_URI, submitConsent } from './helpers/oauth.js'
import { addMember, createWorkspace, type TestWorkspace, useCloudServer } from './helpers/workspaces.js'

/**
 * OAuth in Cloud: the person signs in first (the session cookie) or pastes the workspace key on
 * the consent page; the token acts in that workspace only, with its plan's limits, and ends with
 * a rotation of that workspace's key.
 */
describe('OAuth in Cloud', () => {
  const s = useCloudServer({ config: { rateLimits: { auth: 10_000 } } })
  const base = () => s.ts.url
  let a: TestWorkspace
  let b: TestWorkspace
  let bFolio: string
  beforeAll(async () => {
    a = s.workspace
    b = await createWorkspace(s.ts, { name: 'Second' })
    bFolio = await b.api.create('B’s own')
  })

  /** Signs in the key holder of a workspace in a browser: its session cookie (name=value). */
  const sessionOf = async (ws: TestWorkspace) => {
    const response = await s.anonymous.request(signIn, { body: { apiKey: ws.apiKey } })
    expect(response.status).toBe(200)
    return response.headers.getSetCookie()[0]!.split(';')[0]!
  }

  it('consents as the signed-in person: the page names the workspace, the token acts there only', async () => {
    const session = await sessionOf(a)
    const found = await discoverAndRegister(base())
    const page = await openConsent((await authorizationUrl(found.as, found.client, found.resource)).url, { cookie: session })
    expect(page.html).toMatch(/Approving as <strong>First<\/strong> \(owner\) in the workspace <strong>First<\/strong>/)
    expect(page.html).not.toContain('name="api_key"')
    // Arriving from another site's page, the Strict cookie is not sent: the page reloads itself
    // from our origin (where the browser sends it) before asking anything.
    const crossSite = await fetch((await authorizationUrl(found.as, found.client, found.resource)).url, { headers: { 'sec-fetch-site': 'cross-site' } })
    const reload = /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(await crossSite.text())?.[1]
    expect(reload).toMatch(/^\/api\/oauth\/authorize\?.*reloaded=1/)
    const reloaded = await openConsent(new URL(reload!.replaceAll('&#38;', '&'), base()), { cookie: session, 'sec-fetch-site': 'same-origin' })
    expect(reloaded.html).toContain('Approving as <strong>First</strong>')

    const { tokens } = await obtainTokens(base(), { pageHeaders: { cookie: session }, cookies: [session] })
    const mine = await a.api.create('A’s folio')
    const asToken = { headers: bearer(tokens.access_token) }
    const list = await s.anonymous.send(listFolios, asToken)
    expect([list.status, list.body.map((f: { id: string }) => f.id)]).toEqual([200, [mine]])
    // Workspace B's folio does not exist for A's token.
    expect((await s.anonymous.send(getFolio, { params: { id: bFolio }, ...asToken })).status).toBe(404)
    expect((await s.anonymous.send(getFolio, { params: { id: mine }, ...asToken })).status).toBe(200)
    // The plan's limits, as for the key.
    const byKey = await a.api.send(listFolios)
    expect(list.headers.get('x-ratelimit-limit')).toBe(byKey.headers.get('x-ratelimit-limit'))
    expect(list.headers.get('x-ratelimit-limit')).toBeTruthy()
  })

  it('without a session asks for the key: B’s key approves for B; a token or a wrong key approves nothing', async () => {
    const found = await discoverAndRegister(base())
    const start = await authorizationUrl(found.as, found.client, found.resource)
    const page = await openConsent(start.url)
    expect(page.html).toContain('name="api_key"')
    expect((await submitConsent(page, base(), { apiKey: `svc_live_${'0'.repeat(48)}` })).status).toBe(401)
    const aToken = (await obtainTokens(base(), { apiKey: a.apiKey })).tokens.access_token
    expect((await submitConsent(page, base(), { apiKey: aToken })).status).toBe(401)
    const approved = await submitConsent(page, base(), { apiKey: b.apiKey })
    expect(approved.status).toBe(302)
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!
    const tokens = await fetch(new URL('/api/oauth/token', base()), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: start.verifier,
        redirect_uri: REDIRECT_URI,
        client_id: found.client.client_id,
      }),
    }).then((r) => r.json() as Promise<{ access_token: string }>)
    const list = await s.anonymous.send(listFolios, { headers: bearer(tokens.access_token) })
    expect(list.body.map((f: { id: string }) => f.id)).toEqual([bFolio])
  })

  it('lists grants per workspace; another workspace cannot revoke them; a rotation of A’s key ends A’s only', async () => {
    const aFlow = await obtainTokens(base(), { apiKey: a.apiKey })
    const bFlow = await obtainTokens(base(), { apiKey: b.apiKey })
    const aGrants = (await a.api.send(listOAuthGrants)).body.grants as Array<{ id: string; clientId: string }>
    const bGrants = (await b.api.send(listOAuthGrants)).body.grants as Array<{ id: string; clientId: string }>
    expect(aGrants.map((g) => g.clientId)).toContain(aFlow.client.client_id)
    expect(aGrants.map((g) => g.clientId)).not.toContain(bFlow.client.client_id)
    const aGrant = aGrants.find((g) => g.clientId === aFlow.client.client_id)!
    expect((await b.api.send(revokeOAuthGrant, { params: { grantId: aGrant.id } })).status).toBe(404)
    expect(bGrants.map((g) => g.clientId)).toContain(bFlow.client.client_id)

    expect((await a.api.send(rotateKey)).status).toBe(200)
    expect((await s.anonymous.send(listFolios, { headers: bearer(aFlow.tokens.access_token) })).status).toBe(401)
    expect((await s.anonymous.send(createFolio, { body: { title: 'x' }, headers: bearer(aFlow.tokens.access_token) })).status).toBe(401)
    expect((await s.anonymous.send(listFolios, { headers: bearer(bFlow.tokens.access_token) })).status).toBe(200)
  })
})

/** A member who signed in by e-mail code approves: the token acts for them, and ends when they leave. */
describe('OAuth in Cloud, approved by a member', () => {
  let smtp: TestSmtpServer
  let ts: TestServer
  let owner: TestWorkspace
  beforeAll(async () => {
    smtp = await startSmtpServer()
    ts = await startTestServer({ mode: 'cloud', config: { rateLimits: { auth: 10_000 }, smtpUrl: smtp.url } })
    owner = await createWorkspace(ts, { name: 'First', email: 'owner@example.com' })
  })
  afterAll(async () => {
    await closeClean(ts)
    await smtp.close()
  })
  const s = {
    get ts() {
      return ts
    },
    get workspace() {
      return owner
    },
    get anonymous() {
      return testApi(ts.url)
    },
  }

  it('acts for the member, manages nothing, and stops when the member is removed', async () => {
    await addMember(s.ts, s.workspace.id, 'member@example.com', 'member')
    expect((await s.anonymous.send(requestSignInCode, { body: { email: 'member@example.com' } })).status).toBe(200)
    const code = await codeMailedTo(smtp, 'member@example.com')
    const signedIn = await s.anonymous.request(signIn, { body: { email: 'member@example.com', code } })
    const session = signedIn.headers.getSetCookie()[0]!.split(';')[0]!
    const { tokens } = await obtainTokens(s.ts.url, { pageHeaders: { cookie: session }, cookies: [session] })
    const asToken = { headers: bearer(tokens.access_token) }
    expect((await s.anonymous.send(listFolios, asToken)).status).toBe(200)
    const grant = (await s.workspace.api.send(listOAuthGrants)).body.grants[0]
    expect(grant).toMatchObject({ approvedBy: 'member@example.com', role: 'member' })
    // The token sees its own grant only, and manages nothing, whatever its member's role.
    expect((await s.anonymous.send(listOAuthGrants, asToken)).body.grants.map((g: { id: string }) => g.id)).toEqual([grant.id])
    expect((await s.anonymous.send(rotateKey, asToken)).status).toBe(403)
    await s.ts.server.store.workspaces.setRole(s.workspace.id, 'member@example.com', 'admin')
    expect((await s.workspace.api.send(listOAuthGrants)).body.grants[0]).toMatchObject({ id: grant.id, role: 'admin' })
    expect((await s.anonymous.send(rotateKey, asToken)).status).toBe(403)
    expect((await s.anonymous.send(listFolios, asToken)).status).toBe(200)
    await s.ts.server.store.workspaces.removeMember(s.workspace.id, 'member@example.com')
    expect((await s.anonymous.send(listFolios, asToken)).status).toBe(401)
    expect((await s.workspace.api.send(listOAuthGrants)).body.grants).toEqual([])
  })
})
