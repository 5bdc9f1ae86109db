import { describe, expect, it } from 'vitest'
import { agentAuth, agentClaim, agentClaimComplete } from '../src/api/agent-auth.js'
import { listFolios } from '../src/api/files.js'
import { getKey, revokeKey, rotateKey } from '../src/api/keys.js'
import { type TestApi, testApi } from './helpers/api.js'
import { unsignedAssertion } from './helpers/agents.js'
import { lanAddresses } from './helpers/cli-process.js'
import { bearer, obtainTokens } from './helpers/oauth.js'
import { useServer } from './helpers/use-server.js'

/**
 * Agent registration on an OSS server (issue 24): the spec's flows and errors, answered with the
 * server's one key, to the callers that could read that key anyway (GET /api/keys): programs on
 * this machine, and anyone who sends the key. Everyone else still gets the body judged first.
 */
const KEY = /^folio_live_[0-9a-f]{48}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const LOCAL_ORGANIZATION = { id: expect.stringMatching(UUID), name: 'Local workspace', plan: 'oss' }

const assertion = () => unsignedAssertion({ email: 'agent@example.com', sub: 'agent-1', iss: 'https://agent.example' })
const validBodies = () => [{ type: 'identity_assertion', assertion: assertion() }, { type: 'anonymous' }]

/** The spec's error table for POST /api/agent/auth, each case with the answer it gets everywhere. */
const invalidBodies = (): Array<[unknown, number, string]> => [
  [{}, 400, 'Missing type'],
  [{ assertion: assertion() }, 400, 'Missing type'],
  [{ type: 'identity_assertion' }, 400, 'Invalid assertion format'],
  [{ type: 'identity_assertion', assertion: 'abc.def' }, 400, 'Invalid assertion format'],
  [{ type: 'identity_assertion', assertion: '!!.??.' }, 400, 'Invalid assertion format'],
  [{ type: 'identity_assertion', assertion: unsignedAssertion({ iss: 'https://agent.example' }) }, 401, 'assertion verification failed'],
  [
    { type: 'identity_assertion', assertion: `${unsignedAssertion({ email: 'a@example.com', iss: 'https://nobody.example' })}c2ln` },
    401,
    'assertion verification failed',
  ],
  [{ type: 'password' }, 400, 'INVALID_BODY'],
]

async function expectSpecErrors(api: TestApi): Promise<void> {
  for (const [body, status, error] of invalidBodies()) {
    const reply = await api.send(agentAuth, { body })
    expect([JSON.stringify(body), reply.status, reply.body.error]).toEqual([JSON.stringify(body), status, error])
  }
  const empty = await api.send(agentAuth, { raw: '', headers: { 'content-type': 'application/json' } })
  expect([empty.status, empty.body.error]).toEqual([400, 'Missing type'])
}

async function expectRefused(api: TestApi): Promise<void> {
  for (const body of validBodies()) {
    const reply = await api.send(agentAuth, { body })
    expect([body.type, reply.status, reply.body.error]).toEqual([body.type, 403, 'Forbidden'])
    expect(reply.body.message).toContain('folio keys show')
    expect(reply.text).not.toMatch(/folio_live_/)
  }
}

