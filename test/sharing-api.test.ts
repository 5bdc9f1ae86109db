import { describe, expect, it } from 'vitest'
import { createComment, listComments, react, recordAnalytics } from '../src/api/engagement.js'
import { deleteFolio, updateFolio } from '../src/api/files.js'
import { folioEvents, getPublicFolio, verifyAccessKey } from '../src/api/sharing.js'
import { uploadFile } from '../src/api/uploads.js'
import { getKey } from '../src/api/keys.js'
import { dashboardPage, folioPage, rawFile, sharePage, viewerAsset } from '../src/api/viewer.js'
import { contractPath } from '../src/client/index.js'
import { testApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

const s = useServer()
/**
 * A viewer: through the tunnel, without the key. (s.api is a program on this machine, which OSS
 * takes for the owner: it may read and write the comments of its drafts and private folios.)
 */
const viewer = () => testApi(s.ts.server.tunnelTarget)
/** The workspace's key, which the owner's programs send (the open local API is not the owner here). */
const ownerKey = async () => (await s.api.send(getKey)).body.apiKey as string

const SITE = {
  'index.html':
    '<!doctype html><html><head><link rel="stylesheet" href="css/site.css"></head><body><h1>Deck</h1><a href="pages/two.html">next</a></body></html>',
  'css/site.css': 'h1 { color: rgb(0, 128, 0) }',
  'pages/two.html': '<p>Two</p>',
}

async function privateFolio(key = 'open sesame') {
  const id = await s.api.create('Secret deck', SITE, { status: 'published' })
  await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: key } })
  return id
}

