import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import { recordAnalytics } from '../src/api/engagement.js'
import { createFolio, deleteFolio, getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { getKey, rotateKey } from '../src/api/keys.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { getSyncManifest } from '../src/api/sync.js'
import { rawFile, sharePage } from '../src/api/viewer.js'
import { contractPath } from '../src/client/index.js'
import { testApi } from './helpers/api.js'
import { lanAddresses } from './helpers/cli-process.js'
import { useServer } from './helpers/use-server.js'

/**
 * `folio serve --host 0.0.0.0`: other machines reach the server. The open OSS API is for programs
 * on this machine, so what comes from a network address needs the key, whatever Host it sends
 * (an IP literal always passes the DNS-rebinding guard). Reached here for real: this machine's
 * own network address as the destination makes it the socket's peer address too.
 */
const lan = lanAddresses()[0]

describe('OSS on 0.0.0.0: requests from a network address', () => {
  const s = useServer({ host: '0.0.0.0' })
  const port = () => new URL(s.ts.url).port
  const fromLan = (key?: string) => testApi(`http://${lan}:${port()}`, { key })

  it('runs on a machine with a network address (else this file proves nothing)', () => {
    expect(lan, 'a non-loopback IPv4 address of this machine').toBeTruthy()
  })

  it('need the key for the owner API, hot answers included, while programs on this machine stay open', async () => {
    const local = s.api
    const id = await local.create('Mine', { 'index.html': '<h1>Mine</h1>' }, { status: 'published' })
    // Warm the hot cache: the answer in front of the router must refuse them too.
    expect((await local.send(getFolio, { params: { id } })).status).toBe(200)
    expect((await local.send(getFolio, { params: { id } })).status).toBe(200)

    const stranger = fromLan()
    for (const reply of [
      await stranger.send(listFolios),
      await stranger.send(getFolio, { params: { id } }),
      await stranger.send(getFolio, { params: { id } }),
      await stranger.send(getKey),
      await stranger.send(rotateKey),
      await stranger.send(getSyncManifest, { params: { id } }),
      await stranger.send(createFolio, { body: { title: 'pwned' } }),
      await stranger.send(updateFolio, { params: { id }, body: { title: 'pwned' } }),
      await stranger.send(deleteFolio, { params: { id } }),
    ]) {
      expect(reply.status).toBe(401)
      expect(reply.body.error).toBe('Unauthorized')
    }
    // HEAD of a hot answer too.
    expect((await fetch(stranger.url(getFolio, { id }), { method: 'HEAD' })).status).toBe(401)
    expect((await local.send(getFolio, { params: { id } })).body.title).toBe('Mine')

    // Viewers' endpoints stay public on the network.
    expect((await stranger.send(getPublicFolio, { params: { id } })).status).toBe(200)
    expect((await stranger.send(sharePage, { params: { id } })).text).toContain('"view":"content"')
    expect((await stranger.send(rawFile, { params: { id, access: '-', path: 'index.html' } })).text).toContain('<h1>Mine</h1>')
    expect((await stranger.send(recordAnalytics, { params: { id }, body: { isInitial: true } })).status).toBe(200)

    // With the key, a network caller is the owner.
    const key = (await local.send(getKey)).body.apiKey
    const owner = fromLan(key)
    expect((await owner.send(listFolios)).status).toBe(200)
    expect((await owner.send(getFolio, { params: { id } })).status).toBe(200)
  })

  it('cannot preview a draft without the key (the preview is the owner)', async () => {
    const draft = await s.api.create('Draft', { 'index.html': '<h1>Not yet</h1>' })
    // Not the owner: to it the draft is not there at all.
    const fromElsewhere = await fromLan().send(sharePage, { params: { id: draft }, query: { preview: '1' } })
    expect([fromElsewhere.status, fromElsewhere.text]).toEqual([404, expect.stringContaining('"view":"missing"')])
    expect(fromElsewhere.text).not.toContain('Not yet')
    expect((await s.api.send(sharePage, { params: { id: draft }, query: { preview: '1' } })).text).toContain('"view":"content"')
  })

  it('is what the socket says, never what the request says: a Host or a forwarded header cannot make it local', async () => {
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: lan, localAddress: lan, port: port(), path: contractPath(listFolios), headers }, (res) => {
          res.resume()
          resolve(res.statusCode!)
        })
        req.on('error', reject)
        req.end()
      })
    const tries: Array<Record<string, string>> = [
      { host: `127.0.0.1:${port()}` },
      { host: `localhost:${port()}` },
      { host: `${lan}:${port()}`, 'x-forwarded-for': '127.0.0.1' },
      { host: `[::1]:${port()}`, 'x-real-ip': '127.0.0.1' },
    ]
    for (const headers of tries) {
      expect(await status(headers), JSON.stringify(headers)).toBe(401)
    }
  })
})

describe('OSS on :: (IPv4 peers arrive as ::ffff:127.0.0.1)', () => {
  const s = useServer({ host: '::' })

  it('still counts this machine as local, over IPv4 and IPv6 loopback', async () => {
    const port = new URL(s.ts.url).port
    expect((await testApi(`http://127.0.0.1:${port}`).send(listFolios)).status).toBe(200)
    expect((await testApi(`http://[::1]:${port}`).send(listFolios)).status).toBe(200)
    expect((await testApi(`http://${lan}:${port}`).send(listFolios)).status).toBe(401)
  })
})

describe('with FOLIO_API_KEY set', () => {
  const KEY = `folio_live_${'7c'.repeat(24)}`
  const s = useServer({ config: { apiKey: KEY } })

  it('reading the key needs the key, even on this machine; the rest stays open there', async () => {
    const reply = await s.api.send(getKey)
    expect(reply.status).toBe(401)
    expect(reply.body.error).toBe('Unauthorized')
    expect((await s.api.send(getKey, { headers: { authorization: `Bearer ${KEY}` } })).body).toEqual({ apiKey: KEY })
    expect((await s.api.send(listFolios)).status).toBe(200)
  })
})
