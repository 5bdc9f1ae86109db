import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { client } from './helpers/http.js'
import { startTestServer, type TestServer } from './helpers/server.js'

describe('answers served from memory are never stale', () => {
  let ts: TestServer
  let api: ReturnType<typeof client>
  beforeAll(async () => {
    ts = await startTestServer()
    api = client(ts.url)
  })
  afterAll(() => ts.close())

  it('shows every acknowledged change on the very next GET', async () => {
    const id = await api.create('Hot', { 'index.html': 'v1' })
    for (let i = 0; i < 30; i++) {
      // Warm: the second GET of an unchanged folio is the one served in front of the router.
      await api.get(`/api/files/${id}`)
      await api.get(`/api/files/${id}`)
      const change = i % 3 === 0 ? { files: { 'index.html': `edit ${i}` } } : i % 3 === 1 ? { title: `Title ${i}` } : { reactions: { '🔥': i } }
      expect((await api.put(`/api/files/${id}`, change)).status).toBe(200)
      const after = (await api.get(`/api/files/${id}`)).body
      if (i % 3 === 0) expect(after.versions.at(-1).files['index.html']).toBe(`edit ${i}`)
      if (i % 3 === 1) expect(after.title).toBe(`Title ${i}`)
      if (i % 3 === 2) expect(after.reactions['🔥']).toBe(i)
    }
  })

  it('keeps query variants apart, answers HEAD, and forgets a deleted folio', async () => {
    const id = await api.create('Variants', { 'index.html': 'one' })
    for (let i = 0; i < 2; i++) {
      expect((await api.get(`/api/files/${id}?files=none`)).body.versions[0].fileList).toEqual(['index.html'])
      expect((await api.get(`/api/files/${id}`)).body.versions[0].files).toEqual({ 'index.html': 'one' })
    }
    const head = await fetch(`${ts.url}/api/files/${id}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toContain('application/json')
    expect(await head.text()).toBe('')
    await api.delete(`/api/files/${id}`)
    expect((await api.get(`/api/files/${id}`)).status).toBe(404)
    expect((await api.get(`/api/files/${id}?files=none`)).status).toBe(404)
  })
})

describe('answers served from memory keep their credential check', () => {
  const KEY = `folio_live_${'cd34'.repeat(12)}`
  let ts: TestServer
  beforeAll(async () => {
    ts = await startTestServer({ mode: 'cloud', config: { apiKey: KEY } })
  })
  afterAll(() => ts.close())

  it('refuses a warm folio to a caller without the key', async () => {
    const api = client(ts.url)
    const auth = { authorization: `Bearer ${KEY}` }
    const id = (await api.post('/api/files', { title: 'Guarded' }, auth)).body.project.id
    expect((await api.get(`/api/files/${id}`, auth)).status).toBe(200)
    expect((await api.get(`/api/files/${id}`, auth)).status).toBe(200)
    const anonymous = await api.get(`/api/files/${id}`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.error).toBe('Unauthorized')
    expect((await api.get(`/api/files/${id}`, { authorization: 'Bearer wrong' })).status).toBe(401)
    const head = await fetch(`${ts.url}/api/files/${id}`, { method: 'HEAD' })
    expect(head.status).toBe(401)
  })
})
