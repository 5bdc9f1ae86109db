import { describe, expect, it } from 'vitest'
import { createComment, deleteComment, listComments, resolveComment } from '../src/api/engagement.js'
import { getFolio, updateFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { defaultConfig } from '../src/server/config.js'
import { countStorageCalls } from './helpers/store.js'
import { useServer } from './helpers/use-server.js'

// Issue 8: one anonymous client could pile up comments without end (41 MB of comments.json,
// rewritten on every comment and sent whole with every share page view).
const s = useServer({
  config: {
    rateLimits: { comments: 100_000, reactions: 100_000, analytics: 100_000, public: 100_000, events: 100_000 },
    limits: { commentsPerFolio: 400, commentBytesPerFolio: 1024 * 1024 },
  },
})

const published = () => s.api.create('Commented', { 'index.html': '<h1>Hi</h1>' }, { status: 'published' })
const post = (id: string, over: object = {}) =>
  s.api.send(createComment, { params: { id }, body: { text: 'A comment', versionId: 'v1', filename: 'index.html', x: 10, y: 10, ...over } })

describe('a folio holds a bounded number of comments', () => {
  it('refuses the comment past FOLIO_MAX_COMMENTS with a 409 saying what the owner can do, and takes one again after the owner deletes', async () => {
    const id = await published()
    for (let i = 0; i < 400; i += 50) {
      const replies = await Promise.all(Array.from({ length: 50 }, (_, j) => post(id, { text: `c${i + j}` })))
      expect(replies.every((r) => r.status === 200)).toBe(true)
    }
    const refused = await post(id, { text: 'one too many' })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toBe('COMMENT_LIMIT_REACHED')
    expect(refused.body.message).toContain('400 comments')
    expect(refused.body.message).toContain('FOLIO_MAX_COMMENTS')
    const oldest = (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments[0]
    expect((await s.api.send(deleteComment, { params: { id }, query: { commentId: oldest.id } })).status).toBe(200)
    expect((await post(id, { text: 'room again' })).status).toBe(200)
  })

  it('refuses the comment past FOLIO_MAX_COMMENT_BYTES', async () => {
    const id = await published()
    let reply: Awaited<ReturnType<typeof post>>
    let accepted = 0
    // 5,000 characters of text and 4,000 of element HTML: about 9 KB a comment.
    while ((reply = await post(id, { text: 'x'.repeat(5000), elementHtml: `<p>${'y'.repeat(3993)}</p>` })).status === 200 && accepted < 200) accepted++
    expect(accepted).toBeGreaterThan(100)
    expect(accepted).toBeLessThan(120)
    expect(reply.status).toBe(409)
    expect(reply.body.error).toBe('COMMENT_LIMIT_REACHED')
    expect(reply.body.message).toContain('FOLIO_MAX_COMMENT_BYTES')
    // A small one may still fit: the ceiling is on bytes, not on requests.
    expect((await post(id, { text: 'short' })).status).toBe(200)
  })

  it('takes its ceilings from FOLIO_MAX_COMMENTS and FOLIO_MAX_COMMENT_BYTES, and refuses a value that is not a whole number', () => {
    const saved = { ...process.env }
    try {
      process.env.FOLIO_MAX_COMMENTS = '50'
      process.env.FOLIO_MAX_COMMENT_BYTES = '100000'
      expect(defaultConfig().limits).toMatchObject({ commentsPerFolio: 50, commentBytesPerFolio: 100_000 })
      for (const bad of ['lots', '0', '-5', '1.5']) {
        process.env.FOLIO_MAX_COMMENTS = bad
        expect(() => defaultConfig()).toThrow(`FOLIO_MAX_COMMENTS: "${bad}" is not a whole number of at least 1`)
      }
    } finally {
      process.env.FOLIO_MAX_COMMENTS = saved.FOLIO_MAX_COMMENTS
      process.env.FOLIO_MAX_COMMENT_BYTES = saved.FOLIO_MAX_COMMENT_BYTES
      if (saved.FOLIO_MAX_COMMENTS === undefined) delete process.env.FOLIO_MAX_COMMENTS
      if (saved.FOLIO_MAX_COMMENT_BYTES === undefined) delete process.env.FOLIO_MAX_COMMENT_BYTES
    }
  })

  it.each([
    ['elementHtml', { elementHtml: 'x'.repeat(4001) }],
    ['selector', { selector: 'x'.repeat(2001) }],
  ])('refuses a %s over its ceiling', async (field, over) => {
    const id = await published()
    const reply = await post(id, over)
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ error: 'INVALID_BODY', message: expect.stringContaining(field) })
  })
})

