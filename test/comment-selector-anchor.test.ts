import { describe, expect, it } from 'vitest'
import { createComment } from '../src/api/engagement.js'
import { getFolio, updateFolio } from '../src/api/files.js'
import { anchorFromSelector } from '../src/domain/anchor-from-selector.js'
import { useServer } from './helpers/use-server.js'

/**
 * A comment made through the API or MCP names its element by the spec's `selector` (and maybe
 * `elementHtml`): the server gives it the anchor a click would have made, so it is pinned, and
 * followed into the next version, like a pin made on the share page.
 */
const s = useServer()
const page = (body: string) => `<!doctype html><html><body>${body}</body></html>`

describe('a comment that names its element by selector', () => {
  it('gets an anchor with the element’s text as its quote, at the element’s centre', () => {
    expect(anchorFromSelector(page('<h1 id="t">Quarterly   results\n</h1>'), '#t')).toEqual({
      selector: '#t',
      quote: 'Quarterly results',
      offsetX: 50,
      offsetY: 50,
    })
    // An element a script builds is not in the HTML: elementHtml gives the text to find it by.
    expect(anchorFromSelector(page('<div id="app"></div>'), '#chart-title', '<h2 id="chart-title">Revenue <b>by</b> region</h2>')).toEqual({
      selector: '#chart-title',
      quote: 'Revenue by region',
      offsetX: 50,
      offsetY: 50,
    })
    // Nothing to go on, "the page itself" and a selector that does not parse: no anchor (x/y stay).
    expect(anchorFromSelector(page('<p>x</p>'), '#nothing')).toBeUndefined()
    expect(anchorFromSelector(page('<p>x</p>'), 'body')).toBeUndefined()
    expect(anchorFromSelector(page('<p>x</p>'), 'div[')).toBeUndefined()
  })

  it('is stored with that anchor and follows its element into the next version', async () => {
    const id = await s.api.create(
      'Results',
      { 'index.html': page('<h1 id="t">Quarterly results</h1><p class="note">Draft numbers</p>') },
      { status: 'published' },
    )
    const made = await s.api.send(createComment, {
      params: { id },
      body: { text: 'Name the quarter', versionId: 'v1', filename: 'index.html', selector: 'p.note', x: 75, y: 10 },
    })
    expect(made.body.comment.anchor).toEqual({ selector: 'p.note', quote: 'Draft numbers', offsetX: 50, offsetY: 50 })
    const css = await s.api.send(createComment, { params: { id }, body: { text: 'On the page', versionId: 'v1', filename: 'index.html', x: 10, y: 10 } })
    expect(css.body.comment.anchor).toBeUndefined()

    // v2 moves the paragraph into a section and drops its class: its text finds it.
    await s.api.send(updateFolio, {
      params: { id },
      body: { files: { 'index.html': page('<h1 id="t">Quarterly results</h1><section><p>Intro</p><p>Draft numbers</p></section>') } },
    })
    await s.ts.server.store.engagement.idle()
    const after = (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments.find(
      (c: { id: string }) => c.id === made.body.comment.id,
    )
    expect(after).toMatchObject({ anchoredVersionId: 'v2', anchor: { quote: 'Draft numbers' } })
    expect(after.anchor.selector).not.toBe('p.note')
  })
})
