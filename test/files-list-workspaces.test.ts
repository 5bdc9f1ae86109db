import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { H3Event } from 'h3'
import { toNodeHandler } from 'h3/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Access } from '../src/api/contract.js'
import { createFolio, listFolios, updateFolio } from '../src/api/files.js'
import { createApp, createServerContext } from '../src/server/app.js'
import { type Auth, type CredentialHeaders, DENIED, type Principal, unauthorized } from '../src/server/auth.js'
import { defaultConfig } from '../src/server/config.js'
import { HotCache } from '../src/server/hot-cache.js'
import { nodeRequest } from '../src/server/remote.js'
import { type TestApi, testApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

/**
 * Cloud mode will give each API key its own workspace. The kept list (GET /api/files) is one URL
 * for all of them: whose list is sent must follow from who asks. Until Cloud's keys exist, two
 * workspaces come from an Auth of two keys, plugged in where Cloud's will be (auth.ts's shape),
 * in front of the real store, routes and hot cache.
 */
const PRINCIPALS: Record<string, Principal> = {
  'Bearer key-a': { workspaceId: 'team-a', name: 'Ann', role: 'owner', via: 'api-key' },
  'Bearer key-b': { workspaceId: 'team-b', name: 'Bo', role: 'owner', via: 'api-key' },
}

function twoWorkspaceAuth(): Auth {
  const resolve = (headers: CredentialHeaders, access: Access) => (headers.authorization && PRINCIPALS[headers.authorization]) || (access === 'public' ? undefined : DENIED)
  const resolveRequest = (req: IncomingMessage | undefined, access: Access) => resolve({ authorization: req?.headers.authorization, local: true }, access)
  const resolveEvent = (event: H3Event, access: Access) => resolveRequest(nodeRequest(event), access)
  return {
    resolve,
    resolveRequest,
    resolveEvent,
    authorize(event: H3Event, access: Access) {
      const principal = resolveEvent(event, access)
      if (principal === DENIED) throw unauthorized()
      return principal
    },
  }
}

describe('each workspace gets its own kept list', () => {
  const s = useServer()
  let server: Server
  let a: TestApi
  let b: TestApi
  let anonymous: TestApi
  beforeAll(async () => {
    const store = s.ts.server.store
    const ctx = createServerContext({ store, config: defaultConfig({ mode: 'cloud' }) })
    ctx.auth = twoWorkspaceAuth()
    ctx.hot = new HotCache(store, ctx.auth, ctx.limiter, ctx.clientOf)
    const routed = toNodeHandler(createApp(ctx))
    // What serve.ts does: the hot cache first, the router for the rest.
    server = createServer((req, res) => {
      if (!ctx.hot.serve(req, res)) void routed(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    a = testApi(url, { key: 'key-a' })
    b = testApi(url, { key: 'key-b' })
    anonymous = testApi(url)
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const titles = async (api: TestApi) => {
    const reply = await api.send(listFolios)
    expect(reply.status).toBe(200)
    return reply.body.map((f: { title: string }) => f.title)
  }

  it('sends each caller the list of their own workspace, warm or not, and drops only the one that changed', async () => {
    const created = async (api: TestApi, title: string) => (await api.send(createFolio, { body: { title } })).body.project.id as string
    await created(a, 'A one')
    await created(a, 'A two')
    const bOnly = await created(b, 'B one')
    // Interleaved, three times each: both lists are kept side by side in front of the router.
    for (let i = 0; i < 3; i++) {
      expect(await titles(a)).toEqual(['A two', 'A one'])
      expect(await titles(b)).toEqual(['B one'])
    }
    const refused = await anonymous.send(listFolios)
    expect(refused.status).toBe(401)

    // A's ETag means nothing for B: B gets its own list.
    const aTag = (await a.request(listFolios)).headers.get('etag')!
    const bWithATag = await b.send(listFolios, { headers: { 'if-none-match': aTag } })
    expect(bWithATag.status).toBe(200)
    expect(bWithATag.body.map((f: { title: string }) => f.title)).toEqual(['B one'])

    const keptA = s.ts.server.store.views.lists.peek('team-a')
    expect(keptA).toBeDefined()
    await b.send(updateFolio, { params: { id: bOnly }, body: { title: 'B one, renamed' } })
    expect(s.ts.server.store.views.lists.peek('team-a')).toBe(keptA)
    expect(s.ts.server.store.views.lists.peek('team-b')).toBeUndefined()
    expect(await titles(b)).toEqual(['B one, renamed'])
    expect(await titles(a)).toEqual(['A two', 'A one'])
    expect((await a.request(listFolios, { headers: { 'if-none-match': aTag } })).status).toBe(304)
  })
})
