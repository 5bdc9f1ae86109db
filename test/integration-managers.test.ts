import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Contract } from '../src/api/contract.js'
import { deleteWorkspaceAi, setWorkspaceAi } from '../src/api/ai.js'
import { listFolios } from '../src/api/files.js'
import { getIntegrations, setIntegrations } from '../src/api/integrations.js'
import { revokeKey, rotateKey } from '../src/api/keys.js'
import { listOAuthGrants, revokeOAuthGrant } from '../src/api/oauth.js'
import { listSessions, requestSignInCode, signIn } from '../src/api/sign-in.js'
import { inviteMember, removeMember, setMemberRole } from '../src/api/workspace.js'
import { type SendInput, testApi } from './helpers/api.js'
import { codeMailedTo } from './helpers/agents.js'
import { bearer, obtainTokens } from './helpers/oauth.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'
import { closeClean } from './helpers/use-server.js'
import { addMember, createWorkspace, type TestWorkspace } from './helpers/workspaces.js'

/**
 * An OAuth token acts on folios for whoever approved it and manages nothing of the workspace:
 * not its key, members, sessions, AI settings, nor its chat integrations (whose URLs are the chat
 * tools' secrets: a token reads none either). Each integration says who configured it, so the
 * owner sees where every webhook came from.
 */
let smtp: TestSmtpServer
let ts: TestServer
let ws: TestWorkspace
let token: string
beforeAll(async () => {
  smtp = await startSmtpServer()
  ts = await startTestServer({ mode: 'cloud', config: { smtpUrl: smtp.url, rateLimits: { auth: 10_000 } } })
  ws = await createWorkspace(ts, { name: 'First', email: 'owner@example.com' })
  await addMember(ts, ws.id, 'member@example.com', 'member')
  token = (await obtainTokens(ts.url, { apiKey: ws.apiKey })).tokens.access_token
})
afterAll(async () => {
  await closeClean(ts)
  await smtp.close()
})

const api = () => testApi(ts.url)
const asToken = () => ({ headers: bearer(token) })
const SLACK = 'https://hooks.slack.com/services/T1/B1/secret'
const DISCORD = 'https://discord.com/api/webhooks/1/secret'

/** A write from our own page: the session cookie and our Origin (a session never writes for another site). */
const fromOurPage = (cookie: string) => ({ cookie, origin: new URL(ts.url).origin })

async function sessionOf(email: string): Promise<string> {
  expect((await api().send(requestSignInCode, { body: { email } })).status).toBe(200)
  const code = await codeMailedTo(smtp, email)
  const response = await api().request(signIn, { body: { email, code } })
  expect(response.status).toBe(200)
  return response.headers.getSetCookie()[0]!.split(';')[0]!
}

