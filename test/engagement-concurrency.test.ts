import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { client } from './helpers/http.js'
import { startTestServer, type TestServer } from './helpers/server.js'

let ts: TestServer
let api: ReturnType<typeof client>

// Room for the bursts below: these tests are about losing nothing, not about limits.
const config = { rateLimits: { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 } }

beforeAll(async () => {
  ts = await startTestServer({ config })
  api = client(ts.url)
})
afterAll(async () => {
  expect(ts.logs).toEqual([])
  await ts.close()
})

describe('group commit loses nothing', () => {
  it('turns 1,000 concurrent beacons into exactly 1,000 views', async () => {
    const id = await api.create('Popular', { 'index.html': 'x' }, { status: 'published' })
    const replies = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => api.post(`/api/files/${id}/analytics`, { isInitial: true, device: i % 4 === 0 ? 'mobile' : 'desktop', sessionSeconds: 2 })),
    )
    expect(replies.every((r) => r.status === 200 && r.body.success === true)).toBe(true)
    const analytics = (await api.get(`/api/files/${id}`)).body.analytics
    expect(analytics).toEqual({ views: 1000, totalTimeSeconds: 2000, avgTimeSeconds: 2, mobileViews: 250, desktopViews: 750 })
    // And it is on disk: a restart reads the same.
    const dataDir = ts.dataDir
    await ts.stop()
    ts = await startTestServer({ dataDir, config })
    api = client(ts.url)
    expect((await api.get(`/api/files/${id}`)).body.analytics.views).toBe(1000)
  })

  it('keeps every emoji when reactions on different emoji race', async () => {
    const id = await api.create('Reactive', { 'index.html': 'x' }, { status: 'published' })
    const emoji = ['👍', '❤️', '💡', '🔥']
    await Promise.all(emoji.flatMap((e, i) => Array.from({ length: 10 }, () => api.post(`/api/files/${id}/reactions`, { reactions: { [e]: i + 1 } }))))
    expect((await api.get(`/api/files/${id}/reactions`)).body.reactions).toEqual({ '👍': 1, '❤️': 2, '💡': 3, '🔥': 4 })
    await Promise.all(emoji.flatMap((e) => Array.from({ length: 50 }, () => api.post(`/api/files/${id}/reactions`, { increments: { [e]: 1 } }))))
    expect((await api.get(`/api/files/${id}/reactions`)).body.reactions).toEqual({ '👍': 51, '❤️': 52, '💡': 53, '🔥': 54 })
  })

  it('keeps every comment posted at once, each with its own id', async () => {
    const id = await api.create('Discussed', { 'index.html': 'x' }, { status: 'published' })
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => api.post(`/api/files/${id}/comments`, { text: `c${i}`, versionId: 'v1', filename: 'index.html', x: i % 100, y: 50 })))
    expect(replies.every((r) => r.status === 200)).toBe(true)
    const comments = (await api.get(`/api/files/${id}/comments`)).body
    expect(comments).toHaveLength(200)
    expect(new Set(comments.map((c: any) => c.id)).size).toBe(200)
    expect(new Set(comments.map((c: any) => c.text)).size).toBe(200)
  })
})
