import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import type { Contract, ParamsOf } from '../src/api/contract.js'
import { getOpenApi } from '../src/api/design-systems.js'
import { createFolio, deleteFolio, getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { contractPath } from '../src/client/index.js'
import { useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'

const KEY = `folio_live_${'ab12'.repeat(12)}`

describe('OSS mode (the default)', () => {
  const s = useServer({ config: { apiKey: KEY } })

  it('leaves the files API open, with or without a key (spec: Authentication 8)', async () => {
    const { api } = s
    expect((await api.send(listFolios)).status).toBe(200)
    expect((await api.send(createFolio, { body: { title: 'Open' } })).status).toBe(201)
    expect((await api.send(listFolios, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200)
  })

  it('keeps the open API from pages of other origins and from folios in the viewer sandbox', async () => {
    const { api } = s
    const id = (await api.send(createFolio, { body: { title: 'Mine', status: 'published' } })).body.project.id
    const host = new URL(api.server).host
    // Warm the hot cache: the answer in front of the router must refuse them too.
    await api.send(getFolio, { params: { id } })
    await api.send(getFolio, { params: { id } })
    for (const origin of ['null', 'http://evil.example', `http://${host}.evil.example`]) {
      for (const reply of [
        await api.send(listFolios, { headers: { origin } }),
        await api.send(getFolio, { params: { id }, headers: { origin } }),
        await api.send(createFolio, { body: { title: 'pwned' }, headers: { origin } }),
        await api.send(updateFolio, { params: { id }, body: { title: 'pwned' }, headers: { origin } }),
        await api.send(deleteFolio, { params: { id }, headers: { origin } }),
      ]) {
        expect(reply.status).toBe(401)
        expect(reply.body.error).toBe('Unauthorized')
      }
    }
    expect((await api.send(getFolio, { params: { id }, headers: { origin: `http://${host}` } })).status).toBe(200)
    expect((await api.send(getFolio, { params: { id }, headers: { origin: 'null', authorization: `Bearer ${KEY}` } })).status).toBe(200)
    expect((await api.send(listFolios)).body.some((f: any) => f.title === 'pwned')).toBe(false)
    // Public viewer endpoints stay public.
    expect((await api.send(getPublicFolio, { params: { id }, headers: { origin: 'null' } })).status).toBe(200)
  })
})

describe('OSS mode: the open API answers only its own host names (DNS rebinding)', () => {
  const s = useServer({ config: { apiKey: KEY, allowedHosts: ['folio.lan'] } })

  /** node:http, because fetch does not let a caller choose the Host header. */
  const withHost = <C extends Contract>(contract: C, params: ParamsOf<C>, host: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      const url = new URL(s.api.server)
      const path = contractPath(contract, params as Record<string, string>)
      const req = request({ host: url.hostname, port: url.port, method: contract.method, path, headers: { host, ...headers } }, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
      req.on('error', reject)
      req.end()
    })

  it('refuses a page whose name was re-pointed at this machine, unless it sends the key', async () => {
    const port = new URL(s.api.server).port
    const id = (await s.api.send(createFolio, { body: { title: 'Mine', status: 'published' } })).body.project.id
    for (const host of [`attacker.example:${port}`, 'attacker.example', `evil.localhost.example:${port}`]) {
      expect(await withHost(listFolios, {}, host)).toBe(401)
      expect(await withHost(getFolio, { id }, host, { origin: `http://${host}` })).toBe(401)
      expect(await withHost(deleteFolio, { id }, host, { origin: `http://${host}` })).toBe(401)
      expect(await withHost(listFolios, {}, host, { authorization: `Bearer ${KEY}` })).toBe(200)
      // Viewers reach published folios whatever name they used.
      expect(await withHost(getPublicFolio, { id }, host)).toBe(200)
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `app.localhost:${port}`, `192.168.1.20:${port}`, `FOLIO.lan:${port}`]) {
      expect(await withHost(listFolios, {}, host)).toBe(200)
    }
    expect((await s.api.send(getFolio, { params: { id } })).status).toBe(200)
  })

  it('answers 401 to a wrong key instead of ignoring it (spec: Authentication 9)', async () => {
    const { api } = s
    const reply = await api.send(listFolios, { headers: { authorization: `Bearer folio_live_${'00'.repeat(24)}` } })
    expect(reply.status).toBe(401)
    expect(reply.body.error).toBe('Unauthorized')
    // Public endpoints ignore a credential they do not need.
    const id = (await api.send(createFolio, { body: { title: 'Open', status: 'published' } })).body.project.id
    expect((await api.send(getPublicFolio, { params: { id }, headers: { authorization: 'Bearer wrong' } })).status).toBe(200)
  })
})

describe('Cloud mode', () => {
  const cloud = useCloudServer()
  const s = {
    get api() {
      return cloud.anonymous
    },
  }

  it.each([
    ['no header', {}],
    ['a wrong key', { authorization: `Bearer folio_live_${'00'.repeat(24)}` }],
    ['a key of another length', { authorization: 'Bearer short' }],
    ['another scheme', { authorization: `Basic ${KEY}` }],
  ])('answers 401 Unauthorized with %s', async (_name, headers) => {
    const reply = await s.api.send(listFolios, { headers: headers as Record<string, string> })
    expect(reply.status).toBe(401)
    expect(reply.body.error).toBe('Unauthorized')
    expect(reply.headers.get('www-authenticate')).toBe('Bearer')
  })

  it('accepts the workspace key, and keeps public endpoints public', async () => {
    const { api } = s
    const auth = cloud.workspace.auth
    const created = await api.send(createFolio, { body: { title: 'Cloud', isPrivate: true, accessKey: 'pw' }, headers: auth })
    expect(created.status).toBe(201)
    expect(created.body.project.isPrivate).toBe(true)
    expect((await api.send(getFolio, { params: { id: created.body.project.id }, headers: auth })).status).toBe(200)
    expect((await api.send(getOpenApi)).status).toBe(200)
  })
})