/** The boot JSON the share page renders from. */
async function boot(id: string, input: { query?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const page = await s.api.send(sharePage, { params: { id }, ...input })
  const json = /<script id="folio-boot" type="application\/json">(.*?)<\/script>/s.exec(page.text)?.[1]
  return { status: page.status, headers: page.headers, html: page.text, boot: json ? JSON.parse(json) : undefined }
}

/** A file of the folio as the viewer frame loads it, published (access "-") unless a grant is given. */
const rawOf = (id: string, path: string, headers: Record<string, string> = {}, access = '-') => s.api.send(rawFile, { params: { id, access, path }, headers })

const cookieOf = (res: { headers: Headers }) => res.headers.get('set-cookie')?.split(';')[0] ?? ''

describe('GET /api/files/{id}/public', () => {
  it('gives viewers the spec fields and never the access key', async () => {
    const id = await s.api.create('Public deck', SITE, { status: 'published' })
    await s.api.send(createComment, { params: { id }, body: { text: 'open', versionId: 'v1', filename: 'index.html' } })
    await s.api.send(updateFolio, { params: { id }, body: { files: { ...SITE, 'index.html': '<h1>v2</h1>' } } })
    await s.api.send(createComment, { params: { id }, body: { text: 'on v2', versionId: 'v2', filename: 'index.html' } })
    const reply = await s.api.send(getPublicFolio, { params: { id } })
    expect(reply.status).toBe(200)
    expect(Object.keys(reply.body).sort()).toEqual(
      // The spec's fields, and commentModeration (who may resolve or delete: the page's buttons depend on it).
      [
        'activeFileList',
        'allowComments',
        'commentModeration',
        'comments',
        'description',
        'draft',
        'hasAccessKey',
        'id',
        'isPrivate',
        'latestVersionId',
        'presentationModeOnly',
        'reactions',
        'status',
        'title',
      ].sort(),
    )
    expect(reply.body).toMatchObject({
      id,
      draft: false,
      status: 'published',
      hasAccessKey: false,
      latestVersionId: 'v2',
      activeFileList: ['index.html', 'css/site.css', 'pages/two.html'],
    })
    expect(reply.body.comments.map((c: any) => c.text)).toEqual(['on v2'])
    expect(reply.text).not.toContain('accessKey')
  })

  it('hides a private folio’s files and comments until the key is proved, and never shows the key', async () => {
    const id = await privateFolio('pa55 word')
    const before = await s.api.send(getPublicFolio, { params: { id } })
    expect(before.body).toMatchObject({ isPrivate: true, hasAccessKey: true, activeFileList: [], comments: [] })
    expect(before.text).not.toContain('pa55')

    const wrong = await s.api.send(verifyAccessKey, { params: { id }, body: { accessKey: 'PA55 WORD' } })
    expect(wrong.status).toBe(200)
    expect(wrong.body).toEqual({ success: false })
    expect(wrong.headers.get('set-cookie')).toBeNull()

    const right = await s.api.send(verifyAccessKey, { params: { id }, body: { accessKey: '  pa55 word ' } })
    expect(right.body).toEqual({ success: true })
    const setCookie = right.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(new RegExp(`^folio_access_${id}=`))
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Strict')
    expect(setCookie).not.toContain('pa55')
    const after = await s.api.send(getPublicFolio, { params: { id }, headers: { cookie: cookieOf(right) } })
    expect(after.body.activeFileList).toContain('index.html')

    // A new key ends the old grant at once.
    await s.api.send(updateFolio, { params: { id }, body: { accessKey: 'new key' } })
    expect((await s.api.send(getPublicFolio, { params: { id }, headers: { cookie: cookieOf(right) } })).body.activeFileList).toEqual([])
    expect((await viewer().send(listComments, { params: { id }, headers: { cookie: cookieOf(right) } })).status).toBe(403)
  })

  it('answers POST /public with 200 success false for anything wrong', async () => {
    const id = await privateFolio()
    for (const body of ['', 'not json', '{}', '{"accessKey": 5}', '[]']) {
      const reply = await s.api.send(verifyAccessKey, { params: { id }, raw: body })
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual({ success: false })
    }
    const unknown = await s.api.send(verifyAccessKey, { params: { id: 'nope123' }, raw: '{"accessKey":"x"}' })
    expect(unknown.status).toBe(200)
    expect(unknown.body).toEqual({ success: false })
    const open = await s.api.create('No key', SITE, { status: 'published' })
    expect((await s.api.send(verifyAccessKey, { params: { id: open }, body: { accessKey: '' } })).body).toEqual({ success: false })
  })

  it('answers 404 for an unknown folio', async () => {
    expect((await s.api.send(getPublicFolio, { params: { id: 'nope123' } })).body).toEqual({ error: 'Project not found' })
  })
})

describe('the private gate on viewer endpoints', () => {
  it('refuses comments, reactions and beacons without the proved key', async () => {
    const id = await privateFolio()
    for (const reply of [
      await viewer().send(listComments, { params: { id } }),
      await viewer().send(createComment, { params: { id }, body: { text: 'x', versionId: 'v1', filename: 'index.html' } }),
      await viewer().send(react, { params: { id }, body: { increments: { '👍': 1 } } }),
      await viewer().send(recordAnalytics, { params: { id }, body: { isInitial: true } }),
    ]) {
      expect(reply.status).toBe(403)
      expect(reply.body.error).toBe('Access key required')
    }
    const proof = await viewer().send(verifyAccessKey, { params: { id }, body: { accessKey: 'open sesame' } })
    const cookie = cookieOf(proof)
    expect(
      (await viewer().send(createComment, { params: { id }, body: { text: 'x', versionId: 'v1', filename: 'index.html' }, headers: { cookie } })).status,
    ).toBe(200)
    expect((await viewer().send(recordAnalytics, { params: { id }, body: { isInitial: true }, headers: { cookie } })).status).toBe(200)
    const forged = `folio_access_${id}=${cookie.split('=')[1]!.slice(0, -3)}abc`
    expect((await viewer().send(listComments, { params: { id }, headers: { cookie: forged } })).status).toBe(403)
    // The viewer endpoints take the owner's key, not the open local API (any page on this machine
    // is that): without it this machine is a viewer too; with it, the owner.
    expect((await s.api.send(listComments, { params: { id } })).status).toBe(403)
    expect((await testApi(s.api.server, { key: await ownerKey() }).send(listComments, { params: { id } })).status).toBe(200)
  })
})

describe('GET /share/{id}', () => {
  it('renders the folio in a sandboxed frame for a published folio', async () => {
    const id = await s.api.create('Shared', SITE, { status: 'published' })
    const page = await boot(id)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.headers.get('cache-control')).toBe('no-store')
    // The base names the version: what a browser keeps of v1's files is never taken for another's.
    expect(page.boot).toMatchObject({ id, view: 'content', entry: 'index.html', frameBase: `/v/${id}/-@v1/`, latestVersionId: 'v1' })
    expect(page.html).toContain('<title>Shared</title>')
    // The frame is in the page, started by an inline script, before the page's own script has come.
    expect(page.html).toMatch(
      /<iframe id="folio-frame" class="frame" title="Shared" allow="fullscreen" sandbox="allow-scripts allow-popups allow-forms allow-modals allow-downloads"><\/iframe><script>/,
    )
    expect(page.html).not.toMatch(/allow-same-origin/)
    expect(page.html).toContain(`f.src="/v/${id}/-@v1/index.html"`)
  })

  it('shows a draft to nobody but its owner: a viewer gets the missing page, the owner the notice or its preview', async () => {
    const id = await s.api.create('Draft <b>', SITE, { description: 'Not for viewers yet' })
    // A viewer: the page a folio that does not exist gets (test/draft-privacy.test.ts).
    const seen = await viewer().send(sharePage, { params: { id } })
    expect(seen.status).toBe(404)
    expect(JSON.parse(/<script id="folio-boot" type="application\/json">(.*?)<\/script>/s.exec(seen.text)![1]!)).toEqual({
      api: `/api/files/${id}`,
      id,
      title: 'Not found',
      view: 'missing',
    })
    expect(seen.text).not.toContain('Draft')
    expect(seen.text).not.toContain('Not for viewers yet')
    expect((await viewer().send(listComments, { params: { id } })).status).toBe(404)
    expect((await viewer().send(rawFile, { params: { id, access: '-', path: 'index.html' } })).status).toBe(404)
    // The owner (this machine, no key): the draft notice, with its title; comments with its key.
    const page = await boot(id)
    expect(page.boot).toMatchObject({ view: 'draft' })
    expect(page.boot.frameBase).toBeUndefined()
    expect(page.html).toContain('<title>Draft &#60;b&#62;</title>')
    expect((await rawOf(id, 'index.html')).status).toBe(404)
    expect((await s.api.send(listComments, { params: { id } })).status).toBe(403)
    expect((await testApi(s.api.server, { key: await ownerKey() }).send(listComments, { params: { id } })).status).toBe(200)

    const preview = await boot(id, { query: { preview: '1' } })
    expect(preview.boot).toMatchObject({ view: 'content', preview: true })
    expect(preview.boot.frameBase).toMatch(new RegExp(`^/v/${id}/[^-/][^/]+/$`))
    // The frame link as the page got it (a rawFile URL with a signed access segment), followed as is.
    expect((await fetch(`${s.api.server}${preview.boot.frameBase}index.html`)).status).toBe(200)
  })

  it('gates a private folio behind the key form, then serves it with a signed frame link', async () => {
    const id = await privateFolio('k3y')
    const gated = await boot(id)
    expect(gated.boot).toMatchObject({ view: 'gate' })
    expect(gated.html).not.toContain('k3y')
    const proof = await s.api.send(verifyAccessKey, { params: { id }, body: { accessKey: 'k3y' } })
    const open = await boot(id, { headers: { cookie: cookieOf(proof) } })
    expect(open.boot.view).toBe('content')
    const frameBase: string = open.boot.frameBase
    expect(frameBase).not.toContain('k3y')
    expect((await fetch(`${s.api.server}${frameBase}index.html`)).status).toBe(200)
    expect((await fetch(`${s.api.server}${frameBase}css/site.css`)).status).toBe(200)
    expect((await rawOf(id, 'index.html')).status).toBe(404)
    expect((await rawOf(id, 'index.html', {}, 'forged.token')).status).toBe(404)
  })

  it('says when a folio does not exist', async () => {
    const page = await boot('nope123')
    expect(page.status).toBe(404)
    expect(page.boot.view).toBe('missing')
  })
})

