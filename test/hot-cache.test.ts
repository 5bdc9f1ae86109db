import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createFolio, deleteFolio, getFolio, updateFolio } from '../src/api/files.js'
import type { Auth } from '../src/server/auth/auth.js'
import { HotCache } from '../src/server/hot-cache.js'
import { RateLimiter, type RateLimitState } from '../src/server/limits/rate-limit.js'
import { clientOf } from '../src/server/http/remote.js'
import type { FolioStore } from '../src/store/index.js'
import { useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'

describe('answers served from memory are never stale', () => {
  const s = useServer()

  it('shows every acknowledged change on the very next GET', async () => {
    const id = await s.api.create('Hot', { 'index.html': 'v1' })
    for (let i = 0; i < 30; i++) {
      // Warm: the second GET of an unchanged folio is the one served in front of the router.
      await s.api.send(getFolio, { params: { id } })
      await s.api.send(getFolio, { params: { id } })
      const change = i % 3 === 0 ? { files: { 'index.html': `edit ${i}` } } : i % 3 === 1 ? { title: `Title ${i}` } : { reactions: { '🔥': i } }
      expect((await s.api.send(updateFolio, { params: { id }, body: change })).status).toBe(200)
      const after = (await s.api.send(getFolio, { params: { id } })).body
      if (i % 3 === 0) expect(after.versions.at(-1).files['index.html']).toBe(`edit ${i}`)
      if (i % 3 === 1) expect(after.title).toBe(`Title ${i}`)
      if (i % 3 === 2) expect(after.reactions['🔥']).toBe(i)
    }
  })

  it('keeps query variants apart, answers HEAD, and forgets a deleted folio', async () => {
    const id = await s.api.create('Variants', { 'index.html': 'one' })
    for (let i = 0; i < 2; i++) {
      expect((await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.versions[0].fileList).toEqual(['index.html'])
      expect((await s.api.send(getFolio, { params: { id } })).body.versions[0].files).toEqual({ 'index.html': 'one' })
    }
    const head = await fetch(s.api.url(getFolio, { id }), { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toContain('application/json')
    expect(await head.text()).toBe('')
    await s.api.send(deleteFolio, { params: { id } })
    expect((await s.api.send(getFolio, { params: { id } })).status).toBe(404)
    expect((await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).status).toBe(404)
  })
})

describe('answers served from memory keep their credential check', () => {
  const s = useCloudServer()

  it('refuses a warm folio to a caller without the key', async () => {
    const api = s.anonymous
    const auth = s.workspace.auth
    const id = (await api.send(createFolio, { body: { title: 'Guarded' }, headers: auth })).body.project.id
    expect((await api.send(getFolio, { params: { id }, headers: auth })).status).toBe(200)
    expect((await api.send(getFolio, { params: { id }, headers: auth })).status).toBe(200)
    const anonymous = await api.send(getFolio, { params: { id } })
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.error).toBe('Unauthorized')
    expect((await api.send(getFolio, { params: { id }, headers: { authorization: 'Bearer wrong' } })).status).toBe(401)
    const head = await fetch(api.url(getFolio, { id }), { method: 'HEAD' })
    expect(head.status).toBe(401)
  })
})

describe('public answers served from memory', () => {
  it('count in the same window as the router, and carry its X-RateLimit-*', async () => {
    const limiter = new RateLimiter({ comments: 9, reactions: 9, analytics: 9, public: 3, events: 9, auth: 9 })
    // The parts of the store and auth the hot cache listens to and asks: nothing changes, anyone may read.
    const quiet = { onChange: () => () => {} }
    const store = { folios: quiet, engagement: quiet, views: { lists: quiet } } as unknown as FolioStore
    const auth = { resolveRequest: () => undefined } as unknown as Auth
    const hot = new HotCache(store, auth, limiter, (req) => clientOf(req, false))
    const body = JSON.stringify({ id: 'f1', title: 'Public' })
    hot.put('/api/files/f1/public', {
      body,
      contentType: 'application/json; charset=utf-8',
      access: 'public',
      folioId: 'f1',
      rateLimit: 'public',
      generation: hot.generation('f1'),
    })
    // What the router would do: count the request itself (the first one, which put the answer there).
    const server = createServer((req, res) => {
      if (hot.serve(req, res)) return
      const state = limiter.hit('public', clientOf(req, false)) as RateLimitState
      res.writeHead(state.allowed ? 200 : 429, { 'x-answered-by': 'router', 'x-ratelimit-remaining': String(state.remaining) })
      res.end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/files/f1/public`
      const fromRouter = await fetch(url.replace('f1', 'f2'))
      expect(fromRouter.headers.get('x-ratelimit-remaining')).toBe('2')
      const answers = [await fetch(url), await fetch(url, { method: 'HEAD' })]
      for (const answer of answers) {
        expect(answer.status).toBe(200)
        expect(answer.headers.get('x-answered-by')).toBeNull()
        expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8')
        expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(body)))
        expect(answer.headers.get('x-ratelimit-limit')).toBe('3')
        const reset = Number(answer.headers.get('x-ratelimit-reset'))
        expect(reset).toBeGreaterThan(Date.now() / 1000)
        expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61)
      }
      expect(await answers[0]!.text()).toBe(body)
      expect(await answers[1]!.text()).toBe('')
      expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0'])
      // Past the limit the router answers (the 429), and the window is the same one.
      const refused = await fetch(url)
      expect(refused.status).toBe(429)
      expect(refused.headers.get('x-answered-by')).toBe('router')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
