import { request } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { updateFolio } from '../src/api/files.js'
import { uploadFile } from '../src/api/uploads.js'
import { dashboardPage, sharePage } from '../src/api/viewer.js'
import { tinyPng } from './helpers/images.js'
import { useServer } from './helpers/use-server.js'

/**
 * A viewer through a tunnel, on a phone: the share page arrives in few, small, compressed
 * answers, and what a version's frame loaded once is not loaded again (issue 22).
 */
const s = useServer()

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** As it came over the wire. */
  wire: Buffer
  /** Decoded per its content-encoding. */
  body: string
}

/** A GET as a browser sends it, its bytes as they came (fetch would decode them). */
function get(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    request(`${s.api.server}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const wire = Buffer.concat(chunks)
        const encoding = res.headers['content-encoding']
        const decoded = encoding === 'br' ? brotliDecompressSync(wire) : encoding === 'gzip' ? gunzipSync(wire) : wire
        resolve({ status: res.statusCode!, headers: res.headers, wire, body: decoded.toString('utf8') })
      })
    })
      .on('error', reject)
      .end()
  })
}

const BROWSER = { 'accept-encoding': 'gzip, deflate, br, zstd' }
const paragraph = (i: number) => `<p>Paragraph ${i}: revenue grew in every region, led by the east.</p>`
const BIG_PAGE = `<!doctype html><html><head><title>Report</title></head><body><h1>Report</h1>${Array.from({ length: 400 }, (_, i) => paragraph(i)).join('\n')}</body></html>`

describe('compression per Accept-Encoding', () => {
  it('sends the share page, its bundle and a folio’s text files compressed, and the same bytes decoded', async () => {
    const id = await s.api.create(
      'Report',
      { 'index.html': BIG_PAGE, 'app.js': `console.log(${JSON.stringify('x'.repeat(5000))})`, 'tiny.css': 'h1{color:red}' },
      { status: 'published' },
    )
    const share = await get(`/share/${id}`, BROWSER)
    expect(share.headers['content-encoding']).toBe('br')
    expect(share.headers.vary).toContain('accept-encoding')
    expect(share.wire.length).toBeLessThan(share.body.length / 2)
    expect((await get(`/share/${id}`)).body).toBe(share.body) // identity for a client that asks for none

    const script = /<script defer src="([^"]+)"/.exec(share.body)![1]!
    const bundle = await get(script, BROWSER)
    expect(bundle.headers['content-encoding']).toBe('br')
    expect(bundle.body).toBe((await get(script)).body)
    expect((await get(script, { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBe('gzip')

    const base = `/v/${id}/-@v1/`
    for (const encoding of ['br', 'gzip']) {
      const page = await get(`${base}index.html`, { 'accept-encoding': encoding })
      expect(page.headers['content-encoding']).toBe(encoding)
      expect(page.body).toContain(paragraph(399))
      expect(page.wire.length).toBeLessThan(page.body.length / 3)
      expect(page.body).toBe((await get(`${base}index.html`)).body)
    }
    expect((await get(`${base}app.js`, BROWSER)).headers['content-encoding']).toBe('br')
    // Too small to be worth it, and what is compressed already: as is.
    expect((await get(`${base}tiny.css`, BROWSER)).headers['content-encoding']).toBeUndefined()
    await s.api.send(uploadFile, { params: { id }, raw: new Uint8Array(tinyPng([1, 2, 3])), headers: { 'x-file-path': 'logo.png' } })
    const png = await get(`/v/${id}/-/logo.png`, BROWSER)
    expect(png.headers['content-encoding']).toBeUndefined()
    expect(png.wire.equals(tinyPng([1, 2, 3]))).toBe(true)
  })

  it('gives each folio its own page, though two hold the same file', async () => {
    const one = await s.api.create('One', { 'index.html': BIG_PAGE }, { status: 'published' })
    const two = await s.api.create('Two', { 'index.html': BIG_PAGE }, { status: 'published' })
    for (const id of [one, two, one]) {
      const page = await get(`/v/${id}/-@v1/index.html`, BROWSER)
      expect(page.body).toContain(`data-folio-base="/v/${id}/-@v1/"`)
    }
  })

  it('compresses API answers over 1 KB, the hot ones once: every later answer is the same copy', async () => {
    const id = await s.api.create('Api', { 'index.html': BIG_PAGE }, { status: 'published' })
    const path = `/api/files/${id}?files=latest`
    const plain = await get(path)
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.headers.vary).toContain('accept-encoding')
    const answers = []
    for (let i = 0; i < 5; i++) answers.push(await get(path, BROWSER))
    for (const answer of answers) {
      expect(answer.headers['content-encoding']).toBe('br')
      expect(answer.headers['content-length']).toBe(String(answer.wire.length))
      expect(JSON.parse(answer.body)).toEqual(JSON.parse(plain.body))
    }
    // The hot cache's copy, once made, is what every request gets.
    expect(answers.at(-1)!.wire.equals(answers.at(-2)!.wire)).toBe(true)
    expect((await get(path, { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBe('gzip')
    // Small answers go as they are.
    const small = await get(`/api/files/${id}/reactions`, BROWSER)
    expect(small.headers['content-encoding']).toBeUndefined()
    expect(JSON.parse(small.body)).toBeDefined()
  })

  it('honours q=0 and names it in Vary, also on the dashboard', async () => {
    const refused = await get(dashboardPage.path, { 'accept-encoding': 'br;q=0, gzip' })
    expect(refused.headers['content-encoding']).toBe('gzip')
    expect(refused.headers.vary).toContain('accept-encoding')
    expect((await get(dashboardPage.path, { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined()
  })
})

describe('caching a version’s files', () => {
  it('keeps what a version’s frame loads for good, and checks the latest address each time', async () => {
    const id = await s.api.create('Cached', { 'index.html': '<h1>v1</h1>', 'site.css': 'h1{}' }, { status: 'published' })
    const versioned = await get(`/v/${id}/-@v1/site.css`)
    // Private: a shared cache (a tunnel's edge, a proxy) must not go on serving it once unpublished.
    expect(versioned.headers['cache-control']).toBe('private, max-age=31536000, immutable')
    expect((await get(`/v/${id}/-/site.css`)).headers['cache-control']).toBe('no-cache')
    const bundle = /<script defer src="([^"]+)"/.exec((await get(`/share/${id}`)).body)![1]!
    expect((await get(bundle)).headers['cache-control']).toBe('public, max-age=31536000, immutable')

    await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>v2</h1>', 'site.css': 'h1{}' } } })
    // An older version's address leads to the latest: what its author took out is not served.
    const old = await get(`/v/${id}/-@v1/index.html?x=1`)
    expect(old.status).toBe(302)
    expect(old.headers.location).toBe(`/v/${id}/-@v2/index.html?x=1`)
    expect(old.headers['cache-control']).toBe('no-store')
    expect((await get(`/v/${id}/-@v9/index.html`)).status).toBe(404)
    expect((await get(`/v/${id}/-@v2/index.html`)).body).toContain('<h1>v2</h1>')
    const boot = JSON.parse(
      /<script id="folio-boot" type="application\/json">(.*?)<\/script>/.exec((await s.api.send(sharePage, { params: { id } })).text)![1]!,
    )
    expect(boot.frameBase).toBe(`/v/${id}/-@v2/`)
  })
})
