import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFolio, deleteFolio, updateFolio } from '../src/api/files.js'
import { getWorkspace } from '../src/api/workspace.js'
import { hashBytes } from '../src/store/content/blob-store.js'
import { DEFAULT_PLANS } from '../src/store/index.js'
import { keys } from '../src/store/keys.js'
import { testApi } from './helpers/api.js'
import { makeDataDir, startTestServer, type TestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'
import { createWorkspace, type TestWorkspace } from './helpers/workspaces.js'

const PLANS = {
  ...DEFAULT_PLANS,
  small: { requestsPerMinute: 1000, aiMessagesPerMonth: 3, storageBytes: 1_000 },
  roomy: { requestsPerMinute: 1000, aiMessagesPerMonth: 3, storageBytes: 100_000 },
}

describe('deleting folios gives storage back (Cloud)', () => {
  let dataDir: string
  let ts: TestServer
  beforeAll(async () => {
    dataDir = await makeDataDir()
    await writeFile(join(dataDir, 'plans.json'), JSON.stringify(PLANS))
    ts = await startTestServer({ mode: 'cloud', dataDir })
  })
  afterAll(() => closeClean(ts))

  const used = async (ws: TestWorkspace) => (await ws.api.send(getWorkspace)).body.usage.storageBytes as number
  const create = async (ws: TestWorkspace, files: Record<string, string>) => {
    const reply = await ws.api.send(createFolio, { body: { title: 'Folio', defaultFiles: files } })
    expect(reply.status).toBe(201)
    return reply.body.project.id as string
  }
  const remove = async (ws: TestWorkspace, id: string) => expect((await ws.api.send(deleteFolio, { params: { id } })).status).toBe(200)

  it('lowers usage once a folio is deleted, so the write refused with 402 passes', async () => {
    const ws = await createWorkspace(ts, { plan: 'small' })
    const big = await create(ws, { 'index.html': 'a'.repeat(600) })
    await create(ws, { 'index.html': 'b'.repeat(300) })
    expect(await used(ws)).toBe(900)
    const newPage = { title: 'New', defaultFiles: { 'index.html': 'c'.repeat(400) } }
    const refused = await ws.api.send(createFolio, { body: newPage })
    expect(refused.status).toBe(402)
    expect(refused.body.error).toBe('STORAGE_EXCEEDED')

    await remove(ws, big)
    // Given back in the background, after DELETE answered.
    await expect.poll(() => used(ws)).toBe(300)
    const passes = await ws.api.send(createFolio, { body: newPage })
    expect(passes.status).toBe(201)
    expect(await used(ws)).toBe(700)
  })

  it('keeps a content two folios hold counted until both are deleted', async () => {
    const ws = await createWorkspace(ts, { plan: 'small' })
    const shared = 'd'.repeat(400)
    const first = await create(ws, { 'index.html': shared, 'own.html': 'e'.repeat(100) })
    const second = await create(ws, { 'index.html': shared })
    expect(await used(ws)).toBe(500)

    await remove(ws, first)
    await ts.server.store.usage.idle()
    expect(await used(ws)).toBe(400)
    await remove(ws, second)
    await expect.poll(() => used(ws)).toBe(0)
  })

  it("does not let another workspace's copy of a content keep it counted", async () => {
    const ws = await createWorkspace(ts, { plan: 'small' })
    const other = await createWorkspace(ts, { plan: 'small' })
    const page = 'f'.repeat(300)
    const id = await create(ws, { 'index.html': page })
    await create(other, { 'index.html': page })
    await remove(ws, id)
    await expect.poll(() => used(ws)).toBe(0)
    expect(await used(other)).toBe(300)
  })

  it('gives back the old contents its history packed, not only its blobs', async () => {
    const ws = await createWorkspace(ts, { plan: 'roomy' })
    const id = await create(ws, { 'index.html': 'g'.repeat(500) })
    for (const fill of ['h', 'i']) {
      const reply = await ws.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': fill.repeat(500) } } })
      expect(reply.status).toBe(200)
    }
    expect(await used(ws)).toBe(1500)
    // Packing runs after the answer: the replaced contents leave the folio's blobs for its history.
    await ts.server.store.folios.idle()
    expect(await ts.server.store.storage.getKeys(keys.folioBlobs(id))).toHaveLength(1)

    await remove(ws, id)
    await expect.poll(() => used(ws)).toBe(0)
  })

  it('keeps counted a content that a write in progress stores', async () => {
    const ws = await createWorkspace(ts, { plan: 'roomy' })
    const page = 'j'.repeat(700)
    const id = await create(ws, { 'index.html': page })
    // A write of the same content let in, its reference not written yet.
    const reservation = await ts.server.store.usage.reserve(ws.id, [{ hash: hashBytes(Buffer.from(page)), bytes: 700 }], 100_000)
    expect(reservation.admitted).toBe(true)
    await remove(ws, id)
    await ts.server.store.usage.idle()
    expect(await used(ws)).toBe(700)
    if (reservation.admitted) ts.server.store.usage.release(ws.id, reservation)
  })

  it('sums what is left from the markers after a restart', async () => {
    const ws = await createWorkspace(ts, { plan: 'roomy' })
    const gone = await create(ws, { 'index.html': 'k'.repeat(800) })
    await create(ws, { 'index.html': 'l'.repeat(200) })
    await remove(ws, gone)
    await expect.poll(() => used(ws)).toBe(200)
    // stop() keeps the data dir (close() would remove it).
    await ts.stop()
    ts = await startTestServer({ mode: 'cloud', dataDir })
    expect(await used({ ...ws, api: testApi(ts.url, { key: ws.apiKey }) })).toBe(200)
  })
})
