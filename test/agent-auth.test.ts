import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { agentAuth, agentClaim, agentClaimComplete } from '../src/api/agent-auth.js'
import { getFolio, listFolios } from '../src/api/files.js'
import { rotateKey } from '../src/api/keys.js'
import { testApi } from './helpers/api.js'
import { claimByEmail, codeMailedTo, unsignedAssertion } from './helpers/agents.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'
import { closeClean, expectCleanLog } from './helpers/use-server.js'
import { createWorkspace, type TestWorkspace } from './helpers/workspaces.js'

let smtp: TestSmtpServer
let ts: TestServer
let first: TestWorkspace
let firstFolio: string
beforeAll(async () => {
  smtp = await startSmtpServer()
  ts = await startTestServer({ mode: 'cloud', config: { smtpUrl: smtp.url, mailFrom: 'folio <codes@folio.test>', rateLimits: { auth: 10_000 } } })
  first = await createWorkspace(ts, { name: 'First', email: 'owner@example.com' })
  firstFolio = await first.api.create('The first workspace’s folio')
})
afterAll(async () => {
  await closeClean(ts)
  await smtp.close()
})
afterEach(() => {
  vi.useRealTimers()
})

const api = () => testApi(ts.url)
const withKey = (key: string) => testApi(ts.url, { key })
const KEY = /^folio_live_[0-9a-f]{48}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('flow A: identity assertion', () => {
  it('(none) → completed: an unsigned assertion gets a new workspace and its key at once', async () => {
    const reply = await api().send(agentAuth, {
      body: {
        type: 'identity_assertion',
        assertion: unsignedAssertion({ email: 'agent@example.com', sub: 'agent-1', iss: 'https://agent.example' }),
        requested_credential_type: 'api_key',
      },
    })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({
      status: 'completed',
      credential: {
        access_token: expect.stringMatching(KEY),
        token_type: 'Bearer',
        organization: { id: expect.stringMatching(UUID), name: expect.any(String), plan: 'free' },
      },
    })
    const mine = withKey(reply.body.credential.access_token)
    expect((await mine.send(listFolios)).body).toEqual([])
    expect((await mine.send(getFolio, { params: { id: await mine.create('Mine') } })).status).toBe(200)
  })

  it('never hands out an existing workspace: an unsigned assertion of its owner’s address gets a new one', async () => {
    const reply = await api().send(agentAuth, { body: { type: 'identity_assertion', assertion: unsignedAssertion({ email: 'owner@example.com' }) } })
    expect(reply.status).toBe(200)
    expect(reply.body.credential.organization.id).not.toBe(first.id)
    const stranger = withKey(reply.body.credential.access_token)
    expect((await stranger.send(getFolio, { params: { id: firstFolio } })).status).toBe(404)
    expect((await stranger.send(listFolios)).body).toEqual([])
    // The claimed address proved nothing, so it did not become a member anywhere.
    expect(await ts.server.store.workspaces.accountOf('owner@example.com')).toEqual({
      email: 'owner@example.com',
      workspaces: [{ id: first.id, role: 'owner' }],
    })
  })

  it('takes a sub claim alone; each assertion makes another workspace', async () => {
    const send = () => api().send(agentAuth, { body: { type: 'identity_assertion', assertion: unsignedAssertion({ sub: 'robot-7' }) } })
    const [a, b] = [await send(), await send()]
    expect(a.status).toBe(200)
    expect(a.body.credential.organization.id).not.toBe(b.body.credential.organization.id)
  })

  it('answers the spec’s errors', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, 'Missing type'],
      [{ assertion: unsignedAssertion({ email: 'a@example.com' }) }, 400, 'Missing type'],
      [{ type: 'identity_assertion' }, 400, 'Invalid assertion format'],
      [{ type: 'identity_assertion', assertion: 'abc.def' }, 400, 'Invalid assertion format'],
      [{ type: 'identity_assertion', assertion: 'a.b.c.d' }, 400, 'Invalid assertion format'],
      [{ type: 'identity_assertion', assertion: '!!.??.' }, 400, 'Invalid assertion format'],
      [{ type: 'identity_assertion', assertion: 42 }, 400, 'Invalid assertion format'],
      [{ type: 'identity_assertion', assertion: unsignedAssertion({ iss: 'x' }) }, 401, 'assertion verification failed'],
      [{ type: 'identity_assertion', assertion: unsignedAssertion({ email: '', sub: '  ' }) }, 401, 'assertion verification failed'],
      [
        { type: 'identity_assertion', assertion: `${unsignedAssertion({ email: 'a@example.com', iss: 'https://nobody.example' })}c2ln` },
        401,
        'assertion verification failed',
      ],
      [{ type: 'password' }, 400, 'INVALID_BODY'],
    ]
    for (const [body, status, error] of cases) {
      const reply = await api().send(agentAuth, { body })
      expect([JSON.stringify(body), reply.status, reply.body.error]).toEqual([JSON.stringify(body), status, error])
    }
    const empty = await api().send(agentAuth, { raw: '', headers: { 'content-type': 'application/json' } })
    expect([empty.status, empty.body.error]).toEqual([400, 'Missing type'])
  })
})