describe('viewer-written text cannot break the share page', () => {
  it('renders boot JSON intact when a comment or title holds replacement patterns or placeholders', async () => {
    const id = await s.api.create("Title {{boot}} $' $&", SITE, { status: 'published' })
    await s.api.send(createComment, { params: { id }, body: { text: "nice $' and $` and $& {{title}}", versionId: 'v1', filename: 'index.html' } })
    const page = await boot(id)
    expect(page.status).toBe(200)
    expect(page.boot.title).toBe("Title {{boot}} $' $&")
    expect(page.boot.comments.map((c: any) => c.text)).toEqual(["nice $' and $` and $& {{title}}"])
    expect(page.html).toContain('<title>Title {{boot}} $&#39; $&#38;</title>')
  })

  it.each([['%'], ['%E0%A4%A']])('treats a mangled access cookie (%s) as no grant, never a 500', async (value) => {
    const id = await privateFolio()
    const headers = { cookie: `folio_access_${id}=${value}` }
    const pub = await viewer().send(getPublicFolio, { params: { id }, headers })
    expect(pub.status).toBe(200)
    expect(pub.body.activeFileList).toEqual([])
    expect((await viewer().send(sharePage, { params: { id }, headers })).status).toBe(200)
    expect((await viewer().send(listComments, { params: { id }, headers })).status).toBe(403)
  })
})

