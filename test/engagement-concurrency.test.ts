import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, deleteComment, getReactions, listComments, react, recordAnalytics, resolveComment } from '../src/api/engagement.js'
import { getFolio } from '../src/api/files.js'
import { type TestApi, testApi } from './helpers/api.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean, expectCleanLog } from './helpers/use-server.js'

// Not useServer: one test restarts the server on its data dir.
let ts: TestServer
let api: TestApi

// Room for the bursts below: these tests are about losing nothing, not about limits.
const config = { rateLimits: { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 } }

beforeAll(async () => {
  ts = await startTestServer({ config })
  api = testApi(ts.url)
})
afterAll(() => closeClean(ts))

describe('group commit loses nothing', () => {
  it('turns 1,000 concurrent beacons into exactly 1,000 views', async () => {
    const id = await api.create('Popular', { 'index.html': 'x' }, { status: 'published' })
    const replies = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        api.send(recordAnalytics, { params: { id }, body: { isInitial: true, device: i % 4 === 0 ? 'mobile' : 'desktop', sessionSeconds: 2 } }),
      ),
    )
    expect(replies.every((r) => r.status === 200 && r.body.success === true)).toBe(true)
    const analytics = (await api.send(getFolio, { params: { id } })).body.analytics
    expect(analytics).toMatchObject({ views: 1000, totalTimeSeconds: 2000, avgTimeSeconds: 2, mobileViews: 250, desktopViews: 750 })
    // And it is on disk: a restart reads the same.
    const dataDir = ts.dataDir
    await ts.stop()
    expectCleanLog(ts)
    ts = await startTestServer({ dataDir, config })
    api = testApi(ts.url)
    expect((await api.send(getFolio, { params: { id } })).body.analytics.views).toBe(1000)
  })

  it('keeps every emoji when reactions on different emoji race', async () => {
    const id = await api.create('Reactive', { 'index.html': 'x' }, { status: 'published' })
    const emoji = ['👍', '❤️', '💡', '🔥']
    await Promise.all(emoji.flatMap((e, i) => Array.from({ length: 10 }, () => api.send(react, { params: { id }, body: { reactions: { [e]: i + 1 } } }))))
    expect((await api.send(getReactions, { params: { id } })).body.reactions).toEqual({ '👍': 1, '❤️': 2, '💡': 3, '🔥': 4 })
    await Promise.all(emoji.flatMap((e) => Array.from({ length: 50 }, () => api.send(react, { params: { id }, body: { increments: { [e]: 1 } } }))))
    expect((await api.send(getReactions, { params: { id } })).body.reactions).toEqual({ '👍': 51, '❤️': 52, '💡': 53, '🔥': 54 })
  })

  it('keeps every comment posted at once, each with its own id', async () => {
    const id = await api.create('Discussed', { 'index.html': 'x' }, { status: 'published' })
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        api.send(createComment, { params: { id }, body: { text: `c${i}`, versionId: 'v1', filename: 'index.html', x: i % 100, y: 50 } }),
      ),
    )
    expect(replies.every((r) => r.status === 200)).toBe(true)
    const comments = (await api.send(listComments, { params: { id } })).body
    expect(comments).toHaveLength(200)
    expect(new Set(comments.map((c: any) => c.id)).size).toBe(200)
    expect(new Set(comments.map((c: any) => c.text)).size).toBe(200)
  })

  it('applies comments made, resolved and deleted at once, across segments, and a restart reads the same', async () => {
    const id = await api.create('Busy', { 'index.html': 'x' }, { status: 'published' })
    // ~1 KB each: 300 of them fill several 64 KB segments.
    const make = (i: number) =>
      api.send(createComment, { params: { id }, body: { text: `first ${i} ${'p'.repeat(1000)}`, versionId: 'v1', filename: 'index.html' } })
    const first = await Promise.all(Array.from({ length: 300 }, (_, i) => make(i)))
    const ids = first.map((r) => r.body.comment.id as string)
    // Resolve a third, delete a third, and add 300 more, all at once.
    const work = await Promise.all([
      ...ids.filter((_, i) => i % 3 === 0).map((commentId) => api.send(resolveComment, { params: { id }, body: { commentId, resolved: true } })),
      ...ids.filter((_, i) => i % 3 === 1).map((commentId) => api.send(deleteComment, { params: { id }, query: { commentId } })),
      ...Array.from({ length: 300 }, (_, i) => make(300 + i)),
    ])
    expect(work.every((r) => r.status === 200)).toBe(true)
    const expected = {
      count: 500,
      resolved: ids.filter((_, i) => i % 3 === 0).sort(),
      all: [...ids.filter((_, i) => i % 3 !== 1), ...work.slice(200).map((r) => r.body.comment.id as string)].sort(),
    }
    const check = async () => {
      const comments: any[] = (await api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments
      expect(comments).toHaveLength(expected.count)
      expect(comments.map((c) => c.id)).toEqual(expected.all)
      expect(comments.filter((c) => c.resolved).map((c) => c.id)).toEqual(expected.resolved)
    }
    await check()
    const dataDir = ts.dataDir
    await ts.stop()
    expectCleanLog(ts)
    ts = await startTestServer({ dataDir, config })
    api = testApi(ts.url)
    await check()
    expect((await api.send(listComments, { params: { id }, query: { limit: 500 } })).body).toHaveLength(500)
  })
})
