import { readdir, readFile, stat } from 'node:fs/promises'
import { Agent, get as httpGet } from 'node:http'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createFolio, getFolio, listFolios } from '../src/api/files.js'
import { getKey, revokeKey, rotateKey } from '../src/api/keys.js'
import { testApi } from './helpers/api.js'
import { startTestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'
import { createWorkspace, useCloudServer } from './helpers/workspaces.js'

const KEY_SHAPE = /^folio_live_[0-9a-f]{48}$/

/** Every file under a folder, recursively, with its text. */
async function filesUnder(dir: string): Promise<Array<{ path: string; text: string }>> {
  const out: Array<{ path: string; text: string }> = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await filesUnder(path)))
    else out.push({ path, text: await readFile(path, 'utf8') })
  }
  return out
}

describe('Cloud keys (spec: States, Integration key)', () => {
  const s = useCloudServer()

  it('refuses a missing, unknown or malformed credential with 401 Unauthorized and WWW-Authenticate', async () => {
    for (const authorization of [undefined, `Bearer folio_live_${'00'.repeat(24)}`, 'Bearer short', `Basic ${s.workspace.apiKey}`]) {
      const reply = await s.anonymous.send(listFolios, { headers: authorization ? { authorization } : {} })
      expect(reply.status).toBe(401)
      expect(reply.body.error).toBe('Unauthorized')
      expect(reply.headers.get('www-authenticate')).toBe('Bearer')
    }
  })

  it('echoes the key the caller sent, rotates it (the old one dead at once), and revokes it', async () => {
    const ws = await createWorkspace(s.ts, { name: 'Rotating' })
    expect(ws.apiKey).toMatch(KEY_SHAPE)
    const id = await ws.api.create('Mine')
    const echoed = await ws.api.send(getKey)
    expect(echoed.status).toBe(200)
    expect(echoed.body).toEqual({ apiKey: ws.apiKey })
    expect(echoed.headers.get('cache-control')).toBe('no-store')
    expect(s.ts.server.store.workspaces.keyGeneration(ws.id)).toBe(1)

    const rotated = await ws.api.send(rotateKey)
    expect(rotated.status).toBe(200)
    const next = rotated.body.apiKey as string
    expect(next).toMatch(KEY_SHAPE)
    expect(next).not.toBe(ws.apiKey)
    // The old key, warm in the hot cache a moment ago, is refused at once; the new one works.
    const old = await ws.api.send(getFolio, { params: { id } })
    expect(old.status).toBe(401)
    expect(old.body.error).toBe('Unauthorized')
    const fresh = testApi(s.ts.url, { key: next })
    expect((await fresh.send(getFolio, { params: { id } })).status).toBe(200)
    expect((await fresh.send(getKey)).body).toEqual({ apiKey: next })
    expect(s.ts.server.store.workspaces.keyGeneration(ws.id)).toBe(2)

    const revoked = await fresh.send(revokeKey)
    expect(revoked.status).toBe(200)
    expect(revoked.body).toEqual({ success: true })
    // No key works until a new one is made (here by the operator, through the store).
    for (const api of [fresh, ws.api]) expect((await api.send(listFolios)).status).toBe(401)
    expect(s.ts.server.store.workspaces.hasKey(ws.id)).toBe(false)
    const third = await s.ts.server.store.workspaces.rotateKey(ws.id)
    expect((await testApi(s.ts.url, { key: third }).send(getFolio, { params: { id } })).status).toBe(200)
    expect((await fresh.send(getFolio, { params: { id } })).status).toBe(401)
  })

  it('refuses a rotated key on the very connection that used it a moment before', async () => {
    const ws = await createWorkspace(s.ts, { name: 'Keep-alive' })
    const id = await ws.api.create('Warm')
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const sockets = new Set<unknown>()
    const get = (key: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpGet(`${s.ts.url}/api/files/${id}`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
          sockets.add(req.socket)
          res.resume()
          res.on('end', () => resolve(res.statusCode!))
        })
        req.on('error', reject)
      })
    try {
      expect([await get(ws.apiKey), await get(ws.apiKey)]).toEqual([200, 200])
      const next = await s.ts.server.store.workspaces.rotateKey(ws.id)
      expect(await get(ws.apiKey)).toBe(401)
      expect(await get(next)).toBe(200)
      await s.ts.server.store.workspaces.revokeKey(ws.id)
      expect(await get(next)).toBe(401)
      expect(sockets.size).toBe(1)
    } finally {
      agent.destroy()
    }
  })

  it('lets only the Owner or an Admin rotate or revoke: a Member gets 403 Forbidden', async () => {
    const ws = await createWorkspace(s.ts, { name: 'Roles' })
    // A member signed in some other way (sessions come from another resolver): plugged in as one.
    s.ts.server.context.auth.addResolver((token) =>
      token === 'member-session' ? { workspaceId: ws.id, name: 'Mo', email: 'mo@example.com', role: 'member', via: 'session' } : undefined,
    )
    const member = testApi(s.ts.url, { key: 'member-session' })
    expect((await member.send(listFolios)).status).toBe(200)
    for (const contract of [rotateKey, revokeKey] as const) {
      const reply = await member.send(contract)
      expect(reply.status).toBe(403)
      expect(reply.body.error).toBe('Forbidden')
    }
    // Not signed in with the key, so there is no key to echo: rotating shows a new one.
    const shown = await member.send(getKey)
    expect(shown.status).toBe(404)
    expect(shown.body.error).toBe('No API key')
    expect((await ws.api.send(listFolios)).status).toBe(200)
  })

  it('keeps each workspace to its own key', async () => {
    const other = await createWorkspace(s.ts, { name: 'Other' })
    const created = await s.workspace.api.send(createFolio, { body: { title: 'First’s' } })
    expect(created.status).toBe(201)
    expect((await other.api.send(getFolio, { params: { id: created.body.project.id } })).status).toBe(404)
    expect((await other.api.send(getKey)).body).toEqual({ apiKey: other.apiKey })
  })
})

