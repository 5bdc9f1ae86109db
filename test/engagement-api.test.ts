import { describe, expect, it } from 'vitest'
import { createComment, deleteComment, getReactions, listComments, react, recordAnalytics, resolveComment, setReactions } from '../src/api/engagement.js'
import { getFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { useServer } from './helpers/use-server.js'

const s = useServer()

const published = (files: Record<string, string> = { 'index.html': '<h1>Hi</h1>', 'about.html': '<p>About</p>' }, extra: object = {}) =>
  s.api.create('Engaged', files, { status: 'published', ...extra })

describe('comments', () => {
  it('creates comments with the spec shape, Guest by default, pinned by x/y/selector', async () => {
    const id = await published()
    const reply = await s.api.send(createComment, {
      params: { id },
      body: { text: '  Bigger title  ', versionId: 'v1', filename: 'index.html', x: 12.5, y: 40, selector: 'body > h1', elementHtml: '<h1>Hi</h1>' },
    })
    expect(reply.status).toBe(200)
    expect(reply.body.success).toBe(true)
    expect(reply.body.comment).toEqual({
      id: expect.stringMatching(/^c_\d+$/),
      author: 'Guest',
      text: 'Bigger title',
      createdAt: expect.any(String),
      versionId: 'v1',
      filename: 'index.html',
      resolved: false,
      x: 12.5,
      y: 40,
      selector: 'body > h1',
      elementHtml: '<h1>Hi</h1>',
      // The selector names an element of the page: the anchor a click on it would have made.
      anchor: { selector: 'body > h1', quote: 'Hi', offsetX: 50, offsetY: 50 },
      anchoredVersionId: 'v1',
    })
    const named = await s.api.send(createComment, { params: { id }, body: { text: 'ok', versionId: 'v1', filename: 'about.html', author: 'Ann' } })
    expect(named.body.comment.author).toBe('Ann')
    const list = await s.api.send(listComments, { params: { id } })
    expect(list.body.map((c: any) => c.text)).toEqual(['Bigger title', 'ok'])
  })

  it('keeps ids unique for comments posted in the same instant', async () => {
    const id = await published()
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.api.send(createComment, { params: { id }, body: { text: `c${i}`, versionId: 'v1', filename: 'index.html' } })),
    )
    const ids = replies.map((r) => r.body.comment.id)
    expect(new Set(ids).size).toBe(20)
    expect((await s.api.send(listComments, { params: { id } })).body).toHaveLength(20)
  })

  it.each([
    [{ versionId: 'v1', filename: 'index.html' }],
    [{ text: '   ', versionId: 'v1', filename: 'index.html' }],
    [{ text: 'x', filename: 'index.html' }],
    [{ text: 'x', versionId: 'v1' }],
    [{ text: 5, versionId: 'v1', filename: 'index.html' }],
  ])('answers Missing comment parameters for %j', async (body) => {
    const id = await published()
    const reply = await s.api.send(createComment, { params: { id }, body })
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ error: 'Missing comment parameters' })
  })

  it.each([[''], ['[]'], ['null']])('answers Missing comment parameters for a body that is missing or not an object: %j', async (raw) => {
    const id = await published()
    const reply = await s.api.send(createComment, { params: { id }, raw, headers: { 'content-type': 'application/json' } })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('Missing comment parameters')
  })

  it('says a comment is too long rather than missing', async () => {
    const id = await published()
    const reply = await s.api.send(createComment, { params: { id }, body: { text: 'x'.repeat(5001), versionId: 'v1', filename: 'index.html' } })
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ error: 'INVALID_BODY', message: 'text: text must be at most 5,000 characters' })
  })

  it.each([['toString'], ['__proto__'], ['constructor']])('refuses %s as a file name: it names no file of the version', async (filename) => {
    const id = await published()
    const reply = await s.api.send(createComment, { params: { id }, body: { text: 'x', versionId: 'v1', filename } })
    expect(reply.status).toBe(400)
    expect((await s.api.send(listComments, { params: { id } })).body).toEqual([])
  })

  it.each([
    [{ x: -1 }, 'x'],
    [{ x: 100.5 }, 'x'],
    [{ y: 1000 }, 'y'],
    [{ x: '50' }, 'x'],
    [{ versionId: 'v9' }, 'versionId'],
    [{ filename: 'nope.html' }, 'filename'],
    [{ selector: 7 }, 'selector'],
  ])('refuses %j with a 400 naming %s (positions are refused, not clamped)', async (over, field) => {
    const id = await published()
    const reply = await s.api.send(createComment, { params: { id }, body: { text: 'x', versionId: 'v1', filename: 'index.html', ...over } })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('INVALID_BODY')
    expect(reply.body.message).toContain(field)
    expect((await s.api.send(listComments, { params: { id } })).body).toEqual([])
  })

  it('answers 403 when comments are disabled, and 404 for an unknown folio', async () => {
    const id = await published(undefined, { allowComments: false })
    const reply = await s.api.send(createComment, { params: { id }, body: { text: 'x', versionId: 'v1', filename: 'index.html' } })
    expect(reply.status).toBe(403)
    expect(reply.body).toEqual({ error: 'Comments are disabled for this folio.' })
    const unknown = await s.api.send(createComment, { params: { id: 'nope123' }, body: { text: 'x', versionId: 'v1', filename: 'index.html' } })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ error: 'Project not found' })
  })

  it('resolves, reopens and deletes comments', async () => {
    const id = await published()
    const c = (await s.api.send(createComment, { params: { id }, body: { text: 'fix me', versionId: 'v1', filename: 'index.html' } })).body.comment
    const resolved = await s.api.send(resolveComment, { params: { id }, body: { commentId: c.id, resolved: true } })
    expect(resolved.status).toBe(200)
    expect(resolved.body).toEqual({ success: true, comment: { ...c, resolved: true } })
    expect((await s.api.send(getPublicFolio, { params: { id } })).body.comments).toEqual([])
    const reopened = await s.api.send(resolveComment, { params: { id }, body: { commentId: c.id, resolved: false } })
    expect(reopened.body.comment.resolved).toBe(false)
    expect((await s.api.send(getPublicFolio, { params: { id } })).body.comments.map((x: any) => x.id)).toEqual([c.id])

    expect((await s.api.send(resolveComment, { params: { id }, body: { commentId: 'c_1', resolved: true } })).status).toBe(404)
    expect((await s.api.send(resolveComment, { params: { id }, body: { commentId: c.id, resolved: 'yes' } })).status).toBe(400)
    expect((await s.api.send(resolveComment, { params: { id }, body: { resolved: true } })).body).toEqual({ error: 'Missing comment parameters' })

    const missing = await s.api.send(deleteComment, { params: { id } })
    expect(missing.status).toBe(400)
    expect(missing.body.error).toBe('Missing commentId param')
    expect((await s.api.send(deleteComment, { params: { id }, query: { commentId: 'c_1' } })).status).toBe(404)
    expect((await s.api.send(deleteComment, { params: { id: 'nope123' }, query: { commentId: c.id } })).body).toEqual({ error: 'Project not found' })
    const deleted = await s.api.send(deleteComment, { params: { id }, query: { commentId: c.id } })
    expect(deleted.body).toEqual({ success: true })
    expect((await s.api.send(listComments, { params: { id } })).body).toEqual([])
  })
})

