import { readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createComment } from '../src/api/engagement.js'
import { createFolio, listFolios, updateFolio } from '../src/api/files.js'
import { createClient } from '../src/client/index.js'
import { LogLevels } from '../src/log/logger.js'
import { OPEN_TAIL_BYTES } from '../src/store/content/version-log.js'
import { startTestServer, type TestServer } from './helpers/server.js'

/**
 * GET /api/files answers Folio objects as the spec defines them: `versions` (every version,
 * without file contents) and `comments` are arrays. Versions come from the version log kept with
 * the metadata, so a long history costs a list nothing, and survives restarts and migration.
 */
describe('listFolios items', () => {
  const servers: TestServer[] = []
  afterAll(async () => {
    for (const ts of servers) {
      expect(ts.logs).toEqual([])
      await ts.close()
    }
  })
  const start = async (dataDir?: string) => {
    const ts = await startTestServer({ dataDir })
    servers.push(ts)
    return { ts, api: createClient({ server: ts.url }) }
  }

  it('lists every version (no files) and every comment of each folio', async () => {
    const { api } = await start()
    const created = await api.call(createFolio, { body: { title: 'Deck', initialHtml: '<h1>1</h1>', commitMessage: 'first', status: 'published' } })
    const id = created.project.id
    await api.call(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>2</h1>' }, commitMessage: 'second' } })
    await api.call(updateFolio, { params: { id }, body: { restoreVersionId: 'v1' } })
    const { comment } = await api.call(createComment, { params: { id }, body: { text: 'Bigger title', versionId: 'v3', filename: 'index.html', x: 10, y: 20 } })
    await api.call(createFolio, { body: { title: 'Empty', initialHtml: '<p>x</p>' } })

    const list = await api.call(listFolios)
    // Every item is what the contract (and so the OpenAPI document) promises.
    expect(listFolios.response.schema.safeParse(list).error).toBeUndefined()
    expect(list.map((f) => f.title)).toEqual(['Empty', 'Deck'])
    const deck = list.find((f) => f.id === id)!
    expect(deck.versions.map((v) => [v.versionId, v.commitMessage])).toEqual([
      ['v1', 'first'],
      ['v2', 'second'],
      ['v3', 'Restore v1'],
    ])
    for (const v of deck.versions) {
      expect(Object.keys(v).sort()).toEqual(['author', 'commitMessage', 'createdAt', 'versionId'])
      expect(Date.parse(v.createdAt)).not.toBeNaN()
    }
    expect(deck.versionCount).toBe(3)
    expect(deck.comments).toEqual([comment])
    const empty = list.find((f) => f.title === 'Empty')!
    expect(empty.versions.map((v) => v.versionId)).toEqual(['v1'])
    expect(empty.comments).toEqual([])
  })

  it('keeps a long history in the list, in order, with the metadata file small, across a restart', async () => {
    const { ts, api } = await start()
    const id = (await api.call(createFolio, { body: { title: 'Long', initialHtml: '<p>0</p>' } })).project.id
    const message = (n: number) => `Edit ${n}: ${'a fairly long commit message '.repeat(3)}`
    for (let n = 2; n <= 150; n++) {
      await api.call(updateFolio, { params: { id }, body: { files: { 'index.html': `<p>${n}</p>` }, commitMessage: message(n) } })
    }
    const expected = ['Initial version', ...Array.from({ length: 149 }, (_, i) => message(i + 2))]
    const messages = async (client: typeof api) => (await client.call(listFolios)).find((f) => f.id === id)!.versions.map((v) => v.commitMessage)
    expect(await messages(api)).toEqual(expected)

    // The tail in the metadata stays small however long the history: older summaries were
    // written out as chunks.
    const meta = join(ts.dataDir, 'folios', id, 'meta.json')
    await ts.server.store.writeBack()
    expect((await stat(meta)).size).toBeLessThan(OPEN_TAIL_BYTES + 4096)

    await ts.stop()
    const again = await start(ts.dataDir)
    expect(await messages(again.api)).toEqual(expected)
  })

  it('gives folios of an older data dir (format 2, no version log) their versions on first start', async () => {
    const { ts, api } = await start()
    const id = (await api.call(createFolio, { body: { title: 'Old', initialHtml: '<p>1</p>' } })).project.id
    for (let n = 2; n <= 90; n++)
      await api.call(updateFolio, { params: { id }, body: { files: { 'index.html': `<p>${n}</p>` }, commitMessage: `Edit ${n} ${'x'.repeat(80)}` } })
    await ts.stop()
    // What format 2 wrote: metadata without a log, no log chunks.
    const metaPath = join(ts.dataDir, 'folios', id, 'meta.json')
    const { log: _log, logStart: _start, ...older } = JSON.parse(await readFile(metaPath, 'utf8'))
    await writeFile(metaPath, JSON.stringify(older))
    await rm(join(ts.dataDir, 'folios', id, 'log'), { recursive: true, force: true })
    await writeFile(join(ts.dataDir, 'format.json'), JSON.stringify({ format: 2, updatedAt: new Date().toISOString() }))

    // At info: the migration says what it did.
    const again = await startTestServer({ dataDir: ts.dataDir, logLevel: LogLevels.info })
    const messages = (await createClient({ server: again.url }).call(listFolios))[0]!.versions.map((v) => v.commitMessage)
    expect(messages).toEqual(['Initial version', ...Array.from({ length: 89 }, (_, i) => `Edit ${i + 2} ${'x'.repeat(80)}`)])
    expect(again.logs).toEqual(['[store] Added a version log to 1 folio(s) (data format 3).'])
    await again.close()
    servers.splice(servers.indexOf(ts), 1)
  })
})
