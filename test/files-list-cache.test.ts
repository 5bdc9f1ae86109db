import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, react, recordAnalytics } from '../src/api/engagement.js'
import { deleteFolio, listFolios, updateFolio } from '../src/api/files.js'
import { uploadFile } from '../src/api/uploads.js'
import { type TestApi, testApi } from './helpers/api.js'
import { tinyPng } from './helpers/images.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean, expectCleanLog, useServer } from './helpers/use-server.js'

/**
 * GET /api/files is kept as finished bytes per workspace and sent like a file (ETag, 304) until
 * a folio of the workspace changes. Whatever changed, the next list must be exactly what a
 * server that never cached anything answers.
 */
describe('the kept list never goes stale', () => {
  // Not useServer: a fresh server on the same data dir is the reference for every change.
  let ts: TestServer
  let api: TestApi
  beforeAll(async () => {
    ts = await startTestServer()
    api = testApi(ts.url)
  })
  afterAll(() => closeClean(ts))

  const listText = async () => {
    const reply = await api.request(listFolios)
    expect(reply.status).toBe(200)
    return reply.text()
  }
  /** Two GETs: the first may be built by the router, the second is answered in front of it. */
  const listTwice = async () => {
    const first = await listText()
    expect(await listText()).toBe(first)
    return first
  }
  const ok = async (reply: Promise<{ status: number; text: string }>) => {
    const { status, text } = await reply
    expect(status, text).toBeLessThan(300)
  }

  it('answers after every kind of change what a freshly started server answers', async () => {
    const a = await api.create('A', { 'index.html': '<h1>A</h1>' }, { status: 'published' })
    const b = await api.create('B', { 'index.html': '<h1>B</h1>' }, { status: 'published' })
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['create', () => api.create('C')],
      ['metadata PUT', () => ok(api.send(updateFolio, { params: { id: a }, body: { title: 'A, renamed', allowComments: true } }))],
      ['new version', () => ok(api.send(updateFolio, { params: { id: b }, body: { files: { 'index.html': '<h1>B2</h1>' }, commitMessage: 'second' } }))],
      ['restore', () => ok(api.send(updateFolio, { params: { id: b }, body: { restoreVersionId: 'v1' } }))],
      [
        'comment',
        () => ok(api.send(createComment, { params: { id: a }, body: { text: 'Bigger title', versionId: 'v1', filename: 'index.html', x: 10, y: 20 } })),
      ],
      ['reaction', () => ok(api.send(react, { params: { id: a }, body: { increments: { '🔥': 1 } } }))],
      ['beacon', () => ok(api.send(recordAnalytics, { params: { id: b }, body: { isInitial: true, device: 'mobile', sessionSeconds: 12 } }))],
      [
        'upload',
        () =>
          ok(
            api.send(uploadFile, {
              params: { id: a },
              raw: new Uint8Array(tinyPng()),
              headers: { 'content-type': 'application/octet-stream', 'x-file-path': 'img/logo.png' },
            }),
          ),
      ],
      ['delete', () => ok(api.send(deleteFolio, { params: { id: b } }))],
    ]
    for (const [kind, change] of changes) {
      const before = await listTwice()
      await change()
      const after = await listTwice()
      expect(after, `${kind}: the list shows it`).not.toBe(before)
      await ts.stop()
      expectCleanLog(ts)
      ts = await startTestServer({ dataDir: ts.dataDir })
      api = testApi(ts.url)
      expect(await listText(), `${kind}: the kept list is what a fresh server builds`).toBe(after)
    }
  })
})