describe('Cloud keys on disk', () => {
  it('are stored only as their sha256, and still work after a restart', async () => {
    let ts = await startTestServer({ mode: 'cloud' })
    const ws = await createWorkspace(ts, { name: 'Durable', email: 'Owner@Example.com' })
    const id = await ws.api.create('Kept')
    await ts.stop()
    const files = await filesUnder(ts.dataDir)
    expect(files.filter((f) => f.text.includes(ws.apiKey))).toEqual([])
    expect(files.some((f) => f.text.includes(ws.apiKey.slice('folio_live_'.length)))).toBe(false)
    const keyFile = join(ts.dataDir, 'workspaces', ws.id, 'key.json')
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600)
    expect(JSON.parse(await readFile(keyFile, 'utf8'))).toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{64}$/), generation: 1 })

    ts = await startTestServer({ mode: 'cloud', dataDir: ts.dataDir })
    try {
      expect((await testApi(ts.url, { key: ws.apiKey }).send(getFolio, { params: { id } })).status).toBe(200)
      expect(ts.server.store.workspaces.get(ws.id)).toMatchObject({ name: 'Durable', plan: 'free' })
      expect(ts.server.store.workspaces.members(ws.id)).toEqual([{ email: 'owner@example.com', role: 'owner', joinedAt: expect.any(String) }])
      expect(await ts.server.store.workspaces.accountOf('OWNER@example.com')).toEqual({
        email: 'owner@example.com',
        workspaces: [{ id: ws.id, role: 'owner' }],
      })
    } finally {
      await closeClean(ts)
    }
  })

  it('warns that FOLIO_API_KEY means nothing in Cloud, and does not let it in', async () => {
    const key = `folio_live_${'ab'.repeat(24)}`
    const ts = await startTestServer({ mode: 'cloud', config: { apiKey: key } })
    try {
      expect(ts.logs.map((l) => l.split('\n')[0])).toEqual([expect.stringContaining('FOLIO_API_KEY is not used in Cloud mode')])
      ts.logs.splice(0)
      expect((await testApi(ts.url, { key }).send(listFolios)).status).toBe(401)
    } finally {
      await closeClean(ts)
    }
  })
})
