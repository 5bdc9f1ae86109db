import { describe, expect, it } from 'vitest'
import { getReactions, react, recordAnalytics } from '../src/api/engagement.js'
import { getFolio } from '../src/api/files.js'
import { getKey } from '../src/api/keys.js'
import { sharePage } from '../src/api/viewer.js'
import { testApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

// Issue 9: one reaction per emoji per viewer, a second click takes it back; the owner's own
// preview counts neither reactions nor views.
const s = useServer({ config: { rateLimits: { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 } } })
const viewer = () => testApi(s.ts.server.tunnelTarget)

const published = () => s.api.create('Reactions', { 'index.html': '<h1>Hi</h1>' }, { status: 'published' })
const counts = async (id: string) => (await viewer().send(getReactions, { params: { id } })).body.reactions
const analytics = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.analytics
const click = async (api: ReturnType<typeof testApi>, id: string, increments: object, headers?: Record<string, string>) => {
  const reply = await api.send(react, { params: { id }, body: { increments }, headers })
  expect(reply.status, reply.text).toBe(200)
  return reply.body.reactions
}

describe("a viewer's clicks", () => {
  it('add one and take one back; a count never goes below 0, a request moves it by one at most', async () => {
    const id = await published()
    expect(await click(viewer(), id, { '👍': 1, '🔥': 1 })).toEqual({ '👍': 1, '🔥': 1 })
    expect(await click(viewer(), id, { '👍': -1 })).toEqual({ '👍': 0, '🔥': 1 })
    expect(await click(viewer(), id, { '👍': -1 })).toEqual({ '👍': 0, '🔥': 1 })
    expect(await click(viewer(), id, { '🔥': -50, '💡': 9, '🦄': 1 })).toEqual({ '👍': 0, '🔥': 0, '💡': 1 })
    expect(await click(viewer(), id, { '💡': 0.5, '❤️': -0.9, '🔥': 'lots' })).toEqual({ '👍': 0, '🔥': 0, '💡': 1 })
  })

  it('count from a share page in a normal tab on this machine (no key, its own origin)', async () => {
    const id = await published()
    const page = { origin: new URL(s.ts.url).origin }
    expect(await click(s.api, id, { '❤️': 1 }, page)).toEqual({ '❤️': 1 })
    await s.api.send(recordAnalytics, { params: { id }, body: { isInitial: true }, headers: page })
    expect((await analytics(id)).views).toBe(1)
  })
})

describe("the owner's own view", () => {
  it('with the key: clicks and beacons are answered as usual and change nothing; setting counts still works', async () => {
    const id = await published()
    await click(viewer(), id, { '👍': 1 })
    const key = (await s.api.send(getKey)).body.apiKey as string
    const owner = testApi(s.ts.server.tunnelTarget, { key })
    expect(await click(owner, id, { '👍': 1, '🔥': 1 })).toEqual({ '👍': 1 })
    const beacon = await owner.send(recordAnalytics, { params: { id }, body: { isInitial: true, sessionSeconds: 30 } })
    expect(beacon.body).toEqual({ success: true })
    expect(await analytics(id)).toMatchObject({ views: 0, totalTimeSeconds: 0 })
    const set = await owner.send(react, { params: { id }, body: { reactions: { '👍': 40 } } })
    expect(set.body.reactions).toEqual({ '👍': 40 })
  })

  it('in the preview (?preview set its grant): clicks and beacons do not count', async () => {
    const id = await published()
    const preview = await s.api.send(sharePage, { params: { id }, query: { preview: '1' } })
    const cookie = preview.headers.get('set-cookie')!.split(';')[0]!
    expect(await click(viewer(), id, { '💡': 1, '👍': 1 }, { cookie })).toEqual({})
    await viewer().send(recordAnalytics, { params: { id }, body: { isInitial: true }, headers: { cookie } })
    expect(await counts(id)).toEqual({})
    expect((await analytics(id)).views).toBe(0)
    // The same browser without that grant is a viewer again.
    expect(await click(viewer(), id, { '💡': 1 })).toEqual({ '💡': 1 })
  })
})
