import { truncate } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteFolio, getFolio, listFolios } from '../src/api/files.js'
import { LIST_CACHE_ENTRY_BYTES } from '../src/store/index.js'
import { type TestApi, testApi } from './helpers/api.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean, expectCleanLog, expectLogged } from './helpers/use-server.js'

/** The list must survive what a workspace can hold: many large folios, and one damaged file. */
// Not useServer: the second test damages a file while the server is stopped, then restarts it.
let ts: TestServer
let api: TestApi
beforeAll(async () => {
  ts = await startTestServer()
  api = testApi(ts.url)
})
afterAll(() => closeClean(ts))

describe('GET /api/files at its limits', () => {
  it('streams a list over the cap of a kept list, complete, in order, as valid JSON, and keeps none of it', async () => {
    const guidelines = 'Use generous whitespace and one accent colour. '.repeat(1300) // ~60 KB each
    const ids: string[] = []
    for (let i = 0; i < 75; i++) {
      ids.push(await api.create(`Large ${i}`, { 'index.html': `<h1>${i}</h1>` }, { designPreferences: { customGuidelines: guidelines } }))
    }
    for (let i = 0; i < 2; i++) {
      const res = await api.request(listFolios)
      expect(res.status).toBe(200)
      expect(res.headers.get('cache-control')).toBe('public, max-age=5, stale-while-revalidate=60')
      // Streamed: no length known up front, no ETag (that would need the whole body first).
      expect(res.headers.get('transfer-encoding')).toBe('chunked')
      expect(res.headers.get('content-length')).toBeNull()
      expect(res.headers.get('etag')).toBeNull()
      const text = await res.text()
      expect(text.length).toBeGreaterThan(LIST_CACHE_ENTRY_BYTES)
      expect(ts.server.store.views.lists.peek('local')).toBeUndefined()
      const list = JSON.parse(text) as Array<{ id: string; designPreferences: { customGuidelines: string } }>
      expect(list.map((f) => f.id)).toEqual([...ids].reverse())
      expect(list.every((f) => f.designPreferences.customGuidelines === guidelines)).toBe(true)
    }
    await Promise.all(ids.map((id) => api.send(deleteFolio, { params: { id } })))
  })

  it('leaves out a folio whose metadata is damaged, says so in the log, and can still delete it', async () => {
    const good = await api.create('Good')
    const bad = await api.create('Damaged')
    await ts.stop()
    expectCleanLog(ts)
    await truncate(join(ts.dataDir, 'folios', bad, 'meta.json'), 10)
    ts = await startTestServer({ dataDir: ts.dataDir })
    api = testApi(ts.url)

    const list = await api.send(listFolios)
    expect(list.status).toBe(200)
    expect(list.body.map((f: any) => f.id)).toEqual([good])
    expect(ts.logs.join('\n')).toContain(`Left folio ${bad} out of the list`)
    const read = await api.send(getFolio, { params: { id: bad } })
    expect(read.status).toBe(500)
    expect(read.body.message).toContain('DELETE the folio')

    expect((await api.send(deleteFolio, { params: { id: bad } })).body).toEqual({ success: true })
    expect((await api.send(getFolio, { params: { id: bad } })).status).toBe(404)
    expect((await api.send(getFolio, { params: { id: good } })).status).toBe(200)
    // What the damage made the server say: the list's warning, and the failed read (the 500 above).
    const damaged = `Stored document folios:${bad}:meta.json is not valid JSON`
    expectLogged(ts, [
      `folio: [store] Left folio ${bad} out of the list: ${damaged}. Restore the file from a backup, or delete the folio.`,
      `folio: GET /api/files/${bad}: ${join(ts.dataDir, 'folios', bad, 'meta.json')} is damaged (not valid JSON). Restore it from a backup, or delete the folio.`,
    ])
  })
})
