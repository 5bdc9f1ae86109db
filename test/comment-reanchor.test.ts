import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, listComments } from '../src/api/engagement.js'
import { getBrief, getFolio, updateFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { syncFiles } from '../src/api/sync.js'
import { uploadFile } from '../src/api/uploads.js'
import { testApi } from './helpers/api.js'
import { launchBrowser } from './helpers/browser.js'
import { openEvents } from './helpers/events.js'
import { tinyPng } from './helpers/images.js'
import { startTestServer } from './helpers/server.js'
import { closeClean, useServer } from './helpers/use-server.js'

// Issue 9: when a version lands, each open pin is found again by selector and text quote, moved
// forward (with a new selector if its element moved), or marked outdated when its element is gone.
const s = useServer({ config: { rateLimits: { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 } } })
const viewer = () => testApi(s.ts.server.tunnelTarget)

const rows = (list: Array<[string, string]>) => list.map(([m, v]) => `<tr><td>${m}</td><td>${v}</td></tr>`).join('')
const REPORT_V1 = `<!doctype html><html><body><main><h1>Q3 report</h1>
<table>${rows([
  ['Jun', '+12%'],
  ['Jul', '+18%'],
  ['Sep', '+31%'],
])}</table>
<p>Revenue grew 31% in September, the best month of the year.</p>
<p class="note">Footnote: all figures are preliminary.</p></main></body></html>`
// Sep's row moves down (a row inserted before it), the paragraph is wrapped in a new div, the
// heading is edited a little, the footnote is gone.
const REPORT_V2 = `<!doctype html><html><body><main><h1>Q3 report (final)</h1>
<table>${rows([
  ['Jun', '+12%'],
  ['Jul', '+18%'],
  ['Aug', '+22%'],
  ['Sep', '+31%'],
])}</table>
<div class="callout"><p>Revenue grew 31% in September, the best month of the year.</p></div></main></body></html>`
const FILES_V1 = { 'index.html': REPORT_V1, 'about.html': '<h2 id="who">Who we are</h2>', 'notes.html': '<p>Scratch notes</p>' }

const pins = {
  cell: { selector: 'main > table > tbody > tr:nth-of-type(3) > td:nth-of-type(2)', quote: '+31%' },
  paragraph: { selector: 'main > p:nth-of-type(1)', quote: 'Revenue grew 31% in September, the best month of the year.' },
  heading: { selector: 'main > h1', quote: 'Q3 report' },
  footnote: { selector: 'main > p.note', quote: 'Footnote: all figures are preliminary.' },
}

let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})

/** What a browser's querySelector finds for the selector in this page: the element's text. */
async function textInBrowser(html: string, selector: string): Promise<string | null> {
  const page = await browser.newPage()
  try {
    await page.setContent(html)
    return await page.evaluate((sel) => document.querySelector(sel)?.textContent?.trim() ?? null, selector)
  } finally {
    await page.close()
  }
}

const pin = async (id: string, anchor: { selector: string; quote?: string }, extra: object = {}) => {
  const reply = await viewer().send(createComment, {
    params: { id },
    body: { text: `On ${anchor.quote}`, versionId: 'v1', filename: 'index.html', x: 10, y: 10, anchor: { ...anchor, offsetX: 50, offsetY: 50 }, ...extra },
  })
  expect(reply.status, reply.text).toBe(200)
  return reply.body.comment.id as string
}
const settled = () => s.ts.server.store.engagement.idle()
const ownerComments = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments as any[]
const byId = async (id: string) => Object.fromEntries((await ownerComments(id)).map((c) => [c.id, c]))

