import { beforeAll, describe, expect, it } from 'vitest'
import { createFolio, listFolios, updateFolio } from '../src/api/files.js'
import type { TestApi } from './helpers/api.js'
import { createWorkspace, useCloudServer } from './helpers/workspaces.js'

/**
 * Cloud gives each workspace key its own workspace. The kept list (GET /api/files) is one URL
 * for all of them: whose list is sent must follow from who asks, through the real store, routes
 * and hot cache.
 */
describe('each workspace gets its own kept list', () => {
  const s = useCloudServer()
  let a: TestApi
  let b: TestApi
  let anonymous: TestApi
  let aId: string
  let bId: string
  beforeAll(async () => {
    a = s.workspace.api
    aId = s.workspace.id
    const second = await createWorkspace(s.ts, { name: 'Second' })
    b = second.api
    bId = second.id
    anonymous = s.anonymous
  })

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

    const keptA = s.ts.server.store.views.lists.peek(aId)
    expect(keptA).toBeDefined()
    await b.send(updateFolio, { params: { id: bOnly }, body: { title: 'B one, renamed' } })
    expect(s.ts.server.store.views.lists.peek(aId)).toBe(keptA)
    expect(s.ts.server.store.views.lists.peek(bId)).toBeUndefined()
    expect(await titles(b)).toEqual(['B one, renamed'])
    expect(await titles(a)).toEqual(['A two', 'A one'])
    expect((await a.request(listFolios, { headers: { 'if-none-match': aTag } })).status).toBe(304)
  })
})
