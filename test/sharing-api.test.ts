import { describe, expect, it } from 'vitest'
import { useServer } from './helpers/use-server.js'

const s = useServer()

const SITE = {
  'index.html': '<!doctype html><html><head><link rel="stylesheet" href="css/site.css"></head><body><h1>Deck</h1><a href="pages/two.html">next</a></body></html>',
  'css/site.css': 'h1 { color: rgb(0, 128, 0) }',
  'pages/two.html': '<p>Two</p>',
}

async function privateFolio(key = 'open sesame') {
  const id = await s.api.create('Secret deck', SITE, { status: 'published' })
  await s.api.put(`/api/files/${id}`, { isPrivate: true, accessKey: key })
  return id
}

/** The boot JSON the share page renders from. */
async function boot(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(s.ts.url + path, { headers })
  const html = await res.text()
  const json = /<script id="folio-boot" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1]
  return { status: res.status, headers: res.headers, html, boot: json ? JSON.parse(json) : undefined }
}

const cookieOf = (res: { headers: Headers }) => res.headers.get('set-cookie')?.split(';')[0] ?? ''

describe('GET /api/files/{id}/public', () => {
  it('gives viewers the spec fields and never the access key', async () => {
    const id = await s.api.create('Public deck', SITE, { status: 'published' })
    await s.api.post(`/api/files/${id}/comments`, { text: 'open', versionId: 'v1', filename: 'index.html' })
    await s.api.put(`/api/files/${id}`, { files: { ...SITE, 'index.html': '<h1>v2</h1>' } })
    await s.api.post(`/api/files/${id}/comments`, { text: 'on v2', versionId: 'v2', filename: 'index.html' })
    const reply = await s.api.get(`/api/files/${id}/public`)
    expect(reply.status).toBe(200)
    expect(Object.keys(reply.body).sort()).toEqual(
      ['activeFileList', 'allowComments', 'comments', 'description', 'draft', 'hasAccessKey', 'id', 'isPrivate', 'latestVersionId', 'presentationModeOnly', 'reactions', 'status', 'title'].sort(),
    )
    expect(reply.body).toMatchObject({ id, draft: false, status: 'published', hasAccessKey: false, latestVersionId: 'v2', activeFileList: ['index.html', 'css/site.css', 'pages/two.html'] })
    expect(reply.body.comments.map((c: any) => c.text)).toEqual(['on v2'])
    expect(reply.text).not.toContain('accessKey')
  })

  it('hides a private folio’s files and comments until the key is proved, and never shows the key', async () => {
    const id = await privateFolio('pa55 word')
    const before = await s.api.get(`/api/files/${id}/public`)
    expect(before.body).toMatchObject({ isPrivate: true, hasAccessKey: true, activeFileList: [], comments: [] })
    expect(before.text).not.toContain('pa55')

    const wrong = await fetch(`${s.ts.url}/api/files/${id}/public`, { method: 'POST', body: JSON.stringify({ accessKey: 'PA55 WORD' }) })
    expect(wrong.status).toBe(200)
    expect(await wrong.json()).toEqual({ success: false })
    expect(wrong.headers.get('set-cookie')).toBeNull()

    const right = await fetch(`${s.ts.url}/api/files/${id}/public`, { method: 'POST', body: JSON.stringify({ accessKey: '  pa55 word ' }) })
    expect(await right.json()).toEqual({ success: true })
    const setCookie = right.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(new RegExp(`^folio_access_${id}=`))
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Strict')
    expect(setCookie).not.toContain('pa55')
    const after = await s.api.get(`/api/files/${id}/public`, { cookie: cookieOf(right) })
    expect(after.body.activeFileList).toContain('index.html')

    // A new key ends the old grant at once.
    await s.api.put(`/api/files/${id}`, { accessKey: 'new key' })
    expect((await s.api.get(`/api/files/${id}/public`, { cookie: cookieOf(right) })).body.activeFileList).toEqual([])
    expect((await s.api.get(`/api/files/${id}/comments`, { cookie: cookieOf(right) })).status).toBe(403)
  })

  it('answers POST /public with 200 success false for anything wrong', async () => {
    const id = await privateFolio()
    for (const body of ['', 'not json', '{}', '{"accessKey": 5}', '[]']) {
      const res = await fetch(`${s.ts.url}/api/files/${id}/public`, { method: 'POST', body })
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({ success: false })
    }
    const unknown = await fetch(`${s.ts.url}/api/files/nope123/public`, { method: 'POST', body: '{"accessKey":"x"}' })
    expect(unknown.status).toBe(200)
    expect(await unknown.json()).toEqual({ success: false })
    const open = await s.api.create('No key', SITE, { status: 'published' })
    expect((await s.api.post(`/api/files/${open}/public`, { accessKey: '' })).body).toEqual({ success: false })
  })

  it('answers 404 for an unknown folio', async () => {
    expect((await s.api.get('/api/files/nope123/public')).body).toEqual({ error: 'Project not found' })
  })
})

