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
