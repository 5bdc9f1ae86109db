import { describe, expect, it } from 'vitest'
import { createComment, deleteComment, getReactions, listComments, react, resolveComment, setReactions } from '../src/api/engagement.js'
import { getBrief, getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { testApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

// Issue 8: the spec makes resolving, deleting and reaction counts public. What an anonymous
// viewer does must stay bounded and undoable by the owner.
const s = useServer({ config: { rateLimits: { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 } } })

/** A viewer on the internet: through the tunnel's listener, no key, so not the owner. */
const viewer = () => testApi(s.ts.server.tunnelTarget)

const published = (extra: object = {}) => s.api.create('Moderated', { 'index.html': '<h1>Hi</h1>' }, { status: 'published', ...extra })
const comment = async (id: string, text = 'Make it bigger') => {
  const reply = await viewer().send(createComment, { params: { id }, body: { text, versionId: 'v1', filename: 'index.html', x: 5, y: 5 } })
  expect(reply.status).toBe(200)
  return reply.body as { comment: { id: string }; authorToken: string }
}
const ownerComments = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments as any[]

describe('deleting comments', () => {
  it("a viewer's delete hides the comment from viewers; the owner still sees it, marked, and restores it", async () => {
    const id = await published()
    const { comment: c } = await comment(id)
    const deleted = await viewer().send(deleteComment, { params: { id }, query: { commentId: c.id } })
    expect(deleted.body).toEqual({ success: true })

    expect((await viewer().send(listComments, { params: { id } })).body).toEqual([])
    expect((await viewer().send(getPublicFolio, { params: { id } })).body.comments).toEqual([])
    const [seen] = await ownerComments(id)
    expect(seen).toMatchObject({ id: c.id, text: 'Make it bigger', deletedAt: expect.any(String), deletedBy: 'viewer' })
    const item = (await s.api.send(listFolios)).body.find((f: any) => f.id === id)
    expect(item.comments[0].deletedAt).toBe(seen.deletedAt)
    const brief = (await s.api.send(getBrief, { params: { id } })).body
    expect(brief.openComments).toEqual([])
    expect(brief.brief).toContain('## Deleted by viewers')

    // For viewers it is gone: a second delete, a resolve, a restore all miss it or are refused.
    expect((await viewer().send(deleteComment, { params: { id }, query: { commentId: c.id } })).status).toBe(404)
    expect((await viewer().send(resolveComment, { params: { id }, body: { commentId: c.id, resolved: true } })).status).toBe(404)
    const restoreByViewer = await viewer().send(resolveComment, { params: { id }, body: { commentId: c.id, deleted: false } })
    expect(restoreByViewer.status).toBe(404)

    const restored = await s.api.send(resolveComment, { params: { id }, body: { commentId: c.id, deleted: false } })
    expect(restored.status).toBe(200)
    expect(restored.body.comment.deletedAt).toBeUndefined()
    expect((await viewer().send(listComments, { params: { id } })).body.map((x: any) => x.id)).toEqual([c.id])
    expect((await viewer().send(getPublicFolio, { params: { id } })).body.comments.map((x: any) => x.id)).toEqual([c.id])
  })

  it('only the owner deletes or restores with PUT, and the owner’s DELETE removes a comment for good', async () => {
    const id = await published()
    const { comment: c } = await comment(id)
    const byViewer = await viewer().send(resolveComment, { params: { id }, body: { commentId: c.id, deleted: true } })
    expect(byViewer.status).toBe(403)
    expect(byViewer.body.error).toBe('Forbidden')
    const hidden = await s.api.send(resolveComment, { params: { id }, body: { commentId: c.id, deleted: true } })
    expect(hidden.body.comment).toMatchObject({ deletedBy: 'owner', deletedAt: expect.any(String) })
    expect((await viewer().send(listComments, { params: { id } })).body).toEqual([])
    expect((await s.api.send(deleteComment, { params: { id }, query: { commentId: c.id } })).status).toBe(200)
    expect(await ownerComments(id)).toEqual([])
  })
})

describe("commentModeration: 'owner-and-author'", () => {
  it('is a folio setting, declared and shown, that PUT /api/files/{id} sets', async () => {
    const id = await published()
    expect((await s.api.send(getFolio, { params: { id } })).body.commentModeration).toBe('anyone')
    const put = await s.api.send(updateFolio, { params: { id }, body: { commentModeration: 'owner-and-author' } })
    expect(put.body.project.commentModeration).toBe('owner-and-author')
    expect((await viewer().send(getPublicFolio, { params: { id } })).body.commentModeration).toBe('owner-and-author')
    const bad = await s.api.send(updateFolio, { params: { id }, body: { commentModeration: 'nobody' } })
    expect(bad.status).toBe(400)
  })

  it("lets only the owner and the comment's author (with the token it was given) resolve or delete", async () => {
    const id = await published({ commentModeration: 'owner-and-author' })
    const { comment: c, authorToken } = await comment(id)
    expect(authorToken).toMatch(/^ct_[\w-]{32}$/)
    const other = await comment(id, 'Another one')

    for (const headers of [{}, { 'x-comment-token': other.authorToken }, { 'x-comment-token': 'ct_guess' }] as Record<string, string>[]) {
      const resolve = await viewer().send(resolveComment, { params: { id }, body: { commentId: c.id, resolved: true }, headers })
      expect(resolve.status).toBe(403)
      expect(resolve.body.message).toContain('X-Comment-Token')
      expect((await viewer().send(deleteComment, { params: { id }, query: { commentId: c.id }, headers })).status).toBe(403)
    }
    expect((await viewer().send(listComments, { params: { id } })).body.map((x: any) => x.resolved)).toEqual([false, false])

    const mine = { 'x-comment-token': authorToken }
    expect((await viewer().send(resolveComment, { params: { id }, body: { commentId: c.id, resolved: true }, headers: mine })).body.comment.resolved).toBe(true)
    expect((await viewer().send(deleteComment, { params: { id }, query: { commentId: c.id }, headers: mine })).status).toBe(200)
    expect((await ownerComments(id)).find((x) => x.id === c.id).deletedBy).toBe('author')
    // The owner needs no token.
    expect((await s.api.send(resolveComment, { params: { id }, body: { commentId: other.comment.id, resolved: true } })).body.comment.resolved).toBe(true)
  })

  it('never shows the token or its hash', async () => {
    const id = await published()
    const { authorToken } = await comment(id)
    const { createHash } = await import('node:crypto')
    const hash = createHash('sha256').update(authorToken).digest('hex')
    const answers = [
      await s.api.send(getFolio, { params: { id } }),
      await s.api.send(listFolios),
      await s.api.send(getBrief, { params: { id } }),
      await viewer().send(listComments, { params: { id } }),
      await viewer().send(getPublicFolio, { params: { id } }),
    ]
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(answer.text).not.toContain(authorToken)
      expect(answer.text).not.toContain(hash)
      expect(answer.text).not.toContain('authorTokenHash')
    }
  })
})

describe('reaction counts from viewers', () => {
  it('move a set count one step per request, never to an arbitrary number nor to zero', async () => {
    const id = await published()
    await s.api.send(setReactions, { params: { id }, body: { reactions: { '👍': 5, '🔥': 2 } } })
    const huge = await viewer().send(setReactions, { params: { id }, body: { reactions: { '👍': 9007199254740991, '❤️': 1e9 } } })
    expect(huge.body.reactions).toEqual({ '👍': 6, '🔥': 2, '❤️': 1 })
    const wipe = await viewer().send(react, { params: { id }, body: { reactions: { '👍': 0, '🔥': 0, '❤️': 0 } } })
    expect(wipe.body.reactions).toEqual({ '👍': 5, '🔥': 1, '❤️': 0 })
  })

  it('add at most one per emoji per request', async () => {
    const id = await published()
    const reply = await viewer().send(react, { params: { id }, body: { increments: { '👍': 1_000_000, '💡': 1 } } })
    expect(reply.body.reactions).toEqual({ '👍': 1, '💡': 1 })
    await Promise.all(Array.from({ length: 20 }, () => viewer().send(react, { params: { id }, body: { increments: { '👍': 50 } } })))
    expect((await viewer().send(getReactions, { params: { id } })).body.reactions['👍']).toBe(21)
  })

  it('are set as sent by the owner (the reactions endpoint and PUT /api/files/{id})', async () => {
    const id = await published()
    expect((await s.api.send(setReactions, { params: { id }, body: { reactions: { '👍': 40 } } })).body.reactions).toEqual({ '👍': 40 })
    const put = await s.api.send(updateFolio, { params: { id }, body: { reactions: { '👍': 0, '🔥': 7 } } })
    expect(put.body.project.reactions).toEqual({ '👍': 0, '🔥': 7 })
  })
})