describe('the private gate on viewer endpoints', () => {
  it('refuses comments, reactions and beacons without the proved key', async () => {
    const id = await privateFolio()
    for (const reply of [
      await s.api.get(`/api/files/${id}/comments`),
      await s.api.post(`/api/files/${id}/comments`, { text: 'x', versionId: 'v1', filename: 'index.html' }),
      await s.api.post(`/api/files/${id}/reactions`, { increments: { '👍': 1 } }),
      await s.api.post(`/api/files/${id}/analytics`, { isInitial: true }),
    ]) {
      expect(reply.status).toBe(403)
      expect(reply.body.error).toBe('Access key required')
    }
    const proof = await fetch(`${s.ts.url}/api/files/${id}/public`, { method: 'POST', body: JSON.stringify({ accessKey: 'open sesame' }) })
    const cookie = cookieOf(proof)
    expect((await s.api.post(`/api/files/${id}/comments`, { text: 'x', versionId: 'v1', filename: 'index.html' }, { cookie })).status).toBe(200)
    expect((await s.api.post(`/api/files/${id}/analytics`, { isInitial: true }, { cookie })).status).toBe(200)
    const forged = `folio_access_${id}=${cookie.split('=')[1]!.slice(0, -3)}abc`
    expect((await s.api.get(`/api/files/${id}/comments`, { cookie: forged })).status).toBe(403)
  })
})

describe('GET /share/{id}', () => {
  it('renders the folio in a sandboxed frame for a published folio', async () => {
    const id = await s.api.create('Shared', SITE, { status: 'published' })
    const page = await boot(`/share/${id}`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.boot).toMatchObject({ id, view: 'content', entry: 'index.html', frameBase: `/v/${id}/-/`, latestVersionId: 'v1' })
    expect(page.html).toContain('<title>Shared</title>')
  })

  it('shows a draft to nobody but the owner’s preview', async () => {
    const id = await s.api.create('Draft <b>', SITE)
    const page = await boot(`/share/${id}`)
    expect(page.boot).toMatchObject({ view: 'draft' })
    expect(page.boot.frameBase).toBeUndefined()
    expect(page.html).toContain('<title>Draft &#60;b&#62;</title>')
    expect((await fetch(`${s.ts.url}/v/${id}/-/index.html`)).status).toBe(404)
    expect((await s.api.get(`/api/files/${id}/comments`)).status).toBe(403)

    const preview = await boot(`/share/${id}?preview=1`)
    expect(preview.boot).toMatchObject({ view: 'content', preview: true })
    expect(preview.boot.frameBase).toMatch(new RegExp(`^/v/${id}/[^-/][^/]+/$`))
    expect((await fetch(`${s.ts.url}${preview.boot.frameBase}index.html`)).status).toBe(200)
  })

  it('gates a private folio behind the key form, then serves it with a signed frame link', async () => {
    const id = await privateFolio('k3y')
    const gated = await boot(`/share/${id}`)
    expect(gated.boot).toMatchObject({ view: 'gate' })
    expect(gated.html).not.toContain('k3y')
    const proof = await fetch(`${s.ts.url}/api/files/${id}/public`, { method: 'POST', body: JSON.stringify({ accessKey: 'k3y' }) })
    const open = await boot(`/share/${id}`, { cookie: cookieOf(proof) })
    expect(open.boot.view).toBe('content')
    const frameBase: string = open.boot.frameBase
    expect(frameBase).not.toContain('k3y')
    expect((await fetch(`${s.ts.url}${frameBase}index.html`)).status).toBe(200)
    expect((await fetch(`${s.ts.url}${frameBase}css/site.css`)).status).toBe(200)
    expect((await fetch(`${s.ts.url}/v/${id}/-/index.html`)).status).toBe(404)
    expect((await fetch(`${s.ts.url}/v/${id}/forged.token/index.html`)).status).toBe(404)
  })

  it('says when a folio does not exist', async () => {
    const page = await boot('/share/nope123')
    expect(page.status).toBe(404)
    expect(page.boot.view).toBe('missing')
  })
})