describe('flow B: anonymous, claim, complete', () => {
  it('(none) → pending_claim → pending_claim (code mailed) → completed; the pre-claim key works meanwhile', async () => {
    const started = await api().send(agentAuth, { body: { type: 'anonymous' } })
    expect(started.status).toBe(200)
    expect(started.body).toEqual({
      registration_session_id: expect.any(String),
      status: 'pending_claim',
      credential: { token: expect.stringMatching(/^folio_pre_[0-9a-f]{48}$/), token_type: 'APIKey', expires_at: expect.any(String) },
    })
    const expiresIn = Date.parse(started.body.credential.expires_at) - Date.now()
    expect(expiresIn).toBeGreaterThan(14 * 60_000)
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000)
    const preClaim = withKey(started.body.credential.token)
    const draft = await preClaim.create('Made before the claim')

    const sessionId = started.body.registration_session_id
    const claimed = await api().send(agentClaim, { body: { email: 'New.Person@Example.com', registration_session_id: sessionId } })
    expect(claimed.status).toBe(200)
    expect(claimed.body).toEqual({ success: true, status: 'pending_claim', expires_at: started.body.credential.expires_at })
    const mail = await smtp.next('new.person@example.com')
    expect(mail.from).toBe('codes@folio.test')
    const code = /\b(\d{6})\b/.exec(mail.subject)![1]!
    expect(mail.text).toContain(code)

    const done = await api().send(agentClaimComplete, { body: { email: 'new.person@example.com', code, registration_session_id: sessionId } })
    expect(done.status).toBe(200)
    expect(done.body).toEqual({
      status: 'completed',
      credential: {
        access_token: expect.stringMatching(KEY),
        token_type: 'Bearer',
        expires_at: null,
        organization: { id: expect.stringMatching(UUID), name: expect.any(String), plan: 'free' },
      },
    })
    // The session's workspace is now the address's: the key sees what the pre-claim key made.
    const claimedKey = withKey(done.body.credential.access_token)
    expect((await claimedKey.send(getFolio, { params: { id: draft } })).status).toBe(200)
    expect(await ts.server.store.workspaces.accountOf('new.person@example.com')).toEqual({
      email: 'new.person@example.com',
      workspaces: [{ id: done.body.credential.organization.id, role: 'owner' }],
    })

    // completed: the code was single-use and the session is done.
    const again = await api().send(agentClaimComplete, { body: { email: 'new.person@example.com', code, registration_session_id: sessionId } })
    expect([again.status, again.body.error]).toEqual([409, 'Registration already completed'])
    const reclaim = await api().send(agentClaim, { body: { email: 'new.person@example.com', registration_session_id: sessionId } })
    expect(reclaim.status).toBe(409)
  })

  it('allows 5 attempts: wrong codes count down, the fifth burns the code, a new claim sends a new one', async () => {
    const flow = await claimByEmail(api(), smtp, 'guesser@example.com')
    const wrong = flow.code === '000000' ? '000001' : '000000'
    for (let left = 4; left >= 1; left--) {
      const reply = await flow.complete({ code: wrong })
      expect([reply.status, reply.body.error, reply.body.message]).toEqual([400, 'Invalid code', `Wrong code: ${left} attempt(s) left.`])
    }
    const fifth = await flow.complete({ code: wrong })
    expect([fifth.status, fifth.body.error]).toEqual([429, 'Too many attempts'])
    const right = await flow.complete()
    expect([right.status, right.body.error]).toEqual([429, 'Too many attempts'])

    expect((await api().send(agentClaim, { body: { email: 'guesser@example.com', registration_session_id: flow.sessionId } })).status).toBe(200)
    const fresh = await codeMailedTo(smtp, 'guesser@example.com')
    expect((await flow.complete({ code: flow.code === fresh ? wrong : flow.code })).status).toBe(400)
    expect((await flow.complete({ code: fresh })).status).toBe(200)
  })

  it('sends at most 5 codes a session, each replacing the last', async () => {
    const started = await api().send(agentAuth, { body: { type: 'anonymous' } })
    const registration_session_id = started.body.registration_session_id
    const claims = await Promise.all(Array.from({ length: 7 }, () => api().send(agentClaim, { body: { email: 'often@example.com', registration_session_id } })))
    expect(claims.map((c) => c.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429])
    const codes: string[] = []
    for (let i = 0; i < 5; i++) codes.push(await codeMailedTo(smtp, 'often@example.com'))
    // Only the newest code works; which one that is, the session's last write decided.
    const answers = []
    for (const code of new Set(codes))
      answers.push((await api().send(agentClaimComplete, { body: { email: 'often@example.com', code, registration_session_id } })).status)
    expect(answers.filter((status) => status === 200)).toHaveLength(1)
  })

  it('binds the code to the address it was sent to', async () => {
    const flow = await claimByEmail(api(), smtp, 'right@example.com')
    const other = await flow.complete({ email: 'wrong@example.com' })
    expect([other.status, other.body.error]).toEqual([400, 'Invalid code'])
    expect((await flow.complete()).status).toBe(200)
  })

  it('joins the existing workspace of an address that has an account: the code proves the address', async () => {
    const flow = await claimByEmail(api(), smtp, 'owner@example.com')
    const done = await flow.complete()
    expect(done.status).toBe(200)
    expect(done.body.credential.organization).toEqual({ id: first.id, name: 'First', plan: 'free' })
    const agent = withKey(done.body.credential.access_token)
    expect(done.body.credential.access_token).not.toBe(first.apiKey)
    expect((await agent.send(getFolio, { params: { id: firstFolio } })).status).toBe(200)
    // The workspace's own key still works; rotating it ends the agent's credential too.
    expect((await first.api.send(listFolios)).status).toBe(200)
    const rotated = (await first.api.send(rotateKey)).body.apiKey
    expect((await agent.send(listFolios)).status).toBe(401)
    first = { ...first, apiKey: rotated, api: withKey(rotated) }
  })

  it('refuses malformed claims', async () => {
    const started = await api().send(agentAuth, { body: { type: 'anonymous' } })
    const id = started.body.registration_session_id
    expect((await api().send(agentClaim, { body: { email: 'not an address', registration_session_id: id } })).status).toBe(400)
    expect((await api().send(agentClaimComplete, { body: { email: 'a@example.com', code: '12345', registration_session_id: id } })).status).toBe(400)
    const unknown = await api().send(agentClaim, { body: { email: 'a@example.com', registration_session_id: 'no-such-session' } })
    expect([unknown.status, unknown.body.error]).toEqual([410, 'session expired'])
  })
})