describe('public comment views are bounded', () => {
  it('GET /comments answers the newest 200 (or limit) comments that are not deleted, of one version if asked', async () => {
    const id = await published()
    for (let i = 0; i < 250; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => post(id, { text: `c${i + j}` })))
    await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>v2</h1>' } } })
    for (const text of ['on v2 a', 'on v2 b']) await post(id, { text, versionId: 'v2' })

    const all = await s.api.send(listComments, { params: { id } })
    expect(all.status).toBe(200)
    expect(all.body).toHaveLength(200)
    expect(all.body.at(-1).text).toBe('on v2 b')
    // Oldest first among the newest 200: the 53rd comment made, one of the second burst of 50
    // (which of them depends on the order the server took that burst's requests in).
    expect(all.body[0].text).toMatch(/^c(5\d|[6-9]\d)$/)
    const numbers = all.body.map((c: { id: string }) => Number(c.id.slice(2)))
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b))
    const few = await s.api.send(listComments, { params: { id }, query: { limit: 3 } })
    expect(few.body.map((c: any) => c.text)).toEqual(['c249', 'on v2 a', 'on v2 b'])
    const v2 = await s.api.send(listComments, { params: { id }, query: { versionId: 'v2' } })
    expect(v2.body.map((c: any) => c.text)).toEqual(['on v2 a', 'on v2 b'])
    for (const limit of ['0', '501', 'lots', '2.5']) {
      const bad = await s.api.send(listComments, { params: { id }, query: { limit } })
      expect(bad.status).toBe(400)
      expect(bad.body.error).toBe('INVALID_QUERY')
    }
  })

  it('GET /public carries only what the page shows: the newest 200 open comments of the latest version, without elementHtml', async () => {
    const id = await published()
    for (let i = 0; i < 250; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => post(id, { text: `c${i + j}`, elementHtml: `<h1>${'z'.repeat(3000)}</h1>`, selector: 'h1' })))
    }
    const newest = (await s.api.send(listComments, { params: { id }, query: { limit: 1 } })).body[0]
    await s.api.send(resolveComment, { params: { id }, body: { commentId: newest.id, resolved: true } })
    const reply = await s.api.send(getPublicFolio, { params: { id } })
    expect(reply.body.comments).toHaveLength(200)
    expect(reply.body.comments.at(-1).text).toBe('c248')
    expect(reply.body.comments.every((c: any) => c.elementHtml === undefined && c.selector === 'h1')).toBe(true)
    // 250 comments of 3 KB each stayed off the wire: the answer is a fraction of them.
    expect(reply.text.length).toBeLessThan(80_000)
    // A new version: the page shows none of the old version's comments.
    await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>v2</h1>' } } })
    expect((await s.api.send(getPublicFolio, { params: { id } })).body.comments).toEqual([])
  })
})

describe('comment ids are never reused', () => {
  it('gives a new comment a new id after the newest was deleted, so a retried DELETE cannot reach it', async () => {
    const id = await published()
    const lost: string[] = []
    for (let round = 0; round < 10; round++) {
      // A burst runs the ids ahead of the clock (two comments in one millisecond get consecutive numbers).
      const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => post(id, { text: `burst ${round} ${i}` })))
      const newestId = burst
        .map((r) => r.body.comment.id as string)
        .sort()
        .at(-1)!
      expect((await s.api.send(deleteComment, { params: { id }, query: { commentId: newestId } })).status).toBe(200)
      const next = (await post(id, { text: `someone else ${round}` })).body.comment
      expect(Number(next.id.slice(2))).toBeGreaterThan(Number(newestId.slice(2)))
      // The retried DELETE of the deleted comment must not take someone else's with it.
      expect((await s.api.send(deleteComment, { params: { id }, query: { commentId: newestId } })).status).toBe(404)
      const texts = (await s.api.send(listComments, { params: { id }, query: { limit: 3 } })).body.map((c: any) => c.text)
      if (!texts.includes(`someone else ${round}`)) lost.push(next.id)
    }
    expect(lost).toEqual([])
  })

  it('keeps ids unique while comments are created and deleted concurrently', async () => {
    const id = await published()
    const seen = new Set<string>()
    let reused = 0
    let deletes: Promise<unknown>[] = []
    for (let round = 0; round < 10; round++) {
      // The newest five of the last burst go while the next burst is being made.
      const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => post(id, { text: `r${round} ${i}` })))
      await Promise.all(deletes)
      const ids = replies.map((r) => r.body.comment.id as string)
      for (const commentId of ids) {
        if (seen.has(commentId)) reused++
        seen.add(commentId)
      }
      deletes = ids
        .sort()
        .slice(-5)
        .map((commentId) => s.api.send(deleteComment, { params: { id }, query: { commentId } }))
    }
    await Promise.all(deletes)
    expect(reused).toBe(0)
  })
})

describe('comment write cost', () => {
  it('does not grow with the number of comments: adding and resolving one rewrites at most a 64 KB segment', async () => {
    const id = await published()
    const store = s.ts.server.store
    const calls = countStorageCalls(store)
    const costOf = async (n: number) => {
      await store.engagement.idle()
      calls.reset()
      const made = await post(id, { text: `measured ${n} ${'w'.repeat(300)}` })
      await s.api.send(resolveComment, { params: { id }, body: { commentId: made.body.comment.id, resolved: true } })
      await store.engagement.idle()
      return { calls: calls.snapshot(), bytesWritten: calls.bytesWritten() }
    }
    await costOf(0)
    const early = await costOf(1)
    for (let i = 0; i < 390; i += 30) await Promise.all(Array.from({ length: 30 }, (_, j) => post(id, { text: `filler ${i + j} ${'f'.repeat(300)}` })))
    const late = await costOf(2)
    expect(late.calls).toEqual(early.calls)
    // 390 comments of ~400 bytes are ~160 KB: one write of all of them is what used to happen.
    expect(late.bytesWritten).toBeLessThan(2 * 64 * 1024 + 4096)
  })
})