describe('viewer-written text cannot break the share page', () => {
  it('renders boot JSON intact when a comment or title holds replacement patterns or placeholders', async () => {
    const id = await s.api.create("Title {{boot}} $' $&", SITE, { status: 'published' })
    await s.api.post(`/api/files/${id}/comments`, { text: "nice $' and $` and $& {{title}}", versionId: 'v1', filename: 'index.html' })
    const page = await boot(`/share/${id}`)
    expect(page.status).toBe(200)
    expect(page.boot.title).toBe("Title {{boot}} $' $&")
    expect(page.boot.comments.map((c: any) => c.text)).toEqual(["nice $' and $` and $& {{title}}"])
    expect(page.html).toContain('<title>Title {{boot}} $&#39; $&#38;</title>')
  })

  it.each([['%'], ['%E0%A4%A']])('treats a mangled access cookie (%s) as no grant, never a 500', async (value) => {
    const id = await privateFolio()
    const headers = { cookie: `folio_access_${id}=${value}` }
    const pub = await s.api.get(`/api/files/${id}/public`, headers)
    expect(pub.status).toBe(200)
    expect(pub.body.activeFileList).toEqual([])
    expect((await fetch(`${s.ts.url}/share/${id}`, { headers })).status).toBe(200)
    expect((await s.api.get(`/api/files/${id}/comments`, headers)).status).toBe(403)
  })
})

describe('GET /v/{id}/{access}/{path}: the raw route', () => {
  it('serves each file with its type, the sandbox, nosniff, no-referrer and a strong ETag', async () => {
    const id = await s.api.create('Raw', { ...SITE, 'data.json': '{"a":1}' }, { status: 'published' })
    const page = await fetch(`${s.ts.url}/v/${id}/-/index.html`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/)
    expect(page.headers.get('content-security-policy')).not.toContain('allow-same-origin')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('access-control-allow-origin')).toBeNull()
    const html = await page.text()
    expect(html).toContain(`<script src="/_folio/bridge.js" data-folio-base="/v/${id}/-/"></script></body>`)
    const css = await fetch(`${s.ts.url}/v/${id}/-/css/site.css`)
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(await css.text()).toBe(SITE['css/site.css'])
    expect((await fetch(`${s.ts.url}/v/${id}/-/data.json`)).headers.get('content-type')).toContain('application/json')
    expect((await fetch(`${s.ts.url}/v/${id}/-/pages/two.html`)).status).toBe(200)
    expect((await fetch(`${s.ts.url}/v/${id}/-/missing.css`)).status).toBe(404)
    expect((await fetch(`${s.ts.url}/v/${id}/-/..%2F..%2Fformat.json`)).status).toBe(404)
  })

  it('answers an unchanged file with 304, every time, and a changed one with new bytes', async () => {
    const id = await s.api.create('Etag', SITE, { status: 'published' })
    const first = await fetch(`${s.ts.url}/v/${id}/-/css/site.css`)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/)
    for (let i = 0; i < 3; i++) {
      const again = await fetch(`${s.ts.url}/v/${id}/-/css/site.css`, { headers: { 'if-none-match': etag } })
      expect(again.status).toBe(304)
      expect(again.headers.get('etag')).toBe(etag)
      expect(await again.text()).toBe('')
    }
    // Lists and weak forms match too (RFC 9110 weak comparison), as browsers and proxies send them.
    for (const header of [`"other", ${etag}`, `W/${etag}`, '*']) {
      expect((await fetch(`${s.ts.url}/v/${id}/-/css/site.css`, { headers: { 'if-none-match': header } })).status).toBe(304)
    }
    expect((await fetch(`${s.ts.url}/v/${id}/-/css/site.css`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200)
    await s.api.put(`/api/files/${id}`, { files: { ...SITE, 'css/site.css': 'h1 { color: blue }' } })
    const changed = await fetch(`${s.ts.url}/v/${id}/-/css/site.css`, { headers: { 'if-none-match': etag } })
    expect(changed.status).toBe(200)
    expect(await changed.text()).toBe('h1 { color: blue }')
  })

  it('serves uploaded images as their type', async () => {
    const { tinyPng } = await import('./helpers/images.js')
    const id = await s.api.create('Pics', SITE, { status: 'published' })
    await fetch(`${s.ts.url}/api/files/${id}/upload`, { method: 'POST', body: new Uint8Array(tinyPng()), headers: { 'content-type': 'application/octet-stream', 'x-file-path': 'img/logo.png' } })
    const img = await fetch(`${s.ts.url}/v/${id}/-/img/logo.png`)
    expect(img.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await img.arrayBuffer()).equals(tinyPng())).toBe(true)
  })
})