describe('an OAuth token', () => {
  it('can neither read nor change the integrations: 403, and nothing changes', async () => {
    expect((await ws.api.send(setIntegrations, { body: { integrations: [{ url: SLACK }] } })).status).toBe(200)
    const put = await api().send(setIntegrations, { body: { integrations: [{ url: 'https://attacker.example/hook' }] }, ...asToken() })
    expect([put.status, put.body]).toEqual([403, { error: 'Forbidden', message: "Only the Owner or an Admin may change the workspace's integrations." }])
    const cleared = await api().send(setIntegrations, { body: { integrations: [] }, ...asToken() })
    expect(cleared.status).toBe(403)
    const get = await api().send(getIntegrations, asToken())
    expect([get.status, get.body.error]).toEqual([403, 'Forbidden'])
    expect(get.text).not.toContain('hooks.slack.com')
    // The workspace key still manages them, and nothing the token sent arrived.
    const listed = await ws.api.send(getIntegrations)
    expect(listed.body.integrations.map((i: { url: string }) => i.url)).toEqual([SLACK])
    // The token still works on folios.
    expect((await api().send(listFolios, asToken())).status).toBe(200)
  })

  it('manages nothing else of the workspace either', async () => {
    const refused: Array<[Contract, SendInput<Contract>]> = [
      [rotateKey, {}],
      [revokeKey, {}],
      [setWorkspaceAi, { body: { provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-test' } }],
      [deleteWorkspaceAi, {}],
      [inviteMember, { body: { email: 'new@example.com', role: 'admin' } }],
      [setMemberRole, { params: { email: 'member@example.com' } as never, body: { role: 'admin' } }],
      [removeMember, { params: { email: 'member@example.com' } as never }],
      [listSessions, {}],
      [setIntegrations, { body: { integrations: [] } }],
      [getIntegrations, {}],
    ]
    for (const [contract, input] of refused) {
      const reply = await api().send(contract, { ...input, headers: bearer(token) })
      expect([contract.operationId, reply.status, reply.body.error]).toEqual([contract.operationId, 403, 'Forbidden'])
    }
  })
})

describe('who configured an integration', () => {
  it('is listed with each one: the credential, who, when; kept while the same webhook stays', async () => {
    const before = Date.now()
    const byKey = await ws.api.send(setIntegrations, { body: { integrations: [{ url: SLACK }] } })
    expect(byKey.status).toBe(200)
    const first = { url: SLACK, format: 'slack', configuredBy: { credential: 'api-key', name: 'First' }, configuredAt: expect.any(String) }
    expect(byKey.body.integrations).toEqual([first])
    const at = Date.parse(byKey.body.integrations[0].configuredAt)
    expect(at).toBeGreaterThanOrEqual(before - 1_000)
    expect(at).toBeLessThanOrEqual(Date.now())

    // The owner, signed in by e-mail, adds a second: the first keeps who set it.
    const owner = await sessionOf('owner@example.com')
    const bySession = await api().send(setIntegrations, { body: { integrations: [{ url: SLACK }, { url: DISCORD }] }, headers: fromOurPage(owner) })
    expect(bySession.status).toBe(200)
    const second = {
      url: DISCORD,
      format: 'discord',
      configuredBy: { credential: 'session', name: 'owner@example.com', email: 'owner@example.com' },
      configuredAt: expect.any(String),
    }
    expect(bySession.body.integrations).toEqual([{ ...first, configuredAt: byKey.body.integrations[0].configuredAt }, second])
    const listed = await ws.api.send(getIntegrations)
    expect(listed.body.integrations).toEqual(bySession.body.integrations)
    // A member reads them (as before), and may not change them.
    const member = await sessionOf('member@example.com')
    expect((await api().send(getIntegrations, { headers: { cookie: member } })).body.integrations).toEqual(bySession.body.integrations)
    expect((await api().send(setIntegrations, { body: { integrations: [] }, headers: fromOurPage(member) })).status).toBe(403)

    // Changing a webhook's format is configuring it again.
    const reformatted = await ws.api.send(setIntegrations, { body: { integrations: [{ url: SLACK, format: 'discord' }, { url: DISCORD }] } })
    expect(reformatted.body.integrations[0]).toEqual({
      url: SLACK,
      format: 'discord',
      configuredBy: { credential: 'api-key', name: 'First' },
      configuredAt: expect.any(String),
    })
    expect(reformatted.body.integrations[1]).toEqual(bySession.body.integrations[1])
    await ws.api.send(setIntegrations, { body: { integrations: [] } })
  })

  it('a revoked grant changes nothing of them (none can come from a token)', async () => {
    await ws.api.send(setIntegrations, { body: { integrations: [{ url: SLACK }] } })
    const flow = await obtainTokens(ts.url, { apiKey: ws.apiKey })
    expect(
      (await api().send(setIntegrations, { body: { integrations: [{ url: 'https://attacker.example/hook' }] }, headers: bearer(flow.tokens.access_token) }))
        .status,
    ).toBe(403)
    const grant = ((await ws.api.send(listOAuthGrants)).body.grants as Array<{ id: string; clientId: string }>).find(
      (g) => g.clientId === flow.client.client_id,
    )!
    expect((await ws.api.send(revokeOAuthGrant, { params: { grantId: grant.id } })).status).toBe(200)
    expect((await api().send(listFolios, { headers: bearer(flow.tokens.access_token) })).status).toBe(401)
    expect((await ws.api.send(getIntegrations)).body.integrations.map((i: { configuredBy: { credential: string } }) => i.configuredBy.credential)).toEqual([
      'api-key',
    ])
  })
})