describe('reactions', () => {
  it('merges supplied counts by the spec rules, on POST and PUT alike', async () => {
    const id = await published()
    expect((await s.api.send(getReactions, { params: { id } })).body).toEqual({ success: true, reactions: {} })
    const first = await s.api.send(react, { params: { id }, body: { reactions: { '👍': 3, '🔥': 1.9 } } })
    expect(first.body).toEqual({ success: true, reactions: { '👍': 3, '🔥': 1 } })
    const second = await s.api.send(setReactions, { params: { id }, body: { reactions: { '❤️': 2, '👍': -4, '😀': 9, '💡': 'x' } } })
    expect(second.body.reactions).toEqual({ '👍': 3, '🔥': 1, '❤️': 2 })
    expect((await s.api.send(getPublicFolio, { params: { id } })).body.reactions).toEqual({ '👍': 3, '🔥': 1, '❤️': 2 })
  })

  it('adds increments atomically', async () => {
    const id = await published()
    await Promise.all(Array.from({ length: 25 }, () => s.api.send(react, { params: { id }, body: { increments: { '👍': 1 } } })))
    expect((await s.api.send(getReactions, { params: { id } })).body.reactions).toEqual({ '👍': 25 })
  })

  it.each([[{}], [{ reactions: 'lots' }], [{ reactions: [1, 2] }], [{ increments: 5 }], ['not json']])(
    'answers Invalid reactions format. for %j',
    async (body) => {
      const id = await published()
      const reply = await s.api.send(react, { params: { id }, ...(typeof body === 'string' ? { raw: body } : { body }) })
      expect(reply.status).toBe(400)
      expect(reply.body.error).toBe(body === 'not json' ? 'INVALID_JSON' : 'Invalid reactions format.')
    },
  )

  it('answers 404 for an unknown folio', async () => {
    expect((await s.api.send(react, { params: { id: 'nope123' }, body: { reactions: { '👍': 1 } } })).body).toEqual({ error: 'Project not found' })
  })

  it.each([[''], ['[]'], ['5'], ['null'], ['"x"']])('answers Invalid reactions format. for a body that is missing or not an object: %j', async (raw) => {
    const id = await published()
    const reply = await s.api.send(react, { params: { id }, raw, headers: { 'content-type': 'application/json' } })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('Invalid reactions format.')
  })
})