describe('GET /v/{id}/{access}/{path}: the raw route', () => {
  it('serves each file with its type, the sandbox, nosniff, no-referrer and a strong ETag', async () => {
    const id = await s.api.create('Raw', { ...SITE, 'data.json': '{"a":1}' }, { status: 'published' })
    const page = await rawOf(id, 'index.html')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/)
    expect(page.headers.get('content-security-policy')).not.toContain('allow-same-origin')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('access-control-allow-origin')).toBeNull()
    // Inline (a sandboxed frame's own requests are never cached): the storage stand-ins first in
    // <head>, before any script of the folio; the bridge last, after them.
    expect(page.text).toMatch(/^<!doctype html><html><head><script>"use strict";.*folio-frame-state:.*<\/script><link rel="stylesheet" href="css\/site.css">/)
    expect(page.text).toMatch(
      new RegExp(`<a href="pages/two.html">next</a><script data-folio-base="/v/${id}/-/">"use strict";[\\s\\S]*folio-bridge[\\s\\S]*</script></body></html>$`),
    )
    expect(page.text).not.toMatch(/<script[^>]* src=/)
    const css = await rawOf(id, 'css/site.css')
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(css.text).toBe(SITE['css/site.css'])
    expect((await rawOf(id, 'data.json')).headers.get('content-type')).toContain('application/json')
    expect((await rawOf(id, 'pages/two.html')).status).toBe(200)
    expect((await rawOf(id, 'missing.css')).status).toBe(404)
    expect((await fetch(s.api.server + contractPath(rawFile, { id, access: '-', path: '..%2F..%2Fformat.json' }, { verbatim: true }))).status).toBe(404)
  })

  it('answers an unchanged file with 304, every time, and a changed one with new bytes', async () => {
    const id = await s.api.create('Etag', SITE, { status: 'published' })
    const first = await rawOf(id, 'css/site.css')
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/)
    for (let i = 0; i < 3; i++) {
      const again = await rawOf(id, 'css/site.css', { 'if-none-match': etag })
      expect(again.status).toBe(304)
      expect(again.headers.get('etag')).toBe(etag)
      expect(again.text).toBe('')
    }
    // Lists and weak forms match too (RFC 9110 weak comparison), as browsers and proxies send them.
    for (const header of [`"other", ${etag}`, `W/${etag}`, '*']) {
      expect((await rawOf(id, 'css/site.css', { 'if-none-match': header })).status).toBe(304)
    }
    expect((await rawOf(id, 'css/site.css', { 'if-none-match': '"other"' })).status).toBe(200)
    await s.api.send(updateFolio, { params: { id }, body: { files: { ...SITE, 'css/site.css': 'h1 { color: blue }' } } })
    const changed = await rawOf(id, 'css/site.css', { 'if-none-match': etag })
    expect(changed.status).toBe(200)
    expect(changed.text).toBe('h1 { color: blue }')
  })

  it('serves uploaded images as their type', async () => {
    const { tinyPng } = await import('./helpers/images.js')
    const id = await s.api.create('Pics', SITE, { status: 'published' })
    await s.api.send(uploadFile, { params: { id }, raw: new Uint8Array(tinyPng()), headers: { 'x-file-path': 'img/logo.png' } })
    const img = await s.api.request(rawFile, { params: { id, access: '-', path: 'img/logo.png' } })
    expect(img.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await img.arrayBuffer()).equals(tinyPng())).toBe(true)
  })
})