describe('pages and assets', () => {
  it('serves the dashboard and the viewer assets', async () => {
    const home = await fetch(`${s.ts.url}/`)
    expect(home.status).toBe(200)
    expect(home.headers.get('content-type')).toContain('text/html')
    for (const [name, type] of [['share.js', 'text/javascript'], ['bridge.js', 'text/javascript'], ['share.css', 'text/css'], ['dashboard.js', 'text/javascript']]) {
      const res = await fetch(`${s.ts.url}/_folio/${name}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain(type!)
      const cached = await fetch(`${s.ts.url}/_folio/${name}`, { headers: { 'if-none-match': res.headers.get('etag')! } })
      expect(cached.status).toBe(304)
    }
    for (const bad of ['nope.js', '..%2Fpackage.json', 'share.html']) expect((await fetch(`${s.ts.url}/_folio/${bad}`)).status).toBe(404)
  })

  it('serves every module the share page and the dashboard import, as JavaScript', async () => {
    const seen = new Set<string>()
    const load = async (url: string): Promise<void> => {
      if (seen.has(url)) return
      seen.add(url)
      const res = await fetch(`${s.ts.url}${url}`)
      expect(res.status, url).toBe(200)
      expect(res.headers.get('content-type'), url).toContain('text/javascript')
      for (const [, spec] of (await res.text()).matchAll(/^import [^'"]*'([^']+)';$/gm)) await load(new URL(spec!, `http://x${url}`).pathname)
    }
    await load('/_folio/share.js')
    await load('/_folio/dashboard.js')
    // The share page's parts, each its own module (a scanner that found none would prove nothing).
    expect(seen.size).toBeGreaterThan(8)
    expect(seen).toContain('/_folio/ui.js')
  })
})

describe('GET /api/files/{id}/events', () => {
  it('streams new versions, comments and reactions to an open share page', async () => {
    const id = await s.api.create('Live', SITE, { status: 'published' })
    const controller = new AbortController()
    const res = await fetch(`${s.ts.url}/api/files/${id}/events`, { signal: controller.signal })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const reader = res.body!.getReader()
    let text = ''
    const waitFor = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`stream ended before ${needle}`)
        text += new TextDecoder().decode(value)
      }
    }
    await waitFor(': folio live updates')
    await s.api.put(`/api/files/${id}`, { files: { ...SITE, 'index.html': '<h1>v2</h1>' } })
    await waitFor('event: version')
    await waitFor('"latestVersionId":"v2"')
    await s.api.post(`/api/files/${id}/comments`, { text: 'live!', versionId: 'v2', filename: 'index.html' })
    await waitFor('live!')
    await s.api.post(`/api/files/${id}/reactions`, { increments: { '🔥': 1 } })
    await waitFor('event: reactions')
    await s.api.delete(`/api/files/${id}`)
    await waitFor('event: deleted')
    controller.abort()
  })

  it('ends a viewer’s stream, sending nothing more, when one PUT makes the folio private and adds files', async () => {
    const id = await s.api.create('Turns private', SITE, { status: 'published' })
    const res = await fetch(`${s.ts.url}/api/files/${id}/events`)
    const reader = res.body!.getReader()
    let text = ''
    const read = async () => {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        text += new TextDecoder().decode(value)
      }
    }
    const ended = read()
    await s.api.put(`/api/files/${id}`, { isPrivate: true, accessKey: 'k', files: { ...SITE, 'secret-plan.html': 'x' } })
    await s.api.post(`/api/files/${id}/comments`, { text: 'owner only', versionId: 'v2', filename: 'index.html' })
    await ended
    expect(text).toContain(': folio live updates')
    expect(text).not.toContain('secret-plan')
    expect(text).not.toContain('owner only')
  })

  it('refuses a private folio’s stream without the key', async () => {
    const id = await privateFolio()
    expect((await s.api.get(`/api/files/${id}/events`)).status).toBe(403)
  })
})
