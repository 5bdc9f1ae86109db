import { createComment, deleteComment } from '../../src/api/engagement.js'
import { updateFolio } from '../../src/api/files.js'
import type { NewComment } from '../../src/store/engagement-repository.js'
import { type TestApi, testApi } from './api.js'
import type { TestServer } from './server.js'

/** A three-slide deck: what the author's inbox groups by slide. */
export const DECK = {
  'index.html': `<!doctype html><html><body>
<section id="s1"><h1>Q3 review</h1></section>
<section id="s2"><figure id="chart">Old chart</figure></section>
<section id="s3"><table><tr><td id="kpi">+31%</td></tr></table></section>
</body></html>`,
}

/** Issue 9's optional comment fields (anchor, parentId, anchoredVersionId, outdated), as the agreement names them. */
export interface Issue9Fields {
  anchor?: { selector: string; quote?: string; offsetX: number; offsetY: number; hash?: string; slide?: number }
  parentId?: string
  anchoredVersionId?: string
  outdated?: boolean
}

/**
 * A comment with issue 9's fields, written through the store (which keeps a comment's fields as
 * given): replies and outdated comments exist before the server half of issue 9 accepts them
 * through the API. The same store call the API's POST makes, so every reader sees it as usual.
 */
export async function storedComment(ts: TestServer, id: string, fields: Omit<NewComment, 'filename'> & Issue9Fields & { filename?: string }) {
  const comment = await ts.server.store.engagement.addComment(id, { filename: 'index.html', ...fields } as NewComment, { maxComments: 1000, maxBytes: 4 << 20 })
  if (!comment) throw new Error(`no folio ${id}`)
  return comment as typeof comment & Issue9Fields
}

/** A viewer on the internet: through the tunnel's listener, without the key, so never the owner. */
export const viewerOf = (ts: TestServer): TestApi => testApi(ts.server.tunnelTarget)

export async function viewerComment(ts: TestServer, id: string, body: { text: string; author: string; versionId: string; x?: number; y?: number }) {
  const reply = await viewerOf(ts).send(createComment, { params: { id }, body: { filename: 'index.html', x: 10, y: 10, ...body } })
  if (reply.status !== 200) throw new Error(`comment failed: ${reply.status} ${reply.text}`)
  return reply.body.comment as { id: string; text: string }
}

/**
 * Two published folios with every kind of comment the inbox shows: one made on an earlier
 * version, one pinned on slide 3 with a reply, one outdated, one a viewer deleted, and one on
 * a second folio.
 */
export async function seedInbox(ts: TestServer, api: TestApi, titles = { deck: 'Q3 deck', doc: 'Handbook' }) {
  const deck = await api.create(titles.deck, DECK, { status: 'published', projectMode: 'deck' })
  await api.send(updateFolio, { params: { id: deck }, body: { files: { 'index.html': DECK['index.html'].replace('Q3 review', 'Q3 review, final') }, commitMessage: 'Tighter numbers' } })
  const earlier = await viewerComment(ts, deck, { text: 'The cover feels empty', author: 'Ann', versionId: 'v1' })
  const outdated = await storedComment(ts, deck, {
    text: 'This chart is unreadable', author: 'Cy', versionId: 'v1', anchoredVersionId: 'v1', outdated: true, selector: '#chart',
    anchor: { selector: '#chart', quote: 'Old chart', offsetX: 50, offsetY: 50, slide: 1, hash: '#2' },
  })
  const kpi = await storedComment(ts, deck, {
    text: '+31% needs a source', author: 'Bo', versionId: 'v2', anchoredVersionId: 'v2', selector: '#kpi', x: 40, y: 60,
    anchor: { selector: '#kpi', quote: '+31%', offsetX: 40, offsetY: 50, slide: 2, hash: '#3' },
  })
  const reply = await storedComment(ts, deck, { text: 'Agreed, cite the survey', author: 'Ann', versionId: 'v2', anchoredVersionId: 'v2', parentId: kpi.id })
  const deleted = await viewerComment(ts, deck, { text: 'Spam spam spam', author: 'Troll', versionId: 'v2' })
  const gone = await viewerOf(ts).send(deleteComment, { params: { id: deck }, query: { commentId: deleted.id } })
  if (gone.status !== 200) throw new Error(`viewer delete failed: ${gone.status} ${gone.text}`)
  const doc = await api.create(titles.doc, { 'index.html': '<h1>Handbook</h1><p id="intro">Welcome aboard</p>' }, { status: 'published', projectMode: 'document' })
  const typo = await viewerComment(ts, doc, { text: 'Typo in the intro', author: 'Dee', versionId: 'v1' })
  return { deck, doc, c: { earlier, outdated, kpi, reply, deleted, typo } }
}
