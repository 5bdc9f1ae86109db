import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { client } from './helpers/http.js'
import { startTestServer, type TestServer } from './helpers/server.js'

const KEY = `folio_live_${'ab12'.repeat(12)}`

describe('OSS mode (the default)', () => {
  let ts: TestServer
  beforeAll(async () => {
    ts = await startTestServer({ config: { apiKey: KEY } })
  })
  afterAll(() => ts.close())

  it('leaves the files API open, with or without a key (spec: Authentication 8)', async () => {
    const api = client(ts.url)
    expect((await api.get('/api/files')).status).toBe(200)
    expect((await api.post('/api/files', { title: 'Open' })).status).toBe(201)
    expect((await api.get('/api/files', { authorization: `Bearer ${KEY}` })).status).toBe(200)
  })

  it('keeps the open API from pages of other origins and from folios in the viewer sandbox', async () => {
    const api = client(ts.url)
    const id = (await api.post('/api/files', { title: 'Mine' })).body.project.id
    const host = new URL(ts.url).host
    // Warm the hot cache: the answer in front of the router must refuse them too.
    await api.get(`/api/files/${id}`)
    await api.get(`/api/files/${id}`)
    for (const origin of ['null', 'http://evil.example', `http://${host}.evil.example`]) {
      for (const reply of [
        await api.get('/api/files', { origin }),
        await api.get(`/api/files/${id}`, { origin }),
        await api.post('/api/files', { title: 'pwned' }, { origin }),
        await api.put(`/api/files/${id}`, { title: 'pwned' }, { origin }),
        await api.delete(`/api/files/${id}`, { origin }),
      ]) {
        expect(reply.status).toBe(401)
        expect(reply.body.error).toBe('Unauthorized')
      }
    }
    expect((await api.get(`/api/files/${id}`, { origin: `http://${host}` })).status).toBe(200)
    expect((await api.get(`/api/files/${id}`, { origin: 'null', authorization: `Bearer ${KEY}` })).status).toBe(200)
    expect((await api.get('/api/files')).body.some((f: any) => f.title === 'pwned')).toBe(false)
    // Public viewer endpoints stay public.
    expect((await api.get(`/api/files/${id}/public`, { origin: 'null' })).status).toBe(200)
  })
})

describe('OSS mode: the open API answers only its own host names (DNS rebinding)', () => {
  let ts: TestServer
  beforeAll(async () => {
    ts = await startTestServer({ config: { apiKey: KEY, allowedHosts: ['folio.lan'] } })
  })
  afterAll(() => ts.close())

  /** node:http, because fetch does not let a caller choose the Host header. */
  const withHost = (method: string, path: string, host: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      const url = new URL(ts.url)
      const req = request({ host: url.hostname, port: url.port, method, path, headers: { host, ...headers } }, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
      req.on('error', reject)
      req.end()
    })

  it('refuses a page whose name was re-pointed at this machine, unless it sends the key', async () => {
    const port = new URL(ts.url).port
    const id = (await client(ts.url).post('/api/files', { title: 'Mine' })).body.project.id
    for (const host of [`attacker.example:${port}`, 'attacker.example', `evil.localhost.example:${port}`]) {
      expect(await withHost('GET', '/api/files', host)).toBe(401)
      expect(await withHost('GET', `/api/files/${id}`, host, { origin: `http://${host}` })).toBe(401)
      expect(await withHost('DELETE', `/api/files/${id}`, host, { origin: `http://${host}` })).toBe(401)
      expect(await withHost('GET', '/api/files', host, { authorization: `Bearer ${KEY}` })).toBe(200)
      // Viewers reach published folios whatever name they used.
      expect(await withHost('GET', `/api/files/${id}/public`, host)).toBe(200)
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `app.localhost:${port}`, `192.168.1.20:${port}`, `FOLIO.lan:${port}`]) {
      expect(await withHost('GET', '/api/files', host)).toBe(200)
    }
    expect((await client(ts.url).get(`/api/files/${id}`)).status).toBe(200)
  })

  it('answers 401 to a wrong key instead of ignoring it (spec: Authentication 9)', async () => {
    const api = client(ts.url)
    const reply = await api.get('/api/files', { authorization: `Bearer folio_live_${'00'.repeat(24)}` })
    expect(reply.status).toBe(401)
    expect(reply.body.error).toBe('Unauthorized')
    // Public endpoints ignore a credential they do not need.
    const id = (await api.post('/api/files', { title: 'Open', status: 'published' })).body.project.id
    expect((await api.get(`/api/files/${id}/public`, { authorization: 'Bearer wrong' })).status).toBe(200)
  })
})

describe('Cloud mode', () => {
  let ts: TestServer
  beforeAll(async () => {
    ts = await startTestServer({ mode: 'cloud', config: { apiKey: KEY } })
  })
  afterAll(() => ts.close())

  it.each([
    ['no header', {}],
    ['a wrong key', { authorization: `Bearer folio_live_${'00'.repeat(24)}` }],
    ['a key of another length', { authorization: 'Bearer short' }],
    ['another scheme', { authorization: `Basic ${KEY}` }],
  ])('answers 401 Unauthorized with %s', async (_name, headers) => {
    const reply = await client(ts.url).get('/api/files', headers as Record<string, string>)
    expect(reply.status).toBe(401)
    expect(reply.body.error).toBe('Unauthorized')
    expect(reply.headers.get('www-authenticate')).toBe('Bearer')
  })

  it('accepts the workspace key, and keeps public endpoints public', async () => {
    const api = client(ts.url)
    const auth = { authorization: `Bearer ${KEY}` }
    const created = await api.post('/api/files', { title: 'Cloud', isPrivate: true, accessKey: 'pw' }, auth)
    expect(created.status).toBe(201)
    expect(created.body.project.isPrivate).toBe(true)
    expect((await api.get(`/api/files/${created.body.project.id}`, auth)).status).toBe(200)
    expect((await api.get('/api/openapi')).status).toBe(200)
  })
})
