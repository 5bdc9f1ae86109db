import { describe, expect, it } from 'vitest'
import { createFolio, updateFolio } from '../src/api/files.js'
import { verifyAccessKey } from '../src/api/sharing.js'
import { sharePage } from '../src/api/viewer.js'
import { testApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

// Issue 9: link previews (og:title, og:description) and no search engine in drafts or private folios.
const s = useServer()
const viewer = () => testApi(s.ts.server.tunnelTarget)

const head = async (id: string, headers?: Record<string, string>) => {
  const page = await viewer().send(sharePage, { params: { id }, headers })
  return { status: page.status, head: /<head>([\s\S]*?)<\/head>/.exec(page.text)![1]!, text: page.text }
}
const metaOf = (headHtml: string, attr: 'property' | 'name', name: string) => new RegExp(`<meta ${attr}="${name}" content="([^"]*)">`).exec(headHtml)?.[1]

describe('the share page head', () => {
  it('carries og:title and og:description, escaped, and lets a published public folio be indexed', async () => {
    const title = 'Q3 "numbers" <b>&</b>'
    const description = `Line one\n  line "two" <script>alert(1)</script> ${'x'.repeat(400)}`
    const id = await s.api.create(title, { 'index.html': '<h1>Hi</h1>' }, { status: 'published', description })
    const { head: h, status } = await head(id)
    expect(status).toBe(200)
    expect(metaOf(h, 'property', 'og:title')).toBe('Q3 &#34;numbers&#34; &#60;b&#62;&#38;&#60;/b&#62;')
    const og = metaOf(h, 'property', 'og:description')!
    expect(og.startsWith('Line one line &#34;two&#34; &#60;script&#62;alert(1)&#60;/script&#62; xxx')).toBe(true)
    expect(og.endsWith('x…')).toBe(true)
    expect(h).not.toContain('<script>alert')
    expect(metaOf(h, 'name', 'robots')).toBeUndefined()
  })

  it('tells search engines to keep out of drafts, private folios (gate and content) and missing ones', async () => {
    const draft = await s.api.create('Draft', { 'index.html': '<h1>Hi</h1>' })
    expect(metaOf((await head(draft)).head, 'name', 'robots')).toBe('noindex')

    const secret = await s.api.create('Secret', { 'index.html': '<h1>Hi</h1>' }, { status: 'published' })
    await s.api.send(updateFolio, { params: { id: secret }, body: { isPrivate: true, accessKey: 'sesame' } })
    const gate = await head(secret)
    expect(gate.text).toContain('"view":"gate"')
    expect(metaOf(gate.head, 'name', 'robots')).toBe('noindex')
    const proved = await viewer().send(verifyAccessKey, { params: { id: secret }, body: { accessKey: 'sesame' } })
    const content = await head(secret, { cookie: proved.headers.get('set-cookie')!.split(';')[0]! })
    expect(content.text).toContain('"view":"content"')
    expect(metaOf(content.head, 'name', 'robots')).toBe('noindex')

    const missing = await head('Nope12345678')
    expect(missing.status).toBe(404)
    expect(metaOf(missing.head, 'name', 'robots')).toBe('noindex')
  })
})

describe('the default description', () => {
  it.each([
    [{ 'index.html': '<h1>One</h1>' }, 'A single-page HTML folio.'],
    [{ 'index.html': '<h1>One</h1>', 'style.css': 'h1{}' }, 'A single-page HTML folio.'],
    [{ 'index.html': '<h1>One</h1>', 'two.htm': '<h1>Two</h1>' }, 'A multi-page HTML folio.'],
    [{ 'notes.md': '# no page' }, 'An HTML folio.'],
  ])('for %j is %s', async (files, expected) => {
    const reply = await s.api.send(createFolio, { body: { title: 'Described', defaultFiles: files } })
    expect(reply.body.project.description).toBe(expected)
  })
})
