import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { client } from './helpers/http.js'
import { tinyPng } from './helpers/images.js'
import { type LoopbackTunnelServer, startLoopbackTunnelServer } from './helpers/localtunnel-server.js'
import { startTestServer, type TestServer } from './helpers/server.js'

let relay: LoopbackTunnelServer
let ts: TestServer
let api: ReturnType<typeof client>

beforeAll(async () => {
  relay = await startLoopbackTunnelServer()
  ts = await startTestServer({ config: { tunnel: { host: relay.url, startTimeoutMs: 5_000 } } })
  api = client(ts.url)
})
afterAll(async () => {
  await ts?.close()
  await relay?.close()
})

describe('/api/tunnel with a real localtunnel client and a loopback tunnel server', () => {
  it('starts, serves share pages of published folios through the public URL, guards the rest, and stops', async () => {
    expect((await api.get('/api/tunnel')).body).toMatchObject({ active: false, url: null, customTunnelUrl: '', state: 'stopped' })
    const id = await api.create('Public deck', { 'index.html': '<h1>Through the tunnel</h1>' }, { status: 'published' })
    const draft = await api.create('Draft deck', { 'index.html': '<h1>Not yet</h1>' })

    const started = await api.post('/api/tunnel', { action: 'start' })
    expect(started.status).toBe(200)
    const url: string = started.body.url
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
    expect((await api.get('/api/tunnel')).body).toMatchObject({ active: true, url, state: 'connected' })
    const again = await api.post('/api/tunnel', { action: 'start' })
    expect(again.body).toMatchObject({ success: true, url, message: expect.stringContaining('already running') })

    const remote = client(url)
    const share = await fetch(`${url}/share/${id}`)
    expect(share.status).toBe(200)
    expect(await share.text()).toContain('Public deck')
    expect(await (await fetch(`${url}/v/${id}/-/index.html`)).text()).toContain('Through the tunnel')
    expect((await remote.get(`/api/files/${id}/public`)).status).toBe(200)
    // Remote callers are not the local owner: protected endpoints need the key, even in OSS.
    for (const reply of [await remote.get('/api/files'), await remote.get(`/api/files/${id}`), await remote.post('/api/files', { title: 'x' }), await remote.get('/api/keys'), await remote.post('/api/tunnel', { action: 'stop' })]) {
      expect(reply.status).toBe(401)
      expect(reply.body.error).toBe('Unauthorized')
    }
    // Drafts stay with the owner; its preview needs the owner too.
    expect((await fetch(`${url}/v/${draft}/-/index.html`)).status).toBe(404)
    expect(await (await fetch(`${url}/share/${draft}?preview=1`)).text()).toContain('"view":"draft"')
    // With the workspace key, a remote caller is the owner, and binary uploads arrive intact.
    const key = (await api.post('/api/keys')).body.apiKey
    expect((await remote.get('/api/files', { authorization: `Bearer ${key}` })).status).toBe(200)
    const png = tinyPng([1, 255, 128])
    const upload = await fetch(`${url}/api/files/${id}/upload`, {
      method: 'POST',
      body: new Uint8Array(png),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'x-file-path': 'img/through.png' },
    })
    expect(upload.status).toBe(200)
    const back = await fetch(`${url}/v/${id}/-/img/through.png`)
    expect(Buffer.from(await back.arrayBuffer()).equals(png)).toBe(true)

    expect((await api.post('/api/tunnel', { action: 'stop' })).body).toEqual({ success: true })
    expect((await api.get('/api/tunnel')).body).toMatchObject({ active: false, url: null, state: 'stopped' })
    await expect(fetch(`${url}/share/${id}`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status)).rejects.toThrow()
  })

  it('saves a display URL, refuses unknown actions, and reports a failed start', async () => {
    expect((await api.post('/api/tunnel', { action: 'save_custom', customTunnelUrl: 'https://decks.example.com' })).body).toEqual({ success: true, customTunnelUrl: 'https://decks.example.com' })
    expect((await api.get('/api/tunnel')).body.customTunnelUrl).toBe('https://decks.example.com')
    expect((await api.post('/api/tunnel', { action: 'launch' })).body).toEqual({ error: 'Invalid action', message: expect.any(String) })
    expect((await api.post('/api/tunnel', { action: 'save_custom', customTunnelUrl: 'javascript:alert(1)' })).status).toBe(400)
  })
})

describe('/api/tunnel elsewhere', () => {
  it('is refused in Cloud mode', async () => {
    const cloud = await startTestServer({ mode: 'cloud', config: { apiKey: `folio_live_${'0f'.repeat(24)}` } })
    try {
      const reply = await client(cloud.url).get('/api/tunnel', { authorization: `Bearer folio_live_${'0f'.repeat(24)}` })
      expect(reply.status).toBe(403)
      expect(reply.body.error).toBe('Tunnel API only available in OSS mode')
    } finally {
      await cloud.close()
    }
  })

  it('answers 500 with the reason when the tunnel server cannot be reached', async () => {
    const lonely = await startTestServer({ config: { tunnel: { host: 'http://127.0.0.1:9', startTimeoutMs: 1500 } } })
    try {
      const reply = await client(lonely.url).post('/api/tunnel', { action: 'start' })
      expect(reply.status).toBe(500)
      expect(reply.body.error).toBe('Tunnel failed')
      expect(reply.body.message).toContain('127.0.0.1:9')
      expect((await client(lonely.url).get('/api/tunnel')).body).toMatchObject({ active: false, state: 'stopped', lastError: expect.any(String) })
    } finally {
      await lonely.close()
    }
  })
})