describe('pages and assets', () => {
  it('serves the dashboard and the viewer assets', async () => {
    const home = await s.api.send(dashboardPage)
    expect(home.status).toBe(200)
    expect(home.headers.get('content-type')).toContain('text/html')
    // A folio's own page is the same shell: it reads the id from its address (unknown ids say so there).
    const folioHome = await s.api.send(folioPage, { params: { id: 'abc123' } })
    expect(folioHome.status).toBe(200)
    expect(folioHome.text).toBe(home.text)
    for (const [name, type] of [
      ['share.js', 'text/javascript'],
      ['bridge.js', 'text/javascript'],
      ['share.css', 'text/css'],
      ['dashboard.js', 'text/javascript'],
    ]) {
      const res = await s.api.send(viewerAsset, { params: { asset: name! } })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain(type!)
      const cached = await s.api.send(viewerAsset, { params: { asset: name! }, headers: { 'if-none-match': res.headers.get('etag')! } })
      expect(cached.status).toBe(304)
    }
    for (const bad of ['nope.js', '..%2Fpackage.json', 'share.html']) {
      expect((await fetch(s.api.server + contractPath(viewerAsset, { asset: bad }, { verbatim: true }))).status).toBe(404)
    }
  })

  it('gives the share page and the dashboard one script each, under a name that changes with its content', async () => {
    const id = await s.api.create('Bundled', SITE, { status: 'published' })
    for (const page of [(await s.api.send(sharePage, { params: { id } })).text, (await s.api.send(dashboardPage)).text]) {
      const scripts = [...page.matchAll(/<script[^>]* src="([^"]+)"/g)].map((m) => m[1]!)
      expect(scripts).toHaveLength(1)
      expect(scripts[0]).toMatch(/^\/_folio\/(share|dashboard)-\w{8}\.js$/)
      expect(page).not.toMatch(/type="module"/)
      const res = await fetch(s.api.server + scripts[0])
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain('text/javascript')
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      // One bundle: it loads nothing more itself.
      expect(await res.text()).not.toMatch(/\bimport\s*\(|^import /m)
    }
  })
})

describe('GET /api/files/{id}/events', () => {
  it('streams new versions, comments and reactions to an open share page', async () => {
    const id = await s.api.create('Live', SITE, { status: 'published' })
    const res = await s.api.request(folioEvents, { params: { id } })
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
    await s.api.send(updateFolio, { params: { id }, body: { files: { ...SITE, 'index.html': '<h1>v2</h1>' } } })
    await waitFor('event: version')
    await waitFor('"latestVersionId":"v2"')
    await s.api.send(createComment, { params: { id }, body: { text: 'live!', versionId: 'v2', filename: 'index.html' } })
    await waitFor('live!')
    await s.api.send(react, { params: { id }, body: { increments: { '🔥': 1 } } })
    await waitFor('event: reactions')
    await s.api.send(deleteFolio, { params: { id } })
    await waitFor('event: deleted')
    await reader.cancel()
  })

  it('ends a viewer’s stream, sending nothing more, when one PUT makes the folio private and adds files', async () => {
    const id = await s.api.create('Turns private', SITE, { status: 'published' })
    const res = await s.api.request(folioEvents, { params: { id } })
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
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'k', files: { ...SITE, 'secret-plan.html': 'x' } } })
    await s.api.send(createComment, { params: { id }, body: { text: 'owner only', versionId: 'v2', filename: 'index.html' } })
    await ended
    expect(text).toContain(': folio live updates')
    expect(text).not.toContain('secret-plan')
    expect(text).not.toContain('owner only')
  })

  it('refuses a private folio’s stream without the key', async () => {
    const id = await privateFolio()
    expect((await s.api.send(folioEvents, { params: { id } })).status).toBe(403)
  })
})
