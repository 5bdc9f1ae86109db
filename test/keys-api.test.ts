import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listFolios } from '../src/api/files.js'
import { getKey, revokeKey, rotateKey } from '../src/api/keys.js'
import { testApi } from './helpers/api.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean, expectCleanLog, useServer } from './helpers/use-server.js'

describe('/api/keys in OSS', () => {
  // Not useServer: one test restarts the server on its data dir.
  let ts: TestServer
  beforeAll(async () => {
    ts = await startTestServer()
  })
  afterAll(() => closeClean(ts))

  it('shows, rotates and revokes the one key; an old key stops working at once for remote callers', async () => {
    const api = testApi(ts.url)
    // Remote: what arrives through the tunnel (its own loopback listener).
    const remote = testApi(ts.server.tunnelTarget)
    const asRemote = (key?: string) => remote.send(listFolios, { headers: key ? { authorization: `Bearer ${key}` } : {} })

    // The server made its key on first start: remote callers can be given one at once.
    const made = (await api.send(getKey)).body.apiKey
    expect(made).toMatch(/^folio_live_[0-9a-f]{48}$/)
    expect((await asRemote()).status).toBe(401)
    expect((await asRemote(made)).status).toBe(200)

    const first = (await api.send(rotateKey)).body.apiKey
    expect(first).not.toBe(made)
    expect((await asRemote(made)).status).toBe(401)
    expect(first).toMatch(/^folio_live_[0-9a-f]{48}$/)
    expect((await api.send(getKey)).body).toEqual({ apiKey: first })
    expect((await asRemote(first)).status).toBe(200)

    const second = (await api.send(rotateKey)).body.apiKey
    expect(second).not.toBe(first)
    expect((await asRemote(first)).status).toBe(401)
    expect((await asRemote(second)).status).toBe(200)

    expect((await api.send(revokeKey)).body).toEqual({ success: true })
    expect((await asRemote(second)).status).toBe(401)
    const none = await api.send(getKey)
    expect(none.status).toBe(404)
    expect(none.body.error).toBe('No API key')
  })

  it('stays revoked across a restart: only the first start makes a key', async () => {
    const dataDir = ts.dataDir
    await ts.stop()
    expectCleanLog(ts)
    ts = await startTestServer({ dataDir })
    expect((await testApi(ts.url).send(getKey)).status).toBe(404)
  })

  it('keeps the key across a restart', async () => {
    const api = testApi(ts.url)
    const key = (await api.send(rotateKey)).body.apiKey
    const dataDir = ts.dataDir
    await ts.stop()
    expectCleanLog(ts)
    ts = await startTestServer({ dataDir })
    expect((await testApi(ts.url).send(getKey)).body.apiKey).toBe(key)
    expect((await testApi(ts.server.tunnelTarget).send(listFolios, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200)
  })

  it('refuses key management to remote callers without the key', async () => {
    const remote = testApi(ts.server.tunnelTarget)
    expect((await remote.send(getKey)).status).toBe(401)
    expect((await remote.send(rotateKey)).status).toBe(401)
    expect((await remote.send(revokeKey)).status).toBe(401)
  })
})

describe('/api/keys with FOLIO_API_KEY', () => {
  const KEY = `folio_live_${'12ab'.repeat(12)}`
  const s = useServer({ config: { apiKey: KEY } })

  it('shows the environment key and refuses to rotate or revoke it', async () => {
    const { api } = s
    const auth = { authorization: `Bearer ${KEY}` }
    expect((await api.send(getKey, { headers: auth })).body).toEqual({ apiKey: KEY })
    expect((await api.send(rotateKey, { headers: auth })).body.error).toBe('KEY_FROM_ENVIRONMENT')
    expect((await api.send(revokeKey, { headers: auth })).status).toBe(409)
    expect((await api.send(getKey)).status).toBe(401)
  })
})
