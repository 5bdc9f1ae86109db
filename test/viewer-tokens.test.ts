import { describe, expect, it, vi } from 'vitest'
import { createComment, listComments, react } from '../src/api/engagement.js'
import { listFolios, updateFolio } from '../src/api/files.js'
import { folioEvents, getPublicFolio, verifyAccessKey } from '../src/api/sharing.js'
import { rawFile, renewFrame, sharePage } from '../src/api/viewer.js'
import { type Reply, testApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

/**
 * The viewer frame loads a private folio's files from /v/{id}/{token}/…: the token is in a URL any
 * script the folio includes can read. So it lasts seconds here (minutes by default), opens that
 * folio's files and nothing else, and the share page renews it.
 */
const s = useServer({ config: { frameTokenSeconds: 1 } })
/** A viewer through the tunnel (this machine's programs are the owner in OSS: comments are open to them). */
const viewer = () => testApi(s.ts.server.tunnelTarget)

const SITE = { 'index.html': '<h1>Plans</h1><a href="two.html">next</a>', 'two.html': '<h2>Two</h2>' }

const cookieOf = (reply: Reply) => reply.headers.get('set-cookie')?.split(';')[0] ?? ''

async function bootOf(id: string, input: { query?: Record<string, string>; headers?: Record<string, string> } = {}) {
  const page = await s.api.send(sharePage, { params: { id }, ...input })
  return JSON.parse(/<script id="folio-boot" type="application\/json">(.*?)<\/script>/s.exec(page.text)![1]!)
}

const tokenOf = (frameBase: string) => frameBase.split('/')[3]!

async function privateFolio() {
  const id = await s.api.create('Private plans', SITE, { status: 'published' })
  await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'k3y' } })
  const cookie = cookieOf(await s.api.send(verifyAccessKey, { params: { id }, body: { accessKey: 'k3y' } }))
  const boot = await bootOf(id, { headers: { cookie } })
  return { id, cookie, boot, token: tokenOf(boot.frameBase) }
}

const raw = (id: string, access: string, path = 'index.html', headers: Record<string, string> = {}) =>
  s.api.send(rawFile, { params: { id, access, path }, headers })
/** Runs `fn` with the clock (Date only; timers stay real) moved on by `ms`: a lifetime passes without waiting it out. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true })
  vi.setSystemTime(Date.now() + ms)
  try {
    return await fn()
  } finally {
    vi.useRealTimers()
  }
}

describe('frame tokens', () => {
  it('open the folio’s files, and are no access cookie and no key for any API call', async () => {
    const { id, cookie, boot, token } = await privateFolio()
    expect(boot.view).toBe('content')
    expect(boot.frameExpiresAt).toBeGreaterThan(Date.now())
    expect(boot.frameExpiresAt).toBeLessThanOrEqual(Date.now() + 1_000)
    expect((await raw(id, token)).status).toBe(200)
    // The cookie itself is no frame token either.
    expect((await raw(id, cookie.split('=')[1]!)).status).toBe(404)

    const asCookie = { cookie: `folio_access_${id}=${token}` }
    for (const reply of [
      await viewer().send(listComments, { params: { id }, headers: asCookie }),
      await viewer().send(createComment, { params: { id }, headers: asCookie, body: { text: 'x', versionId: 'v1', filename: 'index.html' } }),
      await viewer().send(react, { params: { id }, headers: asCookie, body: { increments: { '👍': 1 } } }),
      await viewer().send(renewFrame, { params: { id }, headers: asCookie }),
    ]) {
      expect(reply.status).toBe(403)
      expect(reply.body.error).toBe('Access key required')
    }
    expect((await s.api.request(folioEvents, { params: { id }, headers: asCookie })).status).toBe(403)
    expect((await s.api.send(getPublicFolio, { params: { id }, headers: asCookie })).body.activeFileList).toEqual([])
    expect((await bootOf(id, { headers: asCookie })).view).toBe('gate')
    const bearer = await s.api.send(listFolios, { headers: { authorization: `Bearer ${token}` } })
    expect(bearer.status).toBe(401)
  })

  it('of an owner preview let their holder view that folio’s files, nothing more', async () => {
    const draft = await s.api.create('Draft plans', SITE)
    const boot = await bootOf(draft, { query: { preview: '1' } })
    expect(boot.preview).toBe(true)
    const token = tokenOf(boot.frameBase)
    expect((await raw(draft, token)).status).toBe(200)
    const other = await s.api.create('Other draft', SITE)
    expect((await raw(other, token)).status).toBe(404)
    const asCookie = { cookie: `folio_access_${draft}=${token}` }
    // To a viewer holding it as a cookie the draft is not there at all.
    expect((await viewer().send(listComments, { params: { id: draft }, headers: asCookie })).status).toBe(404)
    expect(
      (await viewer().send(createComment, { params: { id: draft }, headers: asCookie, body: { text: 'x', versionId: 'v1', filename: 'index.html' } })).status,
    ).toBe(404)
    const page = await viewer().send(sharePage, { params: { id: draft }, headers: asCookie })
    expect([page.status, page.text]).toEqual([404, expect.stringContaining('"view":"missing"')])
  })

  it('run out: files are refused, and a page the frame navigates to asks the share page for a fresh token', async () => {
    const { id, cookie, token } = await privateFolio()
    // Past the token's 1 s.
    await later(1_100, async () => {
      const file = await raw(id, token, 'two.html')
      expect(file.status).toBe(404)
      expect(file.body).toEqual({ error: 'Not found', message: expect.stringContaining('expired') })

      const page = await raw(id, token, 'two.html', { 'sec-fetch-dest': 'iframe', accept: 'text/html' })
      expect(page.status).toBe(404)
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(page.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts/)
      expect(page.headers.get('cache-control')).toBe('no-store')
      expect(page.text).toContain(`{ source: 'folio-bridge', type: 'expired', path: "two.html" }`)
      expect(page.text).not.toContain(token)
      // Only a token that was right gets that page: a forged one is just not found.
      const forged = await raw(id, `${token.slice(0, -4)}AAAA`, 'two.html', { 'sec-fetch-dest': 'iframe' })
      expect(forged.headers.get('content-type')).toContain('application/json')

      // The share page renews it with its cookie.
      const renewed = await s.api.send(renewFrame, { params: { id }, headers: { cookie } })
      expect(renewed.status).toBe(200)
      expect(renewed.headers.get('cache-control')).toBe('no-store')
      expect(renewed.body.frameBase).toMatch(new RegExp(`^/v/${id}/[^-/][^/]+/$`))
      expect(renewed.body.expiresAt).toBeGreaterThan(Date.now())
      expect((await raw(id, tokenOf(renewed.body.frameBase), 'two.html')).text).toContain('<h2>Two</h2>')
    })
  })

  it('are only for those who may view: renewal without the cookie is refused; a public folio needs none', async () => {
    const { id } = await privateFolio()
    expect((await s.api.send(renewFrame, { params: { id } })).status).toBe(403)
    expect((await s.api.send(renewFrame, { params: { id: 'nope12345678' } })).status).toBe(404)
    const open = await s.api.create('Open', SITE, { status: 'published' })
    expect((await s.api.send(renewFrame, { params: { id: open } })).body).toEqual({ frameBase: `/v/${open}/-@v1/`, expiresAt: null })
  })
})
