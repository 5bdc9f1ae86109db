import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentAuth, agentClaim, agentClaimComplete } from '../src/api/agent-auth.js'
import { testApi } from './helpers/api.js'
import { codeMailedTo } from './helpers/agents.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'
import { closeClean } from './helpers/use-server.js'

/**
 * Claim codes (spec: Agent authentication, flow B). An address gets at most 10 claim codes an
 * hour, but only claims of live registration sessions count there: a claim with a made-up session
 * id is the spec's 410 and costs its caller (the per-client `auth` rate limit), never the address.
 */
let smtp: TestSmtpServer
beforeAll(async () => {
  smtp = await startSmtpServer()
})
afterAll(() => smtp.close())

function cloudServer(auth?: number) {
  let ts: TestServer | undefined
  beforeAll(async () => {
    ts = await startTestServer({ mode: 'cloud', config: { smtpUrl: smtp.url, ...(auth ? { rateLimits: { auth } } : {}) } })
  })
  afterAll(() => closeClean(ts))
  return () => testApi(ts!.url)
}

const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email)).length
const madeUp = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`

async function liveSession(api: ReturnType<typeof testApi>): Promise<string> {
  const started = await api.send(agentAuth, { body: { type: 'anonymous' } })
  expect(started.status).toBe(200)
  return started.body.registration_session_id
}

describe('claims with made-up session ids', () => {
  // The default limits: what an attacker has on a real server.
  const api = cloudServer()

  it('cost the address nothing: after 11 of them, a real person’s claim for a live session still sends its code', async () => {
    const victim = 'victim@example.com'
    for (let i = 0; i < 11; i++) {
      const probe = await api().send(agentClaim, { body: { email: victim, registration_session_id: madeUp(i) } })
      expect([probe.status, probe.body.error]).toEqual([410, 'session expired'])
    }
    // No code went out for them.
    expect(mailsTo(victim)).toBe(0)

    const sessionId = await liveSession(api())
    const claimed = await api().send(agentClaim, { body: { email: 'Victim@Example.com', registration_session_id: sessionId } })
    expect(claimed.status).toBe(200)
    const code = await codeMailedTo(smtp, victim)
    const done = await api().send(agentClaimComplete, { body: { email: victim, code, registration_session_id: sessionId } })
    expect([done.status, done.body.status]).toEqual([200, 'completed'])
  })
})

describe('made-up session ids are bounded per client', () => {
  const api = cloudServer(5)

  it('by the auth rate limit: past it, 429 with Retry-After', async () => {
    for (let i = 0; i < 5; i++)
      expect((await api().send(agentClaim, { body: { email: 'someone@example.com', registration_session_id: madeUp(i) } })).status).toBe(410)
    const refused = await api().send(agentClaim, { body: { email: 'someone@example.com', registration_session_id: madeUp(99) } })
    expect([refused.status, refused.body.error]).toEqual([429, 'Too many requests'])
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
  })
})

describe('claims of live sessions', () => {
  const api = cloudServer(10_000)

  it('send an address at most 10 codes an hour; a claim refused for that costs its session no send', async () => {
    const busy = 'busy@example.com'
    for (const sessionId of [await liveSession(api()), await liveSession(api())]) {
      for (let i = 0; i < 5; i++) expect((await api().send(agentClaim, { body: { email: busy, registration_session_id: sessionId } })).status).toBe(200)
    }
    expect(mailsTo(busy)).toBe(10)
    const third = await liveSession(api())
    const refused = await api().send(agentClaim, { body: { email: busy, registration_session_id: third } })
    expect([refused.status, refused.body.error, refused.body.message]).toEqual([
      429,
      'Too many requests',
      'Too many codes were sent to this address this hour: try again later.',
    ])
    // The hour is a fixed window: Retry-After is what is left of it.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3_600)
    expect(mailsTo(busy)).toBe(10)
    // The third session still has its five sends, for an address with codes left.
    for (let i = 0; i < 5; i++)
      expect((await api().send(agentClaim, { body: { email: 'other@example.com', registration_session_id: third } })).status).toBe(200)
    expect((await api().send(agentClaim, { body: { email: 'other@example.com', registration_session_id: third } })).status).toBe(429)
    expect(mailsTo('other@example.com')).toBe(5)
  })

  it('are still answered 410 once the session is unknown, and 409 once completed, without counting for the address', async () => {
    const sessionId = await liveSession(api())
    expect((await api().send(agentClaim, { body: { email: 'done@example.com', registration_session_id: sessionId } })).status).toBe(200)
    const code = await codeMailedTo(smtp, 'done@example.com')
    expect((await api().send(agentClaimComplete, { body: { email: 'done@example.com', code, registration_session_id: sessionId } })).status).toBe(200)
    for (let i = 0; i < 11; i++) {
      const again = await api().send(agentClaim, { body: { email: 'late@example.com', registration_session_id: sessionId } })
      expect(again.status).toBe(409)
    }
    const fresh = await liveSession(api())
    expect((await api().send(agentClaim, { body: { email: 'late@example.com', registration_session_id: fresh } })).status).toBe(200)
    expect(mailsTo('late@example.com')).toBe(1)
  })
})
