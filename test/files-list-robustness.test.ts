import { truncate } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { client } from './helpers/http.js'
import { startTestServer, type TestServer } from './helpers/server.js'

/** The list must survive what a workspace can hold: many large folios, and one damaged file. */
let ts: TestServer
let api: ReturnType<typeof client>
beforeAll(async () => {
  ts = await startTestServer()
  api = client(ts.url)
})
afterAll(() => ts.close())

describe('GET /api/files at its limits', () => {
  it('streams a list larger than 8 MB, complete, in order, as valid JSON', async () => {
    const guidelines = 'Use generous whitespace and one accent colour. '.repeat(1300) // ~60 KB each
    const ids: string[] = []
    for (let i = 0; i < 150; i++) {
      ids.push(await api.create(`Large ${i}`, { 'index.html': `<h1>${i}</h1>` }, { designPreferences: { customGuidelines: guidelines } }))
    }
    const res = await fetch(`${ts.url}/api/files`)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('public, max-age=5, stale-while-revalidate=60')
    const text = await res.text()
    expect(text.length).toBeGreaterThan(8 * 1024 * 1024)
    const list = JSON.parse(text) as Array<{ id: string; designPreferences: { customGuidelines: string } }>
    expect(list.map((f) => f.id)).toEqual([...ids].reverse())
    expect(list.every((f) => f.designPreferences.customGuidelines === guidelines)).toBe(true)
    await Promise.all(ids.map((id) => api.delete(`/api/files/${id}`)))
  })

  it('leaves out a folio whose metadata is damaged, says so in the log, and can still delete it', async () => {
    const good = await api.create('Good')
    const bad = await api.create('Damaged')
    await ts.stop()
    await truncate(join(ts.dataDir, 'folios', bad, 'meta.json'), 10)
    ts = await startTestServer({ dataDir: ts.dataDir })
    api = client(ts.url)

    const list = await api.get('/api/files')
    expect(list.status).toBe(200)
    expect(list.body.map((f: any) => f.id)).toEqual([good])
    expect(ts.logs.join('\n')).toContain(`Left folio ${bad} out of the list`)
    const read = await api.get(`/api/files/${bad}`)
    expect(read.status).toBe(500)
    expect(read.body.message).toContain('DELETE the folio')

    expect((await api.delete(`/api/files/${bad}`)).body).toEqual({ success: true })
    expect((await api.get(`/api/files/${bad}`)).status).toBe(404)
    expect((await api.get(`/api/files/${good}`)).status).toBe(200)
  })
})
