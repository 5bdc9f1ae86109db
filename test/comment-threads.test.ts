import { describe, expect, it } from 'vitest'
import { createComment, deleteComment, listComments, resolveComment } from '../src/api/engagement.js'
import { getBrief, getFolio, updateFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { testApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

// Issue 9: anchors and threads are optional extensions of Comment, validated, stored, returned.
const s = useServer({ config: { rateLimits: { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 } } })

/** A viewer on the internet: through the tunnel's listener, no key, so not the owner. */
const viewer = () => testApi(s.ts.server.tunnelTarget)

const anchor = { selector: '#total', quote: 'Total +31%', offsetX: 40, offsetY: 60, hash: '#3', slide: 2, viewport: { width: 1440, height: 900 } }
const published = () => s.api.create('Threads', { 'index.html': '<h1>Hi</h1><p id="total">Total +31%</p>' }, { status: 'published' })
const post = (id: string, body: object) =>
  viewer().send(createComment, { params: { id }, body: { text: 'Hm', versionId: 'v1', filename: 'index.html', ...body } })
const make = async (id: string, body: object = {}) => {
  const reply = await post(id, body)
  expect(reply.status, reply.text).toBe(200)
  return reply.body.comment as { id: string; [k: string]: unknown }
}
const ownerComments = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments as any[]
const publicIds = async (id: string) => (await viewer().send(getPublicFolio, { params: { id } })).body.comments.map((c: any) => c.id)
const listedIds = async (id: string) => (await viewer().send(listComments, { params: { id } })).body.map((c: any) => c.id)

describe('anchors', () => {
  it('are stored and returned as sent, anchored on the version the comment was made on', async () => {
    const id = await published()
    const c = await make(id, { anchor, x: 10, y: 20, selector: '#total' })
    expect(c).toMatchObject({ anchor, anchoredVersionId: 'v1', x: 10, y: 20 })
    expect(c.outdated).toBeUndefined()
    expect((await ownerComments(id))[0]).toMatchObject({ id: c.id, anchor, anchoredVersionId: 'v1' })
    expect((await viewer().send(getPublicFolio, { params: { id } })).body.comments[0]).toMatchObject({ anchor, anchoredVersionId: 'v1' })
    // A comment without one keeps the spec's shape: no anchoredVersionId, on its versionId.
    const plain = await make(id, { x: 1, y: 1 })
    expect(plain).not.toHaveProperty('anchoredVersionId')
    expect(plain).not.toHaveProperty('anchor')
  })

  it.each([
    [{ ...anchor, selector: '' }, 'anchor.selector'],
    [{ ...anchor, selector: 'x'.repeat(2001) }, 'anchor.selector'],
    [{ ...anchor, quote: 'q'.repeat(301) }, 'anchor.quote'],
    [{ ...anchor, offsetX: 101 }, 'anchor.offsetX'],
    [{ ...anchor, offsetY: -1 }, 'anchor.offsetY'],
    [{ ...anchor, hash: '#'.repeat(201) }, 'anchor.hash'],
    [{ ...anchor, slide: 1.5 }, 'anchor.slide'],
    [{ ...anchor, slide: -1 }, 'anchor.slide'],
    [{ ...anchor, viewport: { width: 0, height: 900 } }, 'anchor.viewport.width'],
    [{ ...anchor, viewport: 'big' }, 'anchor.viewport'],
    [{ offsetX: 1, offsetY: 1 }, 'anchor.selector'],
    ['#total', 'anchor'],
  ])('refuses %j with a 400 that names the field', async (bad, field) => {
    const id = await published()
    const reply = await post(id, { anchor: bad })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('INVALID_BODY')
    expect(reply.body.message).toContain(field)
    expect(await ownerComments(id)).toEqual([])
  })
})

describe('replies', () => {
  it('show under their parent on the page, in lists and in the brief; a reply takes no anchor and answers no reply', async () => {
    const id = await published()
    const parent = await make(id, { anchor, text: 'Make the total bold' })
    const reply = await make(id, { parentId: parent.id, text: 'Agreed, and green' })
    expect(reply.parentId).toBe(parent.id)
    expect(await publicIds(id)).toEqual([parent.id, reply.id])
    expect(await listedIds(id)).toEqual([parent.id, reply.id])

    const withAnchor = await post(id, { parentId: parent.id, anchor })
    expect(withAnchor.status).toBe(400)
    expect(withAnchor.body.message).toContain('a reply has no anchor')
    const toReply = await post(id, { parentId: reply.id })
    expect(toReply.status).toBe(400)
    expect(toReply.body.message).toContain(`is a reply itself: answer the comment it answers (${parent.id})`)
    for (const missing of ['c_1', 'nope', 'c_99999999999999']) {
      const r = await post(id, { parentId: missing })
      expect(r.status).toBe(400)
      expect(r.body).toMatchObject({ error: 'INVALID_BODY', message: `parentId: ${missing} is not a comment of this folio.` })
    }
    const other = await published()
    expect(
      (await viewer().send(createComment, { params: { id: other }, body: { text: 'x', versionId: 'v1', filename: 'index.html', parentId: parent.id } })).status,
    ).toBe(400)

    const brief = (await s.api.send(getBrief, { params: { id } })).body
    expect(brief.openComments.map((c: any) => c.id)).toEqual([parent.id, reply.id])
    expect(brief.brief).toContain('- Open feedback: 2 comments (1 thread on the page)')
    const at = (text: string) => brief.brief.indexOf(text)
    expect(at('#### Comment 1,')).toBeGreaterThan(-1)
    expect(at(`##### Reply 1.1 (${reply.id})`)).toBeGreaterThan(at('Make the total bold'))
    expect(at('Agreed, and green')).toBeGreaterThan(at(`##### Reply 1.1`))
    expect(brief.brief).toContain('element text: Total +31%')
  })

  it('move with their thread: resolving the parent resolves them, reopening reopens them; answering a resolved thread reopens nothing', async () => {
    const id = await published()
    const parent = await make(id, { anchor })
    const first = await make(id, { parentId: parent.id })
    const second = await make(id, { parentId: parent.id })
    const resolved = await viewer().send(resolveComment, { params: { id }, body: { commentId: parent.id, resolved: true } })
    expect(resolved.body.comment.resolved).toBe(true)
    const state = async () => Object.fromEntries((await ownerComments(id)).map((c) => [c.id, c.resolved]))
    expect(await state()).toEqual({ [parent.id]: true, [first.id]: true, [second.id]: true })
    expect(await publicIds(id)).toEqual([])

    const late = await make(id, { parentId: parent.id, text: 'Still wrong on the phone' })
    expect(late.resolved).toBe(false)
    expect((await state())[parent.id]).toBe(true)
    expect(await publicIds(id)).toEqual([])
    // Not open on its own: the brief and the owner's count agree that nothing is open.
    const brief = (await s.api.send(getBrief, { params: { id } })).body
    expect(brief.openComments).toEqual([])

    await viewer().send(resolveComment, { params: { id }, body: { commentId: parent.id, resolved: false } })
    expect(await state()).toEqual({ [parent.id]: false, [first.id]: false, [second.id]: false, [late.id]: false })
    expect(await publicIds(id)).toEqual([parent.id, first.id, second.id, late.id])
    // Resolving one reply is its own business.
    await viewer().send(resolveComment, { params: { id }, body: { commentId: first.id, resolved: true } })
    expect(await publicIds(id)).toEqual([parent.id, second.id, late.id])
    expect((await state())[parent.id]).toBe(false)
  })

  it("go with their parent when it is deleted: hidden with a viewer's delete (back with the owner's restore), removed with the owner's", async () => {
    const id = await published()
    const parent = await make(id, { anchor })
    const reply = await make(id, { parentId: parent.id })
    expect((await viewer().send(deleteComment, { params: { id }, query: { commentId: parent.id } })).status).toBe(200)
    expect(await publicIds(id)).toEqual([])
    expect(await listedIds(id)).toEqual([])
    expect((await post(id, { parentId: parent.id })).status).toBe(400)
    // The owner still sees both and restores the thread in one step.
    expect((await ownerComments(id)).map((c) => c.id)).toEqual([parent.id, reply.id])
    await s.api.send(resolveComment, { params: { id }, body: { commentId: parent.id, deleted: false } })
    expect(await listedIds(id)).toEqual([parent.id, reply.id])

    expect((await s.api.send(deleteComment, { params: { id }, query: { commentId: parent.id } })).status).toBe(200)
    expect(await ownerComments(id)).toEqual([])
    expect((await viewer().send(resolveComment, { params: { id }, body: { commentId: reply.id, resolved: true } })).status).toBe(404)
  })
})

describe('the brief', () => {
  it('lists the pins on the page, then outdated ones, then those left on earlier versions; its count is the open count', async () => {
    const id = await published()
    const old = await make(id, { x: 10, y: 10, text: 'Spec-only pin on v1' })
    await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>Hi</h1><p id="total">Total +31%</p><p>more</p>' } } })
    const onPage = await make(id, { versionId: 'v2', x: 50, y: 50, text: 'On v2' })
    const brief = (await s.api.send(getBrief, { params: { id } })).body
    expect(brief.openComments.map((c: any) => c.id)).toEqual([onPage.id, old.id])
    expect(brief.brief).toContain('- Open feedback: 2 comments (1 thread on the page, 1 on earlier versions)')
    expect(brief.brief.indexOf('## Open on earlier versions')).toBeGreaterThan(brief.brief.indexOf('On v2'))
    expect(brief.brief.indexOf('Spec-only pin on v1')).toBeGreaterThan(brief.brief.indexOf('## Open on earlier versions'))
  })
})
