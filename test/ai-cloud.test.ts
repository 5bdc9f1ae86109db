import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { aiConversation, aiCreate, deleteWorkspaceAi, getWorkspaceAi, setWorkspaceAi } from '../src/api/ai.js'
import { getFolio, listFolios } from '../src/api/files.js'
import { getWorkspace } from '../src/api/workspace.js'
import { DEFAULT_PLANS } from '../src/store/index.js'
import { answer, type FakeAi, openaiText, page, sentText, startFakeAi } from './helpers/fake-ai.js'
import { makeDataDir, startTestServer, type TestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'
import { addMember, createWorkspace } from './helpers/workspaces.js'
import { testApi } from './helpers/api.js'
import type { Principal } from '../src/domain/principal.js'

let fake: FakeAi
beforeAll(async () => {
  fake = await startFakeAi()
})
afterAll(() => fake.close())
beforeEach(() => fake.reset())

const PLANS = { ...DEFAULT_PLANS, tiny: { requestsPerMinute: 1000, aiMessagesPerMonth: 2, storageBytes: 4_000 } }

async function everything(dir: string): Promise<string> {
  const names = await readdir(dir, { recursive: true, withFileTypes: true })
  return (await Promise.all(names.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')))).join('\n')
}

describe('AI in Cloud, with the operator’s provider and a workspace’s own key', () => {
  let ts: TestServer
  beforeAll(async () => {
    const dataDir = await makeDataDir()
    await writeFile(join(dataDir, 'plans.json'), JSON.stringify(PLANS))
    // The operator's gateway: keyless, so a workspace key is what tells them apart.
    ts = await startTestServer({
      mode: 'cloud',
      dataDir,
      config: {
        ai: {
          FOLIO_AI_PROVIDER: 'openai',
          FOLIO_AI_MODEL: 'operator-model',
          OPENAI_BASE_URL: `${fake.url}/v1`,
          FOLIO_AI_SECRET: 'operator secret for sealing',
        },
      },
    })
  })
  afterAll(() => closeClean(ts))

  it('ai-create: the model picks mode, title and description and writes index.html; the request’s own key is ignored', async () => {
    const ws = await createWorkspace(ts, { email: 'owner@example.com' })
    fake.reply(
      openaiText(
        answer(
          'A deck about otters.',
          { 'index.html': page('Otters', '<section class="slide"><h1>Otters</h1></section>') },
          { title: 'All about otters', description: 'Why otters hold hands.', projectMode: 'deck' },
        ),
      ),
    )
    const created = await ws.api.send(aiCreate, {
      body: { prompt: 'A deck about otters', apiKey: 'sk-brought-along', designPreferences: { theme: 'material-3' } },
    })
    expect(created.status).toBe(201)
    expect(created.body.project).toMatchObject({ title: 'All about otters', description: 'Why otters hold hands.', projectMode: 'deck' })
    expect(Object.keys(created.body.project).sort()).toEqual(['createdAt', 'description', 'id', 'projectMode', 'title'])
    const folio = (await ws.api.send(getFolio, { params: { id: created.body.project.id } })).body
    expect(folio.versions[0].files['index.html']).toContain('<h1>Otters</h1>')
    const sent = fake.requests[0]!
    expect(sent.headers.authorization).toBe('Bearer not-needed')
    expect(sent.body.model).toBe('operator-model')
    expect(sentText(sent)).toContain('Material')
    expect(sentText(sent)).toContain('<folio-meta>')

    // A title given wins; an answer without a usable index.html creates nothing.
    fake.reply(openaiText('I would rather talk about it.'))
    const before = (await ws.api.send(listFolios)).body.length
    const failed = await ws.api.send(aiCreate, { body: { prompt: 'Something' } })
    expect([failed.status, failed.body.error]).toEqual([500, 'AI failed to generate HTML content.'])
    expect((await ws.api.send(listFolios)).body.length).toBe(before)
  })

  it('a workspace’s own key: set by the Owner or an Admin only, sealed at rest, never shown, used for its requests', async () => {
    const ws = await createWorkspace(ts, { email: 'boss@example.com' })
    await addMember(ts, ws.id, 'member@example.com', 'member')
    expect((await ws.api.send(getWorkspaceAi)).body).toEqual({ configured: true, source: 'server', provider: 'openai', model: 'operator-model', hasKey: false })

    const member = await createWorkspace(ts, { email: 'member-home@example.com' })
    expect(member.id).not.toBe(ws.id)
    const setByOwner = await ws.api.send(setWorkspaceAi, { body: { provider: 'openai', apiKey: 'sk-workspace-secret-9999', model: 'ws-model' } })
    expect(setByOwner.body).toEqual({ configured: true, source: 'workspace', provider: 'openai', model: 'ws-model', hasKey: true })
    expect(JSON.stringify((await ws.api.send(getWorkspaceAi)).body)).not.toContain('sk-workspace')
    expect((await ws.api.send(setWorkspaceAi, { body: { provider: 'openai', apiKey: 'k', baseURL: 'http://10.0.0.1/v1' } })).status).toBe(400)
    expect(await everything(ts.dataDir)).not.toContain('sk-workspace-secret')

    const id = await ws.api.create('Keyed', { 'index.html': page('Keyed') })
    fake.reply(openaiText(answer('Done.', { 'index.html': page('Keyed!') })))
    expect((await ws.api.send(aiConversation, { params: { id }, body: { userPrompt: 'Go', apiKey: 'sk-not-this-one' } })).status).toBe(200)
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-workspace-secret-9999')
    expect(fake.requests[0]!.body.model).toBe('ws-model')
    // Nothing of the workspace's secrets reaches the model.
    expect(sentText(fake.requests[0]!)).not.toContain('sk-')

    expect((await ws.api.send(deleteWorkspaceAi)).body.source).toBe('server')
  })

  it('only the Owner or an Admin changes the provider', async () => {
    const ws = await createWorkspace(ts, { email: 'lead@example.com' })
    await addMember(ts, ws.id, 'max@example.com', 'member')
    await addMember(ts, ws.id, 'ada@example.com', 'admin')
    // Sessions are another resolver: plugged in as one, as the members' tests do.
    ts.server.context.auth.addResolver((token) => {
      if (!token?.startsWith('session-')) return undefined
      const email = token.slice('session-'.length)
      const member = ts.server.store.workspaces.member(ws.id, email)
      return member ? ({ workspaceId: ws.id, name: email, email, role: member.role, via: 'session' } satisfies Principal) : undefined
    })
    const as = (email: string) => testApi(ts.url, { key: `session-${email}` })
    const body = { provider: 'anthropic', apiKey: 'sk-ant-workspace' }
    for (const call of [() => as('max@example.com').send(setWorkspaceAi, { body }), () => as('max@example.com').send(deleteWorkspaceAi)]) {
      expect(await call().then((r) => [r.status, r.body.error])).toEqual([403, 'Forbidden'])
    }
    expect((await as('max@example.com').send(getWorkspaceAi)).body.source).toBe('server')
    expect((await as('ada@example.com').send(setWorkspaceAi, { body })).body).toEqual({
      configured: true,
      source: 'workspace',
      provider: 'anthropic',
      hasKey: true,
    })
  })

  it('counts AI messages against the monthly quota: 402 QUOTA_EXCEEDED past it, and the provider is not called', async () => {
    const ws = await createWorkspace(ts, { plan: 'tiny' })
    const id = await ws.api.create('Quota', { 'index.html': page('Quota') })
    fake.reply(openaiText(answer('One.', { 'index.html': page('One') })), openaiText(answer('Two.', { 'index.html': page('Two') })))
    for (const prompt of ['One', 'Two']) expect((await ws.api.send(aiConversation, { params: { id }, body: { userPrompt: prompt } })).status).toBe(200)
    expect((await ws.api.send(getWorkspace)).body.usage.aiMessagesThisMonth).toBe(2)
    const refused = await ws.api.send(aiConversation, { params: { id }, body: { userPrompt: 'Three' } })
    expect([refused.status, refused.body.error]).toEqual([402, 'QUOTA_EXCEEDED'])
    expect(refused.body.message).toContain('2 AI messages of its tiny plan')
    const refusedCreate = await ws.api.send(aiCreate, { body: { prompt: 'Four' } })
    expect([refusedCreate.status, refusedCreate.body.error]).toEqual([402, 'QUOTA_EXCEEDED'])
    expect(fake.requests).toHaveLength(2)
    // commit-proposal and clear-chat are not AI messages.
    expect((await ws.api.send(aiConversation, { params: { id }, body: { action: 'clear-chat' } })).status).toBe(200)
  })

  it('refuses a commit over the storage quota with 402 STORAGE_EXCEEDED, and stores nothing', async () => {
    const ws = await createWorkspace(ts, { plan: 'tiny' })
    const id = await ws.api.create('Storage', { 'index.html': page('Storage') })
    const big = page('Big', `<p>${'x'.repeat(5_000)}</p>`)
    fake.reply(openaiText(answer('Big.', { 'index.html': big })))
    const immediate = await ws.api.send(aiConversation, { params: { id }, body: { userPrompt: 'Grow', executeImmediately: true } })
    expect([immediate.status, immediate.body.error]).toEqual([402, 'STORAGE_EXCEEDED'])
    const proposal = await ws.api.send(aiConversation, { params: { id }, body: { action: 'commit-proposal', proposedFiles: { 'index.html': big } } })
    expect([proposal.status, proposal.body.error]).toEqual([402, 'STORAGE_EXCEEDED'])
    expect((await ws.api.send(getFolio, { params: { id } })).body.versions).toHaveLength(1)
  })
})

describe('AI in Cloud without any provider', () => {
  let ts: TestServer
  beforeAll(async () => {
    ts = await startTestServer({ mode: 'cloud' })
  })
  afterAll(() => closeClean(ts))

  it('answers 500 AI is not configured for this workspace. on every AI endpoint, and charges nothing', async () => {
    const ws = await createWorkspace(ts)
    const id = await ws.api.create('Nothing', { 'index.html': page('Nothing') })
    for (const reply of [
      await ws.api.send(aiCreate, { body: { prompt: 'A deck' } }),
      await ws.api.send(aiConversation, { params: { id }, body: { userPrompt: 'Go' } }),
    ]) {
      expect([reply.status, reply.body.error]).toEqual([500, 'AI is not configured for this workspace.'])
      expect(reply.body.message).toContain('PUT /api/workspace/ai')
    }
    expect((await ws.api.send(getWorkspaceAi)).body).toEqual({ configured: false, source: 'none', hasKey: false })
    expect((await ws.api.send(getWorkspace)).body.usage.aiMessagesThisMonth).toBe(0)
    expect((await testApi(ts.url).send(getWorkspaceAi)).status).toBe(401)
  })
})
