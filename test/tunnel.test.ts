import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFolio, getFolio, listFolios } from '../src/api/files.js'
import { getKey, rotateKey } from '../src/api/keys.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { controlTunnel, getTunnel } from '../src/api/tunnel.js'
import { uploadFile } from '../src/api/uploads.js'
import { rawFile, sharePage } from '../src/api/viewer.js'
import { LogLevels } from '../src/log/logger.js'
import { testApi } from './helpers/api.js'
import { tinyPng } from './helpers/images.js'
import { type LoopbackTunnelServer, startLoopbackTunnelServer } from './helpers/localtunnel-server.js'
import { startTestServer } from './helpers/server.js'
import { createWorkspace } from './helpers/workspaces.js'
import { closeClean, expectLogged, useServer } from './helpers/use-server.js'

let relay: LoopbackTunnelServer
beforeAll(async () => {
  relay = await startLoopbackTunnelServer()
})
// Registered before useServer's: after-hooks run last first, so the server closes before the relay.
afterAll(() => relay?.close())
// At info, not warn: "Tunnel connected" is news, and the test checks the server says it.
const s = useServer(() => ({ config: { tunnel: { host: relay.url, startTimeoutMs: 5_000 } }, logLevel: LogLevels.info }))

describe('/api/tunnel with a real localtunnel client and a loopback tunnel server', () => {
  it('starts, serves share pages of published folios through the public URL, guards the rest, and stops', async () => {
    expect((await s.api.send(getTunnel)).body).toMatchObject({ active: false, url: null, customTunnelUrl: '', state: 'stopped' })
    const id = await s.api.create('Public deck', { 'index.html': '<h1>Through the tunnel</h1>' }, { status: 'published' })
    const draft = await s.api.create('Draft deck', { 'index.html': '<h1>Not yet</h1>' })

    const started = await s.api.send(controlTunnel, { body: { action: 'start' } })
    expect(started.status).toBe(200)
    const url: string = started.body.url
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
    expect((await s.api.send(getTunnel)).body).toMatchObject({ active: true, url, state: 'connected' })
    const again = await s.api.send(controlTunnel, { body: { action: 'start' } })
    expect(again.body).toMatchObject({ success: true, url, message: expect.stringContaining('already running') })

    const remote = testApi(url)
    const share = await remote.send(sharePage, { params: { id } })
    expect(share.status).toBe(200)
    expect(share.text).toContain('Public deck')
    expect((await remote.send(rawFile, { params: { id, access: '-', path: 'index.html' } })).text).toContain('Through the tunnel')
    expect((await remote.send(getPublicFolio, { params: { id } })).status).toBe(200)
    // Remote callers are not the local owner: protected endpoints need the key, even in OSS.
    for (const reply of [
      await remote.send(listFolios),
      await remote.send(getFolio, { params: { id } }),
      await remote.send(createFolio, { body: { title: 'x' } }),
      await remote.send(getKey),
      await remote.send(controlTunnel, { body: { action: 'stop' } }),
    ]) {
      expect(reply.status).toBe(401)
      expect(reply.body.error).toBe('Unauthorized')
    }
    // Drafts stay with the owner (to anyone else they are not there); its preview needs the owner too.
    expect((await remote.send(rawFile, { params: { id: draft, access: '-', path: 'index.html' } })).status).toBe(404)
    expect((await remote.send(sharePage, { params: { id: draft }, query: { preview: '1' } })).text).toContain('"view":"missing"')
    // With the workspace key, a remote caller is the owner, and binary uploads arrive intact.
    const key = (await s.api.send(rotateKey)).body.apiKey
    expect((await remote.send(listFolios, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
    const png = tinyPng([1, 255, 128])
    const upload = await remote.send(uploadFile, {
      params: { id },
      raw: new Uint8Array(png),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'x-file-path': 'img/through.png' },
    })
    expect(upload.status).toBe(200)
    const back = await remote.request(rawFile, { params: { id, access: '-', path: 'img/through.png' } })
    expect(Buffer.from(await back.arrayBuffer()).equals(png)).toBe(true)

    expect((await s.api.send(controlTunnel, { body: { action: 'stop' } })).body).toEqual({ success: true })
    expect((await s.api.send(getTunnel)).body).toMatchObject({ active: false, url: null, state: 'stopped' })
    await expect(fetch(remote.url(sharePage, { id }), { signal: AbortSignal.timeout(2000) }).then((r) => r.status)).rejects.toThrow()
    expectLogged(s.ts, [`[tunnel] Tunnel connected: ${url}`])
  })

  it('saves a display URL, refuses unknown actions, and reports a failed start', async () => {
    expect((await s.api.send(controlTunnel, { body: { action: 'save_custom', customTunnelUrl: 'https://decks.example.com' } })).body).toEqual({
      success: true,
      customTunnelUrl: 'https://decks.example.com',
    })
    expect((await s.api.send(getTunnel)).body.customTunnelUrl).toBe('https://decks.example.com')
    expect((await s.api.send(controlTunnel, { body: { action: 'launch' } })).body).toEqual({ error: 'Invalid action', message: expect.any(String) })
    expect((await s.api.send(controlTunnel, { body: { action: 'save_custom', customTunnelUrl: 'javascript:alert(1)' } })).status).toBe(400)
  })
})

describe('/api/tunnel elsewhere', () => {
  it('is refused in Cloud mode', async () => {
    const cloud = await startTestServer({ mode: 'cloud' })
    try {
      const { auth } = await createWorkspace(cloud)
      const reply = await testApi(cloud.url).send(getTunnel, { headers: auth })
      expect(reply.status).toBe(403)
      expect(reply.body.error).toBe('Tunnel API only available in OSS mode')
    } finally {
      await closeClean(cloud)
    }
  })

  it('answers 500 with the reason when the tunnel server cannot be reached', async () => {
    const lonely = await startTestServer({ config: { tunnel: { host: 'http://127.0.0.1:9', startTimeoutMs: 1500 } } })
    try {
      const reply = await testApi(lonely.url).send(controlTunnel, { body: { action: 'start' } })
      expect(reply.status).toBe(500)
      expect(reply.body.error).toBe('Tunnel failed')
      expect(reply.body.message).toContain('127.0.0.1:9')
      expect((await testApi(lonely.url).send(getTunnel)).body).toMatchObject({ active: false, state: 'stopped', lastError: expect.any(String) })
      expectLogged(lonely, ['folio: [tunnel] Tunnel failed to start: Could not reach the tunnel server http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9'])
    } finally {
      await closeClean(lonely)
    }
  })
})
