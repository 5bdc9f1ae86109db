import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFolio, listFolios } from '../src/api/files.js'
import { rotateKey } from '../src/api/keys.js'
import { currentSession, listSessions, requestSignInCode, revokeSession, signIn, signOut } from '../src/api/sign-in.js'
import { inviteMember } from '../src/api/workspace.js'
import { testApi } from './helpers/api.js'
import { codeMailedTo } from './helpers/agents.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'
import { closeClean, expectCleanLog } from './helpers/use-server.js'
import { addMember, createWorkspace, type TestWorkspace } from './helpers/workspaces.js'

let smtp: TestSmtpServer
let ts: TestServer
let first: TestWorkspace
beforeAll(async () => {
  smtp = await startSmtpServer()
  ts = await startTestServer({ mode: 'cloud', config: { smtpUrl: smtp.url, rateLimits: { auth: 10_000 } } })
  first = await createWorkspace(ts, { name: 'First', email: 'owner@example.com' })
  await first.api.create('Owned')
  await addMember(ts, first.id, 'member@example.com', 'member')
})
afterAll(async () => {
  await closeClean(ts)
  await smtp.close()
})

const api = () => testApi(ts.url)

/** Signs in by e-mailed code; returns the cookie (name=value) and the answer. */
async function signInByCode(email: string, extra: object = {}) {
  expect((await api().send(requestSignInCode, { body: { email } })).status).toBe(200)
  const code = await codeMailedTo(smtp, email.toLowerCase())
  return finishSignIn(await api().request(signIn, { body: { email, code, ...extra } }))
}

async function finishSignIn(response: Response) {
  const setCookie = response.headers.getSetCookie()
  const body = (await response.json()) as any
  return { status: response.status, body, setCookie, cookie: setCookie[0]?.split(';')[0] ?? '' }
}

const asCookie = (cookie: string, origin?: string) => ({ cookie, ...(origin ? { origin } : {}) })
/** What a browser sends with a write from our own page: the cookie and our Origin. */
const fromOurPage = (cookie: string) => asCookie(cookie, new URL(ts.url).origin)

describe('signing in by e-mail code', () => {
  it('sets an HttpOnly, SameSite=Strict cookie that acts in the address’s workspace with its role', async () => {
    const signed = await signInByCode('Owner@Example.com')
    expect(signed.status).toBe(200)
    expect(signed.setCookie[0]).toMatch(/^folio_session=[0-9a-f]{48}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Strict$/)
    expect(signed.body.session).toMatchObject({
      email: 'owner@example.com',
      method: 'email-code',
      workspace: { id: first.id, name: 'First', plan: 'free' },
      role: 'owner',
    })
    const list = await api().send(listFolios, { headers: asCookie(signed.cookie) })
    expect([list.status, list.body.map((f: { title: string }) => f.title)]).toEqual([200, ['Owned']])
    const me = await api().send(currentSession, { headers: asCookie(signed.cookie) })
    expect(me.body.session.id).toBe(signed.body.session.id)
  })

  it('refuses writes another site’s page sends with the cookie (Origin check)', async () => {
    const { cookie } = await signInByCode('owner@example.com')
    const body = { title: 'Forged', initialHtml: '<p>x</p>' }
    const forged = await api().send(createFolio, { body, headers: asCookie(cookie, 'https://evil.example') })
    expect([forged.status, forged.body.error]).toEqual([401, 'Unauthorized'])
    const own = await api().send(createFolio, { body, headers: fromOurPage(cookie) })
    expect(own.status).toBe(201)
    // A write without any Origin did not come from a browser page of ours either.
    const bare = await api().send(createFolio, { body, headers: asCookie(cookie) })
    expect(bare.status).toBe(401)
  })

  it('gives a member a member’s session: no session list for them', async () => {
    const { cookie, body } = await signInByCode('member@example.com')
    expect(body.session.role).toBe('member')
    expect((await api().send(listSessions, { headers: asCookie(cookie) })).status).toBe(403)
  })

  it('signs in an address without a workspace, which can act nowhere', async () => {
    const { cookie, body } = await signInByCode('nobody@example.com')
    expect(body.session).toMatchObject({ email: 'nobody@example.com', workspace: null, role: null })
    expect((await api().send(listFolios, { headers: asCookie(cookie) })).status).toBe(401)
  })

  it('takes a code once, and 5 wrong ones burn it', async () => {
    expect((await api().send(requestSignInCode, { body: { email: 'owner@example.com' } })).status).toBe(200)
    const code = await codeMailedTo(smtp, 'owner@example.com')
    const wrong = code === '999999' ? '999998' : '999999'
    for (let i = 0; i < 4; i++) expect((await api().send(signIn, { body: { email: 'owner@example.com', code: wrong } })).body.error).toBe('Invalid code')
    expect((await api().send(signIn, { body: { email: 'owner@example.com', code: wrong } })).status).toBe(429)
    expect((await api().send(signIn, { body: { email: 'owner@example.com', code } })).body.error).toBe('Too many attempts')

    expect((await api().send(requestSignInCode, { body: { email: 'owner@example.com' } })).status).toBe(200)
    const fresh = await codeMailedTo(smtp, 'owner@example.com')
    expect((await api().send(signIn, { body: { email: 'owner@example.com', code: fresh } })).status).toBe(200)
    expect((await api().send(signIn, { body: { email: 'owner@example.com', code: fresh } })).body.error).toBe('Invalid code')
  })
})