describe('expiry', () => {
  it('pending_claim → expired after 15 minutes: claims get 410 and the pre-claim key stops', async () => {
    const flow = await claimByEmail(api(), smtp, 'late@example.com')
    const preClaim = withKey(flow.preClaimKey)
    expect((await preClaim.send(listFolios)).status).toBe(200)
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 15 * 60_000 + 1_000 })
    const complete = await flow.complete()
    expect([complete.status, complete.body.error]).toEqual([410, 'session expired'])
    const claim = await api().send(agentClaim, { body: { email: 'late@example.com', registration_session_id: flow.sessionId } })
    expect([claim.status, claim.body.error]).toEqual([410, 'session expired'])
    const refused = await preClaim.send(listFolios)
    expect([refused.status, refused.body.error]).toEqual([401, 'Unauthorized'])
  })
})

describe('a restart', () => {
  it('keeps registration sessions, their codes and pre-claim keys', async () => {
    const flow = await claimByEmail(api(), smtp, 'restart@example.com')
    const dataDir = ts.dataDir
    await ts.stop()
    expectCleanLog(ts)
    ts = await startTestServer({ dataDir, mode: 'cloud', config: { smtpUrl: smtp.url, rateLimits: { auth: 10_000 } } })
    expect((await withKey(flow.preClaimKey).send(listFolios)).status).toBe(200)
    const done = await testApi(ts.url).send(agentClaimComplete, {
      body: { email: 'restart@example.com', code: flow.code, registration_session_id: flow.sessionId },
    })
    expect(done.status).toBe(200)
    expect((await withKey(done.body.credential.access_token).send(listFolios)).status).toBe(200)
  })
})
