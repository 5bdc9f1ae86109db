import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { client } from './helpers/http.js'
import { startTestServer, type TestServer } from './helpers/server.js'

describe('/api/keys in OSS', () => {
  let ts: TestServer
  beforeAll(async () => {
    ts = await startTestServer()
  })
  afterAll(() => ts.close())

  it('shows, rotates and revokes the one key; an old key stops working at once for remote callers', async () => {
    const api = client(ts.url)
    // Remote: what arrives through the tunnel (its own loopback listener).
    const remote = client(ts.server.tunnelTarget)
    const asRemote = (key?: string) => remote.get('/api/files', key ? { authorization: `Bearer ${key}` } : {})

    // The server made its key on first start: remote callers can be given one at once.
    const made = (await api.get('/api/keys')).body.apiKey
    expect(made).toMatch(/^folio_live_[0-9a-f]{48}$/)
    expect((await asRemote()).status).toBe(401)
    expect((await asRemote(made)).status).toBe(200)

    const first = (await api.post('/api/keys')).body.apiKey
    expect(first).not.toBe(made)
    expect((await asRemote(made)).status).toBe(401)
    expect(first).toMatch(/^folio_live_[0-9a-f]{48}$/)
    expect((await api.get('/api/keys')).body).toEqual({ apiKey: first })
    expect((await asRemote(first)).status).toBe(200)

    const second = (await api.post('/api/keys')).body.apiKey
    expect(second).not.toBe(first)
    expect((await asRemote(first)).status).toBe(401)
    expect((await asRemote(second)).status).toBe(200)

    expect((await api.delete('/api/keys')).body).toEqual({ success: true })
    expect((await asRemote(second)).status).toBe(401)
    const none = await api.get('/api/keys')
    expect(none.status).toBe(404)
    expect(none.body.error).toBe('No API key')
  })

  it('stays revoked across a restart: only the first start makes a key', async () => {
    const dataDir = ts.dataDir
    await ts.stop()
    ts = await startTestServer({ dataDir })
    expect((await client(ts.url).get('/api/keys')).status).toBe(404)
  })

  it('keeps the key across a restart', async () => {
    const api = client(ts.url)
    const key = (await api.post('/api/keys')).body.apiKey
    const dataDir = ts.dataDir
    await ts.stop()
    ts = await startTestServer({ dataDir })
    expect((await client(ts.url).get('/api/keys')).body.apiKey).toBe(key)
    expect((await client(ts.server.tunnelTarget).get('/api/files', { authorization: `Bearer ${key}` })).status).toBe(200)
  })

  it('refuses key management to remote callers without the key', async () => {
    const remote = client(ts.server.tunnelTarget)
    expect((await remote.get('/api/keys')).status).toBe(401)
    expect((await remote.post('/api/keys')).status).toBe(401)
    expect((await remote.delete('/api/keys')).status).toBe(401)
  })
})

describe('/api/keys with FOLIO_API_KEY', () => {
  const KEY = `folio_live_${'12ab'.repeat(12)}`
  let ts: TestServer
  beforeAll(async () => {
    ts = await startTestServer({ mode: 'cloud', config: { apiKey: KEY } })
  })
  afterAll(() => ts.close())

  it('shows the environment key and refuses to rotate or revoke it', async () => {
    const api = client(ts.url)
    const auth = { authorization: `Bearer ${KEY}` }
    expect((await api.get('/api/keys', auth)).body).toEqual({ apiKey: KEY })
    expect((await api.post('/api/keys', undefined, auth)).body.error).toBe('KEY_FROM_ENVIRONMENT')
    expect((await api.delete('/api/keys', auth)).status).toBe(409)
    expect((await api.get('/api/keys')).status).toBe(401)
  })
})
