import { createComment, deleteComment } from '../../src/api/engagement.js'
import { getFolio, updateFolio } from '../../src/api/files.js'
import type { Comment, CommentAnchor } from '../../src/domain/model.js'
import { type TestApi, testApi } from './api.js'
import { eventually } from './browser.js'
import type { TestServer } from './server.js'

/** A three-slide deck: what the author's inbox groups by slide. */
export const DECK = {
  'index.html': `<!doctype html><html><body>
<section id="s1"><h1>Q3 review</h1></section>
<section id="s2"><figure id="chart">Old chart</figure></section>
<section id="s3"><table><tr><td id="kpi">+31%</td></tr></table></section>
</body></html>`,
}

/** A viewer on the internet: through the tunnel's listener, without the key, so never the owner. */
export const viewerOf = (ts: TestServer): TestApi => testApi(ts.server.tunnelTarget)

export interface ViewerComment {
  text: string
  author: string
  versionId: string
  x?: number
  y?: number
  anchor?: CommentAnchor
  parentId?: string
}

/** A comment as a viewer makes it (POST /comments, issue 9's anchor and parentId included). */
export async function viewerComment(ts: TestServer, id: string, body: ViewerComment): Promise<Comment> {
  const place = body.parentId ? {} : { x: 10, y: 10 }
  const reply = await viewerOf(ts).send(createComment, { params: { id }, body: { filename: 'index.html', ...place, ...body } })
  if (reply.status !== 200) throw new Error(`comment failed: ${reply.status} ${reply.text}`)
  return reply.body.comment
}

/**
 * Two published folios with every kind of comment the inbox shows, each made the way it happens:
 * one made on v1 without an anchor (it stays on v1), one pinned on v1's chart that v2 removes
 * (re-anchoring marks it outdated), one pinned on slide 3 of v2 with a reply, one a viewer
 * deleted, and one on a second folio.
 */
export async function seedInbox(ts: TestServer, api: TestApi, titles = { deck: 'Q3 deck', doc: 'Handbook' }) {
  const deck = await api.create(titles.deck, DECK, { status: 'published', projectMode: 'deck' })
  const earlier = await viewerComment(ts, deck, { text: 'The cover feels empty', author: 'Ann', versionId: 'v1' })
  const outdated = await viewerComment(ts, deck, {
    text: 'This chart is unreadable',
    author: 'Cy',
    versionId: 'v1',
    anchor: { selector: '#chart', quote: 'Old chart', offsetX: 50, offsetY: 50, slide: 1, hash: '#2' },
  })
  const v2 = DECK['index.html'].replace('Q3 review', 'Q3 review, final').replace('<figure id="chart">Old chart</figure>', '<p>Chart moved to the appendix</p>')
  await api.send(updateFolio, { params: { id: deck }, body: { files: { 'index.html': v2 }, commitMessage: 'Tighter numbers' } })
  // Re-anchoring runs after the version lands: the chart's pin is outdated once it has looked.
  await eventually(async () => {
    const comments: Comment[] = (await api.send(getFolio, { params: { id: deck }, query: { files: 'none' } })).body.comments
    return comments.find((c) => c.id === outdated.id)?.outdated === true
  }, 're-anchoring to mark the chart pin outdated')
  const kpi = await viewerComment(ts, deck, {
    text: '+31% needs a source',
    author: 'Bo',
    versionId: 'v2',
    x: 40,
    y: 60,
    anchor: { selector: '#kpi', quote: '+31%', offsetX: 40, offsetY: 50, slide: 2, hash: '#3' },
  })
  const reply = await viewerComment(ts, deck, { text: 'Agreed, cite the survey', author: 'Ann', versionId: 'v2', parentId: kpi.id })
  const deleted = await viewerComment(ts, deck, { text: 'Spam spam spam', author: 'Troll', versionId: 'v2' })
  const gone = await viewerOf(ts).send(deleteComment, { params: { id: deck }, query: { commentId: deleted.id } })
  if (gone.status !== 200) throw new Error(`viewer delete failed: ${gone.status} ${gone.text}`)
  const doc = await api.create(
    titles.doc,
    { 'index.html': '<h1>Handbook</h1><p id="intro">Welcome aboard</p>' },
    { status: 'published', projectMode: 'document' },
  )
  const typo = await viewerComment(ts, doc, { text: 'Typo in the intro', author: 'Dee', versionId: 'v1' })
  return { deck, doc, c: { earlier, outdated, kpi, reply, deleted, typo } }
}