describe('analytics', () => {
  it('counts views, time and devices, and recalculates the average', async () => {
    const id = await published()
    const beacon = (body: unknown) => s.api.send(recordAnalytics, { params: { id }, body })
    expect((await beacon({ isInitial: true, device: 'mobile' })).body).toEqual({ success: true })
    await beacon({ isInitial: true, device: 'desktop' })
    await beacon({ isInitial: true })
    await beacon({ sessionSeconds: 30 })
    await beacon({ sessionSeconds: 60 })
    const analytics = (await s.api.send(getFolio, { params: { id } })).body.analytics
    expect(analytics).toMatchObject({ views: 3, totalTimeSeconds: 90, avgTimeSeconds: 30, mobileViews: 1, desktopViews: 2 })
  })

  it('answers success to an empty or malformed beacon without counting it', async () => {
    const id = await published()
    for (const body of ['', 'garbage', '[1,2]', 'null', '{"sessionSeconds":"forever"}']) {
      const reply = await s.api.send(recordAnalytics, { params: { id }, raw: body, headers: { 'content-type': 'text/plain' } })
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({ success: true })
    }
    expect((await s.api.send(getFolio, { params: { id } })).body.analytics).toMatchObject({
      views: 0,
      totalTimeSeconds: 0,
      avgTimeSeconds: 0,
      mobileViews: 0,
      desktopViews: 0,
    })
  })

  it('caps what one forged beacon may add', async () => {
    const id = await published()
    await s.api.send(recordAnalytics, { params: { id }, body: { isInitial: true } })
    await s.api.send(recordAnalytics, { params: { id }, body: { sessionSeconds: 1e15 } })
    expect((await s.api.send(getFolio, { params: { id } })).body.analytics.totalTimeSeconds).toBe(600)
  })

  it('answers 404 for an unknown folio', async () => {
    expect((await s.api.send(recordAnalytics, { params: { id: 'nope123' }, body: {} })).status).toBe(404)
  })
})