describe('the kept list under a burst of beacons', () => {
  const s = useServer()

  it('counts every acknowledged beacon, however many lists were read while they landed', async () => {
    const id = await s.api.create('Busy', { 'index.html': '<h1>Busy</h1>' }, { status: 'published' })
    const viewsInList = async () => {
      const list = (await s.api.send(listFolios)).body as Array<{ id: string; analytics: { views: number } }>
      return list.find((f) => f.id === id)!.analytics.views
    }
    await viewsInList()
    let landed = false
    const other = await s.api.create('Renamed over and over')
    const beacons = Promise.all(
      Array.from({ length: 300 }, () => s.api.send(recordAnalytics, { params: { id }, body: { isInitial: true, device: 'desktop', sessionSeconds: 1 } })),
    ).finally(() => (landed = true))
    // Renames make the next list read the workspace from disk: beacon flushes land in the middle
    // of such builds, and none of those lists may be kept once a newer flush is acknowledged.
    const renames = (async () => {
      for (let i = 0; !landed; i++) await s.api.send(updateFolio, { params: { id: other }, body: { title: `Renamed ${i}` } })
    })()
    let reads = 0
    while (!landed) {
      await Promise.all(Array.from({ length: 4 }, () => viewsInList()))
      reads += 4
    }
    await renames
    expect((await beacons).every((r) => r.status === 200)).toBe(true)
    expect(reads).toBeGreaterThan(0)
    expect(await viewsInList()).toBe(300)
    expect(await viewsInList()).toBe(300)
  })
})

describe('the list as a file: ETag and 304', () => {
  const s = useServer()

  it('answers 304 to its own ETag until the list changes, then a new ETag', async () => {
    const id = await s.api.create('Tagged')
    const first = await s.api.request(listFolios)
    const etag = first.headers.get('etag')!
    const body = await first.text()
    // Strong: a quoted hash of the bytes, never W/.
    expect(etag).toMatch(/^"[\w-]{20,}"$/)
    expect(first.headers.get('cache-control')).toBe('public, max-age=5, stale-while-revalidate=60')
    expect(s.ts.server.store.views.lists.peek('local')?.etag).toBe(etag)

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      // Twice: the router's answer, then the one in front of it.
      for (let i = 0; i < 2; i++) {
        const reply = await s.api.request(listFolios, { headers: { 'if-none-match': ifNoneMatch } })
        expect(reply.status, ifNoneMatch).toBe(304)
        expect(reply.headers.get('etag')).toBe(etag)
        expect(reply.headers.get('cache-control')).toBe('public, max-age=5, stale-while-revalidate=60')
        expect(await reply.text()).toBe('')
      }
    }
    const other = await s.api.request(listFolios, { headers: { 'if-none-match': '"something-else"' } })
    expect(other.status).toBe(200)
    expect(await other.text()).toBe(body)
    const head = await fetch(s.api.url(listFolios), { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('etag')).toBe(etag)
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(body))
    expect(await head.text()).toBe('')

    await s.api.send(updateFolio, { params: { id }, body: { title: 'Tagged, renamed' } })
    for (let i = 0; i < 2; i++) {
      const changed = await s.api.request(listFolios, { headers: { 'if-none-match': etag } })
      expect(changed.status).toBe(200)
      const newTag = changed.headers.get('etag')!
      expect(newTag).toMatch(/^"[\w-]{20,}"$/)
      expect(newTag).not.toBe(etag)
      expect(JSON.parse(await changed.text())[0].title).toBe('Tagged, renamed')
      expect((await s.api.request(listFolios, { headers: { 'if-none-match': newTag } })).status).toBe(304)
    }
  })
})

describe('the kept list keeps its credential check', () => {
  const KEY = `folio_live_${'ab12'.repeat(12)}`
  const s = useServer({ config: { apiKey: KEY } })

  it('is never sent through the tunnel without the key, and is the same list with it', async () => {
    await s.api.create('Mine')
    const local = await s.api.request(listFolios)
    const body = await local.text()
    expect((await s.api.request(listFolios)).status).toBe(200)
    const tunnel = testApi(s.ts.server.tunnelTarget)
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong' }, { 'if-none-match': local.headers.get('etag')! }]
    for (const headers of attempts) {
      const refused = await tunnel.send(listFolios, { headers })
      expect(refused.status).toBe(401)
      expect(refused.body.error).toBe('Unauthorized')
    }
    const withKey = testApi(s.ts.server.tunnelTarget, { key: KEY })
    for (let i = 0; i < 2; i++) expect(await (await withKey.request(listFolios)).text()).toBe(body)
  })
})