describe('OSS, from this machine', () => {
  const s = useServer({ config: { rateLimits: { auth: 10_000 } } })
  // Through the tunnel the key is needed: there a credential shows whether it is one.
  const remote = (key: string) => testApi(s.ts.server.tunnelTarget, { key })

  it('answers the spec’s validation errors', async () => {
    await expectSpecErrors(s.api)
  })

  it('identity assertion → completed, with the server’s key as the credential', async () => {
    const reply = await s.api.send(agentAuth, { body: { type: 'identity_assertion', assertion: assertion(), requested_credential_type: 'api_key' } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('cache-control')).toBe('no-store')
    expect(reply.body).toEqual({
      status: 'completed',
      credential: { access_token: expect.stringMatching(KEY), token_type: 'Bearer', organization: LOCAL_ORGANIZATION },
    })
    expect(reply.body.credential.access_token).toBe((await s.api.send(getKey)).body.apiKey)
    expect((await testApi(s.ts.server.tunnelTarget).send(listFolios)).status).toBe(401)
    expect((await remote(reply.body.credential.access_token).send(listFolios)).status).toBe(200)
  })

  it('anonymous → pending_claim, whose token is the key already: nothing to claim', async () => {
    const reply = await s.api.send(agentAuth, { body: { type: 'anonymous' } })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({
      registration_session_id: expect.stringMatching(UUID),
      status: 'pending_claim',
      credential: { token: expect.stringMatching(KEY), token_type: 'APIKey', expires_at: expect.any(String) },
    })
    const expiresIn = Date.parse(reply.body.credential.expires_at) - Date.now()
    expect(expiresIn).toBeGreaterThan(14 * 60_000)
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000)
    const agent = remote(reply.body.credential.token)
    const id = await agent.create('Made by a registered agent')
    expect((await s.api.send(listFolios)).body.map((f: { id: string }) => f.id)).toContain(id)

    const registration_session_id = reply.body.registration_session_id
    const claim = await s.api.send(agentClaim, { body: { email: 'agent@example.com', registration_session_id } })
    expect([claim.status, claim.body.error]).toEqual([403, 'Endpoint not available in OSS'])
    expect(claim.body.message).toMatch(/nothing to claim/)
    const complete = await s.api.send(agentClaimComplete, { body: { email: 'agent@example.com', code: '123456', registration_session_id } })
    expect([complete.status, complete.body.error]).toEqual([403, 'Endpoint not available in OSS'])
  })

  it('names the same organization every time, and follows the key when it rotates', async () => {
    const first = await s.api.send(agentAuth, { body: { type: 'identity_assertion', assertion: assertion() } })
    const rotated = (await s.api.send(rotateKey)).body.apiKey
    const second = await s.api.send(agentAuth, { body: { type: 'identity_assertion', assertion: unsignedAssertion({ sub: 'another-agent' }) } })
    expect(second.body.credential.organization).toEqual(first.body.credential.organization)
    expect(second.body.credential.access_token).toBe(rotated)
    expect((await remote(first.body.credential.access_token).send(listFolios)).status).toBe(401)
  })

  it('refuses a wrong key with 401, as everywhere', async () => {
    for (const body of validBodies()) {
      const reply = await s.api.send(agentAuth, { body, headers: bearer(`folio_live_${'0'.repeat(48)}`) })
      expect([reply.status, reply.body.error]).toEqual([401, 'Unauthorized'])
    }
  })

  it('never hands the key to an OAuth token', async () => {
    const token = (await obtainTokens(s.ts.url)).tokens.access_token
    for (const body of validBodies()) {
      const reply = await s.api.send(agentAuth, { body, headers: bearer(token) })
      expect([reply.status, reply.body.error]).toEqual([403, 'Forbidden'])
      expect(reply.text).not.toMatch(/folio_live_/)
    }
  })

  it('has nothing to give while the key is revoked', async () => {
    await s.api.send(revokeKey)
    const reply = await s.api.send(agentAuth, { body: { type: 'anonymous' } })
    expect([reply.status, reply.body.error]).toEqual([404, 'No API key'])
    expect(reply.body.message).toContain('folio keys rotate')
    const key = (await s.api.send(rotateKey)).body.apiKey
    expect((await s.api.send(agentAuth, { body: { type: 'anonymous' } })).body.credential.token).toBe(key)
  })
})

describe('OSS, from another machine (serve --host 0.0.0.0) and through the tunnel', () => {
  const s = useServer({ host: '0.0.0.0', config: { rateLimits: { auth: 10_000 } } })
  const lan = lanAddresses()[0]
  const fromLan = (key?: string) => testApi(`http://${lan}:${new URL(s.ts.url).port}`, { key })
  const viaTunnel = (key?: string) => testApi(s.ts.server.tunnelTarget, { key })

  it('runs on a machine with a network address (else this describe proves little)', () => {
    expect(lan, 'a non-loopback IPv4 address of this machine').toBeTruthy()
  })

  it('judges the body first: the spec’s errors, whoever asks', async () => {
    await expectSpecErrors(fromLan())
    await expectSpecErrors(viaTunnel())
  })

  it('refuses a valid request without the key: 403, saying to use the key', async () => {
    await expectRefused(fromLan())
    await expectRefused(viaTunnel())
  })

  it('gives the credential to a caller that sends the key', async () => {
    const key = (await s.api.send(getKey)).body.apiKey as string
    for (const api of [fromLan(key), viaTunnel(key)]) {
      const completed = await api.send(agentAuth, { body: { type: 'identity_assertion', assertion: assertion() } })
      expect(completed.status).toBe(200)
      expect(completed.body).toEqual({ status: 'completed', credential: { access_token: key, token_type: 'Bearer', organization: LOCAL_ORGANIZATION } })
      const pending = await api.send(agentAuth, { body: { type: 'anonymous' } })
      expect(pending.status).toBe(200)
      expect(pending.body.credential).toEqual({ token: key, token_type: 'APIKey', expires_at: expect.any(String) })
    }
    const wrong = await fromLan(`folio_live_${'0'.repeat(48)}`).send(agentAuth, { body: { type: 'anonymous' } })
    expect([wrong.status, wrong.body.error]).toEqual([401, 'Unauthorized'])
  })
})

describe('OSS with FOLIO_API_KEY set', () => {
  const ENV_KEY = `folio_live_${'5e'.repeat(24)}`
  const s = useServer({ config: { apiKey: ENV_KEY, rateLimits: { auth: 10_000 } } })

  it('asks this machine’s programs for the key too, as reading the key does', async () => {
    await expectSpecErrors(s.api)
    await expectRefused(s.api)
    const reply = await s.api.send(agentAuth, { body: { type: 'anonymous' }, headers: bearer(ENV_KEY) })
    expect(reply.status).toBe(200)
    expect(reply.body.credential.token).toBe(ENV_KEY)
  })
})