describe('re-anchoring when a version lands', () => {
  it('follows moved elements with working selectors, keeps slightly edited ones, marks removed ones outdated', async () => {
    const id = await s.api.create('Report', FILES_V1, { status: 'published' })
    const cell = await pin(id, pins.cell)
    const paragraph = await pin(id, pins.paragraph)
    const heading = await pin(id, pins.heading)
    const footnote = await pin(id, pins.footnote)
    const about = await pin(id, { selector: '#who', quote: 'Who we are' }, { filename: 'about.html' })
    const notes = await pin(id, { selector: 'p', quote: 'Scratch notes' }, { filename: 'notes.html' })
    const plain = (await viewer().send(createComment, { params: { id }, body: { text: 'spec-only', versionId: 'v1', filename: 'index.html', x: 5, y: 5 } }))
      .body.comment.id
    // The page reads its selectors where they are made: check them as a browser does.
    expect(await textInBrowser(REPORT_V1, pins.cell.selector)).toBe('+31%')

    const events = await openEvents(viewer(), id)
    const { 'notes.html': _gone, ...rest } = FILES_V1
    expect((await s.api.send(updateFolio, { params: { id }, body: { files: { ...rest, 'index.html': REPORT_V2 } } })).status).toBe(200)
    await settled()

    const after = await byId(id)
    expect(after[cell]).toMatchObject({ anchoredVersionId: 'v2', versionId: 'v1' })
    expect(after[cell].anchor.selector).not.toBe(pins.cell.selector)
    expect(await textInBrowser(REPORT_V2, after[cell].anchor.selector)).toBe('+31%')
    expect(after[paragraph].anchoredVersionId).toBe('v2')
    expect(await textInBrowser(REPORT_V2, after[paragraph].anchor.selector)).toBe(pins.paragraph.quote)
    expect(after[paragraph].anchor).toMatchObject({ quote: pins.paragraph.quote, offsetX: 50, offsetY: 50 })
    expect(after[heading].anchor.selector).toBe(pins.heading.selector)
    expect(after[heading].anchoredVersionId).toBe('v2')
    expect(after[about]).toMatchObject({ anchoredVersionId: 'v2', anchor: { selector: '#who' } })
    for (const gone of [footnote, notes]) {
      expect(after[gone]).toMatchObject({ outdated: true, anchoredVersionId: 'v1' })
    }
    expect(after[plain]).not.toHaveProperty('anchoredVersionId')

    // On the page: the pins found again, not the outdated ones, not the spec-only one of v1.
    const onPage = (await viewer().send(getPublicFolio, { params: { id } })).body.comments.map((c: any) => c.id)
    expect(onPage).toEqual([cell, paragraph, heading, about])
    const listed = (await viewer().send(listComments, { params: { id } })).body
    expect(listed.filter((c: any) => c.outdated).map((c: any) => c.id)).toEqual([footnote, notes])
    // Open share pages hear it: the version, then the comments re-anchored to it.
    const moved = await events.next('comments', (d) => d.comments.some((c: any) => c.id === cell && c.anchoredVersionId === 'v2'))
    expect(events.events.findIndex((e) => e.event === 'version')).toBeLessThan(events.events.indexOf(moved))
    await events.cancel()

    const brief = (await s.api.send(getBrief, { params: { id } })).body
    expect(brief.brief).toContain('- Open feedback: 7 comments (4 threads on the page, 2 outdated, 1 on earlier versions)')
    expect(brief.brief.indexOf('Footnote: all figures')).toBeGreaterThan(brief.brief.indexOf('## Outdated: their element is gone'))
    expect(brief.openComments).toHaveLength(7)
  })

  it('leaves outdated pins alone and brings the others back with a restore; uploads change nothing', async () => {
    const id = await s.api.create('Restore', { 'index.html': REPORT_V1 }, { status: 'published' })
    const cell = await pin(id, pins.cell)
    const footnote = await pin(id, pins.footnote)
    await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': REPORT_V2 } } })
    await settled()
    const upload = await s.api.send(uploadFile, {
      params: { id },
      raw: new Uint8Array(tinyPng()),
      headers: { 'content-type': 'application/octet-stream', 'x-file-path': 'logo.png' },
    })
    expect(upload.status, upload.text).toBe(200)
    await settled()
    expect((await byId(id))[cell].anchoredVersionId).toBe('v2')

    await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId: 'v1' } })
    await settled()
    const after = await byId(id)
    expect(after[cell].anchoredVersionId).toBe('v3')
    expect(await textInBrowser(REPORT_V1, after[cell].anchor.selector)).toBe('+31%')
    expect(after[footnote]).toMatchObject({ outdated: true, anchoredVersionId: 'v1' })
  })

  it('ends against the newest version when versions land at once (PUTs and sync patches)', async () => {
    const id = await s.api.create('Busy', { 'index.html': REPORT_V1 }, { status: 'published' })
    const cell = await pin(id, pins.cell)
    const paragraph = await pin(id, pins.paragraph)
    const version = (k: number) =>
      REPORT_V1.replace('<table>', `<table>${rows(Array.from({ length: k }, (_, i) => [`New ${k}.${i}`, `${k}${i}`]))}`).replace(
        '<p>Revenue',
        `<section>${'<br>'.repeat(k)}</section><p>Revenue`,
      )
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2
          ? s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': version(i + 1) } } })
          : s.api.send(syncFiles, { params: { id }, body: { files: { 'index.html': version(i + 1) } } }),
      ),
    )
    await settled()
    const folio = (await s.api.send(getFolio, { params: { id } })).body
    expect(folio.latestVersionId).toBe('v9')
    const latest = folio.versions.at(-1).files['index.html']
    const after = Object.fromEntries(folio.comments.map((c: any) => [c.id, c]))
    for (const [c, text] of [
      [cell, '+31%'],
      [paragraph, pins.paragraph.quote],
    ] as const) {
      expect(after[c].anchoredVersionId).toBe('v9')
      expect(await textInBrowser(latest, after[c].anchor.selector)).toBe(text)
    }
  })

  it('a pin made on an older version is brought to the latest one', async () => {
    const id = await s.api.create('Late pin', { 'index.html': REPORT_V1 }, { status: 'published' })
    await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': REPORT_V2 } } })
    const late = await pin(id, pins.paragraph)
    await settled()
    const after = (await byId(id))[late]
    expect(after).toMatchObject({ versionId: 'v1', anchoredVersionId: 'v2' })
    expect(await textInBrowser(REPORT_V2, after.anchor.selector)).toBe(pins.paragraph.quote)
  })
})