describe('signing in with the workspace key', () => {
  it('makes an Owner session; a wrong key is refused', async () => {
    const signed = await finishSignIn(await api().request(signIn, { body: { apiKey: first.apiKey } }))
    expect(signed.body.session).toMatchObject({ email: null, method: 'workspace-key', role: 'owner', workspace: { id: first.id } })
    expect((await api().send(listFolios, { headers: asCookie(signed.cookie) })).status).toBe(200)
    const wrong = await api().send(signIn, { body: { apiKey: `folio_live_${'0'.repeat(48)}` } })
    expect([wrong.status, wrong.body.error]).toEqual([401, 'Unauthorized'])
  })
})

describe('sessions: listed, revoked, signed out, ended by rotation', () => {
  it('lists the workspace’s sessions for the Owner and ends the one revoked', async () => {
    const a = await signInByCode('owner@example.com')
    const b = await signInByCode('member@example.com')
    const listed = await api().send(listSessions, { headers: asCookie(a.cookie) })
    expect(listed.status).toBe(200)
    const ids = listed.body.sessions.map((s: { id: string }) => s.id)
    expect(ids).toContain(a.body.session.id)
    expect(ids).toContain(b.body.session.id)
    expect(listed.body.sessions.find((s: { id: string }) => s.id === a.body.session.id).current).toBe(true)

    // Another workspace sees none of them and can end none of them.
    const other = await createWorkspace(ts, { name: 'Other' })
    expect((await other.api.send(listSessions)).body.sessions).toEqual([])
    expect((await other.api.send(revokeSession, { params: { sessionId: a.body.session.id } })).status).toBe(404)
    // A member may end their own session, not someone else's.
    expect((await api().send(revokeSession, { params: { sessionId: a.body.session.id }, headers: fromOurPage(b.cookie) })).status).toBe(403)
    expect((await first.api.send(revokeSession, { params: { sessionId: b.body.session.id } })).status).toBe(200)
    expect((await api().send(listFolios, { headers: asCookie(b.cookie) })).status).toBe(401)
    expect((await first.api.send(revokeSession, { params: { sessionId: b.body.session.id } })).status).toBe(404)
  })

  it('signs out: the cookie is cleared and the session ends', async () => {
    const { cookie } = await signInByCode('owner@example.com')
    const out = await api().request(signOut, { headers: fromOurPage(cookie) })
    expect(out.headers.getSetCookie()[0]).toMatch(/^folio_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/)
    expect((await api().send(currentSession, { headers: asCookie(cookie) })).status).toBe(401)
  })

  it('ends every session of the workspace when its key rotates', async () => {
    const byCode = await signInByCode('owner@example.com')
    const byKey = await finishSignIn(await api().request(signIn, { body: { apiKey: first.apiKey } }))
    const rotated = (await first.api.send(rotateKey)).body.apiKey as string
    first = { ...first, apiKey: rotated, api: testApi(ts.url, { key: rotated }) }
    for (const { cookie } of [byCode, byKey]) expect((await api().send(listFolios, { headers: asCookie(cookie) })).status).toBe(401)
    expect((await first.api.send(listSessions)).body.sessions).toEqual([])
  })
})

describe('invitations', () => {
  it('joins the workspace with the invited role when the invited address signs in with it', async () => {
    const invite = async (email: string) => (await first.api.send(inviteMember, { body: { email, role: 'admin' } })).body.invitation as { code: string }
    const invitation = await invite('invited@example.com')
    const other = await invite('someone.else@example.com')
    const wrongAddress = await signInByCode('invited@example.com', { invitation: other.code })
    expect([wrongAddress.status, wrongAddress.body.error]).toEqual([400, 'Invalid invitation'])

    const joined = await signInByCode('invited@example.com', { invitation: invitation.code })
    expect(joined.status).toBe(200)
    expect(joined.body.session).toMatchObject({ workspace: { id: first.id }, role: 'admin' })
    expect((await api().send(listSessions, { headers: asCookie(joined.cookie) })).status).toBe(200)
    const reused = await signInByCode('invited@example.com', { invitation: invitation.code })
    expect([reused.status, reused.body.error]).toEqual([400, 'Invalid invitation'])
  })
})

describe('a restart', () => {
  it('keeps sign-in sessions (and what ended stays ended)', async () => {
    const kept = await signInByCode('owner@example.com')
    const ended = await signInByCode('member@example.com')
    const out = await api().request(signOut, { headers: fromOurPage(ended.cookie) })
    expect(out.status).toBe(200)
    const dataDir = ts.dataDir
    await ts.stop()
    expectCleanLog(ts)
    ts = await startTestServer({ dataDir, mode: 'cloud', config: { smtpUrl: smtp.url, rateLimits: { auth: 10_000 } } })
    expect((await api().send(listFolios, { headers: asCookie(kept.cookie) })).status).toBe(200)
    expect((await api().send(listFolios, { headers: asCookie(ended.cookie) })).status).toBe(401)
  })
})
