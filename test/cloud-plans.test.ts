import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFolio, getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { uploadFile } from '../src/api/uploads.js'
import { getWorkspace } from '../src/api/workspace.js'
import { chargeAiMessage } from '../src/server/limits/ai-quota.js'
import { DEFAULT_PLANS } from '../src/store/index.js'
import { tinyPng } from './helpers/images.js'
import { makeDataDir, startTestServer, type TestServer } from './helpers/server.js'
import { closeClean, expectLogged } from './helpers/use-server.js'
import { createWorkspace } from './helpers/workspaces.js'

const PLANS = {
  ...DEFAULT_PLANS,
  tiny: { requestsPerMinute: 6, aiMessagesPerMonth: 2, storageBytes: 100_000 },
  small: { requestsPerMinute: 1000, aiMessagesPerMonth: 3, storageBytes: 1_000 },
}

describe('plans (Cloud)', () => {
  let ts: TestServer
  beforeAll(async () => {
    const dataDir = await makeDataDir()
    await writeFile(join(dataDir, 'plans.json'), JSON.stringify(PLANS))
    ts = await startTestServer({ mode: 'cloud', dataDir })
  })
  afterAll(() => closeClean(ts))

  it('puts X-RateLimit-* of the plan on every authenticated answer, and 429 with Retry-After past it', async () => {
    const ws = await createWorkspace(ts, { plan: 'tiny' })
    const other = await createWorkspace(ts, { plan: 'tiny' })
    const id = await ws.api.create('Limited')
    const seen: Array<[number, string | null, string | null]> = []
    // The second GET of the folio is answered from the hot cache: it counts and carries them too.
    for (let i = 0; i < 5; i++) {
      const reply = await ws.api.send(getFolio, { params: { id } })
      seen.push([reply.status, reply.headers.get('x-ratelimit-limit'), reply.headers.get('x-ratelimit-remaining')])
      const reset = Number(reply.headers.get('x-ratelimit-reset'))
      expect(reset).toBeGreaterThan(Date.now() / 1000 - 1)
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60)
    }
    // The create was the first request of the window.
    expect(seen).toEqual([4, 3, 2, 1, 0].map((left) => [200, '6', String(left)]))
    for (const attempt of [() => ws.api.send(getFolio, { params: { id } }), () => ws.api.send(listFolios)]) {
      const refused = await attempt()
      expect(refused.status).toBe(429)
      expect(refused.body.error).toBe('Too many requests')
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
    }
    // Another workspace has its own window (an error answer counts and says so too); public
    // endpoints keep their per-client limits.
    expect((await other.api.send(listFolios)).headers.get('x-ratelimit-remaining')).toBe('5')
    const notFound = await other.api.send(getFolio, { params: { id } })
    expect(notFound.status).toBe(404)
    expect(notFound.headers.get('x-ratelimit-remaining')).toBe('4')
    const pub = await ts.server.store.folios.get(id)
    expect(pub).toBeDefined()
    const publicReply = await ws.api.send(getPublicFolio, { params: { id } })
    expect(publicReply.status).toBe(200)
    expect(publicReply.headers.get('x-ratelimit-limit')).toBe('600')
  })

  it('refuses a write over the storage quota whole, with 402 STORAGE_EXCEEDED, counting each content once', async () => {
    const ws = await createWorkspace(ts, { plan: 'small' })
    const page = 'x'.repeat(400)
    const first = await ws.api.send(createFolio, { body: { title: 'One', defaultFiles: { 'index.html': page } } })
    expect(first.status).toBe(201)
    // The same content in a second folio, and twice in one write, costs nothing more.
    const second = await ws.api.send(createFolio, { body: { title: 'Two', defaultFiles: { 'index.html': page, 'copy.html': page } } })
    expect(second.status).toBe(201)
    expect((await ws.api.send(getWorkspace)).body.usage.storageBytes).toBe(400)

    const over = await ws.api.send(updateFolio, {
      params: { id: first.body.project.id },
      body: { files: { 'index.html': 'y'.repeat(500), 'more.html': 'z'.repeat(200) } },
    })
    expect(over.status).toBe(402)
    expect(over.body.error).toBe('STORAGE_EXCEEDED')
    expect(over.body.message).toMatch(/upgrade the plan/i)
    const unchanged = (await ws.api.send(getFolio, { params: { id: first.body.project.id } })).body
    expect(unchanged.versions).toHaveLength(1)
    expect(Object.keys(unchanged.versions[0].files)).toEqual(['index.html'])

    const fits = await ws.api.send(updateFolio, { params: { id: first.body.project.id }, body: { files: { 'index.html': 'y'.repeat(500) } } })
    expect(fits.status).toBe(200)
    expect((await ws.api.send(getWorkspace)).body.usage.storageBytes).toBe(900)
    const image = await ws.api.send(uploadFile, {
      params: { id: first.body.project.id },
      raw: new Uint8Array(Buffer.concat([tinyPng(), Buffer.alloc(200)])),
      headers: { 'x-file-path': 'img/a.png' },
    })
    expect(image.status).toBe(402)
    expect(image.body.error).toBe('STORAGE_EXCEEDED')
  })

  it('lets concurrent writes share the quota, never pass it together', async () => {
    const ws = await createWorkspace(ts, { plan: 'small' })
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => ws.api.send(createFolio, { body: { title: `Race ${i}`, defaultFiles: { 'index.html': String(i).repeat(400) } } })),
    )
    expect(replies.map((r) => r.status).sort()).toEqual([201, 201, 402, 402, 402, 402])
    expect((await ws.api.send(getWorkspace)).body.usage.storageBytes).toBe(800)
  })

  it('counts AI messages per month against the plan: 402 QUOTA_EXCEEDED past it', async () => {
    const ws = await createWorkspace(ts, { plan: 'small' })
    const principal = ts.server.store.workspaces.principalOfKey(ws.apiKey)!
    const ctx = ts.server.context
    expect(await chargeAiMessage(ctx, principal)).toEqual({ used: 1, limit: 3 })
    await chargeAiMessage(ctx, principal)
    await chargeAiMessage(ctx, principal)
    const refused = await chargeAiMessage(ctx, principal).then(
      () => undefined,
      (error: { status: number; error: string; detail: string }) => error,
    )
    expect(refused).toMatchObject({ status: 402, error: 'QUOTA_EXCEEDED', detail: expect.stringMatching(/upgrade the plan/i) })
    const info = (await ws.api.send(getWorkspace)).body
    expect(info).toEqual({ id: ws.id, name: 'Test workspace', plan: 'small', usage: { storageBytes: 0, aiMessagesThisMonth: 3 }, limits: PLANS.small })
    // Next month starts from zero.
    const nextMonth = new Date(Date.now() + 32 * 24 * 60 * 60_000)
    expect(await chargeAiMessage(ctx, principal, nextMonth)).toEqual({ used: 1, limit: 3 })
  })

  it('takes a changed plans.json without a restart, and keeps the plans in force when the edit is broken', async () => {
    const ws = await createWorkspace(ts, { plan: 'tiny' })
    const plansFile = join(ts.dataDir, 'plans.json')
    await writeFile(plansFile, JSON.stringify({ ...PLANS, tiny: { ...PLANS.tiny, requestsPerMinute: 50 } }))
    await expect.poll(async () => (await ws.api.send(listFolios)).headers.get('x-ratelimit-limit'), { timeout: 8_000, interval: 250 }).toBe('50')
    await writeFile(plansFile, '{"tiny": {"requestsPerMinute": "lots"}}')
    await expect.poll(() => ts.logs.length, { timeout: 8_000, interval: 250 }).toBe(1)
    expectLogged(ts, [
      expect.stringContaining('plan "tiny": requestsPerMinute must be a whole number of at least 0; the plans in force stay as they were') as unknown as string,
    ])
    expect((await ws.api.send(listFolios)).headers.get('x-ratelimit-limit')).toBe('50')
    await writeFile(plansFile, JSON.stringify(PLANS))
  })
})

describe('plans.json on the first Cloud start', () => {
  it('is written with the defaults, and a broken one stops the start with what to do', async () => {
    const ts = await startTestServer({ mode: 'cloud' })
    await ts.stop()
    expect(JSON.parse(await readFile(join(ts.dataDir, 'plans.json'), 'utf8'))).toEqual(DEFAULT_PLANS)
    await closeClean(ts)
    const broken = await makeDataDir()
    await mkdir(broken, { recursive: true })
    await writeFile(join(broken, 'plans.json'), '{"free": {}}')
    await expect(startTestServer({ mode: 'cloud', dataDir: broken })).rejects.toThrow(
      /plans\.json: plan "free": requestsPerMinute must be a whole number.*Fix the file/,
    )
    await rm(broken, { recursive: true, force: true })
  })
})
