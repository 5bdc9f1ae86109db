import { describe, expect, it } from 'vitest'
import { deleteFolio, updateFolio } from '../src/api/files.js'
import { getKey } from '../src/api/keys.js'
import { getPublicFolio, verifyAccessKey } from '../src/api/sharing.js'
import { testApi } from './helpers/api.js'
import { openEvents } from './helpers/events.js'
import { useServer } from './helpers/use-server.js'

// Issue 9: before the server closes a share page's live stream for access reasons it says why,
// so the page takes the content off the screen at once.
const s = useServer({ config: { rateLimits: { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 } } })
const viewer = () => testApi(s.ts.server.tunnelTarget)

const published = () => s.api.create('Live', { 'index.html': '<h1>Hi</h1>' }, { status: 'published' })
const change = async (id: string, body: object) => expect((await s.api.send(updateFolio, { params: { id }, body })).status).toBe(200)

/** A viewer who proved the key: the access cookie the share page would hold. */
async function cookieFor(id: string, accessKey: string): Promise<string> {
  const reply = await viewer().send(verifyAccessKey, { params: { id }, body: { accessKey } })
  expect(reply.body).toEqual({ success: true })
  return reply.headers.get('set-cookie')!.split(';')[0]!
}

describe('revoked', () => {
  it('is sent with reason private, then the stream closes', async () => {
    const id = await published()
    const events = await openEvents(viewer(), id)
    await change(id, { isPrivate: true, accessKey: 'sesame' })
    expect((await events.next('revoked')).data).toEqual({ reason: 'private' })
    await events.ended()
    expect(events.events.map((e) => e.event)).toEqual(['revoked'])
  })

  it('says a folio made a draft is gone, as a deleted one: a draft is not there for a viewer', async () => {
    const id = await published()
    const events = await openEvents(viewer(), id)
    await change(id, { status: 'draft' })
    await events.ended()
    expect(events.events).toEqual([
      { event: 'revoked', data: { reason: 'deleted' } },
      { event: 'deleted', data: {} },
    ])
  })

  it('is sent with reason draft to the owner on this machine without a grant (it knows the draft)', async () => {
    const id = await published()
    const events = await openEvents(s.api, id)
    await change(id, { status: 'draft' })
    expect((await events.next('revoked')).data).toEqual({ reason: 'draft' })
    await events.ended()
    expect(events.events.map((e) => e.event)).toEqual(['revoked'])
  })

  it("is sent with reason key-changed to a viewer whose key is no longer the folio's", async () => {
    const id = await published()
    await change(id, { isPrivate: true, accessKey: 'sesame' })
    const cookie = await cookieFor(id, 'sesame')
    const events = await openEvents(viewer(), id, { cookie })
    await change(id, { title: 'Still open to you' })
    await events.next('meta', (d) => d.title === 'Still open to you')
    await change(id, { accessKey: 'new sesame' })
    expect((await events.next('revoked')).data).toEqual({ reason: 'key-changed' })
    await events.ended()
    // Reconnecting gets the 403 the page now expects, with nothing of the folio in it.
    const again = await viewer().send(getPublicFolio, { params: { id }, headers: { cookie } })
    expect(again.body).toMatchObject({ isPrivate: true, activeFileList: [], comments: [] })
  })

  it('is sent with reason deleted, with the deleted event the page knew, when the folio is deleted', async () => {
    const id = await published()
    const events = await openEvents(viewer(), id)
    expect((await s.api.send(deleteFolio, { params: { id } })).status).toBe(200)
    await events.ended()
    expect(events.events).toEqual([
      { event: 'revoked', data: { reason: 'deleted' } },
      { event: 'deleted', data: {} },
    ])
  })

  it("never reaches the owner's own preview stream, which keeps receiving", async () => {
    const id = await published()
    const key = (await s.api.send(getKey)).body.apiKey as string
    const events = await openEvents(testApi(s.ts.server.tunnelTarget, { key }), id)
    await change(id, { status: 'draft' })
    await events.next('meta', (d) => d.status === 'draft')
    expect(events.closed).toBe(false)
    expect(events.events.map((e) => e.event)).not.toContain('revoked')
    await events.cancel()
  })
})