describe('shutdown', () => {
  it('waits for re-anchoring: after a restart every pin stands on the new version', async () => {
    const ts = await startTestServer({ config: { rateLimits: { comments: 10_000, reactions: 600, analytics: 600, public: 600, events: 120 } } })
    const api = testApi(ts.url)
    const many = REPORT_V1.replace('</main>', `${Array.from({ length: 300 }, (_, i) => `<p>Paragraph number ${i} says something</p>`).join('')}</main>`)
    const id = await api.create('Many pins', { 'index.html': many }, { status: 'published' })
    for (let i = 0; i < 300; i += 1) {
      const reply = await api.send(createComment, {
        params: { id },
        body: {
          text: 'x',
          versionId: 'v1',
          filename: 'index.html',
          anchor: { selector: `main > p:nth-of-type(${i + 3})`, quote: `Paragraph number ${i} says something`, offsetX: 1, offsetY: 1 },
        },
      })
      expect(reply.status).toBe(200)
    }
    await api.send(updateFolio, { params: { id }, body: { files: { 'index.html': many.replace('<main>', '<main><p>A new first paragraph</p>') } } })
    await ts.stop()
    const again = await startTestServer({ dataDir: ts.dataDir })
    try {
      const comments = (await testApi(again.url).send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments
      expect(comments.filter((c: any) => c.anchoredVersionId === 'v2')).toHaveLength(300)
      expect(comments[0].anchor.selector).toBe('body > main:nth-of-type(1) > p:nth-of-type(4)')
    } finally {
      await closeClean(again)
      await closeClean(ts)
    }
  })
})
