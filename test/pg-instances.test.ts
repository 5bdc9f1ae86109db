import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createComment, recordAnalytics } from '../src/api/engagement.js'
import { getFolio, updateFolio } from '../src/api/files.js'
import { getKey, rotateKey } from '../src/api/keys.js'
import { createLink } from '../src/api/links.js'
import { testApi } from './helpers/api.js'
import { killHard, spawnServer, type ServerProcess } from './helpers/cli-process.js'
import { openEvents } from './helpers/events.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'
import { startRoundRobinProxy, type RoundRobinProxy } from './helpers/round-robin-proxy.js'

/*
 * Issue 15: three folio processes on one PostgreSQL database behind a plain round-robin proxy
 * (no sticky sessions), as a deployment runs them. Every request below goes to whichever
 * instance the proxy picks, so each check is of state shared in the database, not in a process.
 */

// Public writes all come from 127.0.0.1 here: the limits are not what these tests measure.
const NO_LIMITS = { FOLIO_RATE_LIMITS: 'comments=1000000,reactions=1000000,analytics=1000000,public=1000000,events=1000000' }

let db: TestDatabase
let work: string
const instances: ServerProcess[] = []
let proxy: RoundRobinProxy

async function startInstance(): Promise<ServerProcess> {
  const dir = await mkdtemp(join(work, 'instance-'))
  const server = await spawnServer(dir, ['--database', db.url], NO_LIMITS)
  instances.push(server)
  return server
}

beforeAll(async () => {
  db = await freshDatabase()
  work = await mkdtemp(join(tmpdir(), 'folio-instances-'))
  await Promise.all([startInstance(), startInstance(), startInstance()])
  proxy = await startRoundRobinProxy(instances.map((i) => i.url))
}, 60_000)

afterAll(async () => {
  await proxy?.close()
  await Promise.all(instances.map((i) => killHard(i.child)))
  await db?.drop()
  await rm(work, { recursive: true, force: true })
})

/** Runs `fn` for 0..n-1 with at most `limit` in flight. */
async function inParallel<T>(n: number, limit: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(n)
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) {
        const i = next++
        results[i] = await fn(i)
      }
    }),
  )
  return results
}

describe('three instances on one database behind a round-robin proxy', () => {
  it('counts 1,000 concurrent beacons spread over the instances exactly', async () => {
    const api = testApi(proxy.url)
    const id = await api.create('Beacons', { 'index.html': '<h1>count me</h1>' }, { status: 'published' })
    const before = proxy.counts.slice()
    const statuses = await inParallel(
      1000,
      100,
      async () => (await api.send(recordAnalytics, { params: { id }, body: { isInitial: true, device: 'desktop', sessionSeconds: 2 } })).status,
    )
    expect(statuses.every((s) => s >= 200 && s < 300)).toBe(true)
    // Each instance took its share (round robin): the count is of three processes' writes.
    for (const [i, n] of proxy.counts.entries()) expect(n - before[i]!).toBeGreaterThanOrEqual(300)
    // Every instance reads the same total.
    for (const instance of instances) {
      const folio = (await testApi(instance.url).send(getFolio, { params: { id }, query: { files: 'none' } })).body
      expect(folio.analytics.views).toBe(1000)
    }
  })

  it('turns 100 concurrent PUTs to one folio, spread over the instances, into 100 distinct versions in order', async () => {
    const api = testApi(proxy.url)
    const id = await api.create('Writers', { 'index.html': '<h1>v1</h1>' })
    const replies = await inParallel(100, 100, async (n) => {
      const reply = await api.send(updateFolio, {
        params: { id },
        query: { files: 'none' },
        body: { files: { 'index.html': `<h1>write ${n}</h1>` }, commitMessage: `write ${n}` },
      })
      return { n, status: reply.status, version: reply.body?.project?.latestVersionId as string }
    })
    expect(replies.every((r) => r.status === 200)).toBe(true)
    const versions = replies.map((r) => r.version)
    expect(new Set(versions).size).toBe(100)
    expect(versions.map((v) => Number(v.slice(1))).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2))
    // Each acknowledged version holds exactly what its PUT sent, whichever instance reads it.
    const folio = (await testApi(instances[2]!.url).send(getFolio, { params: { id }, query: { files: 'all' } })).body
    expect(folio.versionCount).toBe(101)
    const byVersion = new Map(folio.versions.map((v: { versionId: string; commitMessage: string; files: Record<string, string> }) => [v.versionId, v]))
    for (const r of replies) {
      const version = byVersion.get(r.version) as { commitMessage: string; files: Record<string, string> }
      expect(version.commitMessage).toBe(`write ${r.n}`)
      expect(version.files['index.html']).toBe(`<h1>write ${r.n}</h1>`)
    }
  })

  it('shows a comment posted through instance A on a share page connected to instance B, live', async () => {
    const [a, b] = [testApi(instances[0]!.url), testApi(instances[1]!.url)]
    const id = await a.create('Live', { 'index.html': '<h1>talk</h1>' }, { status: 'published' })
    const stream = await openEvents(b, id)
    try {
      const reply = await a.send(createComment, {
        params: { id },
        body: { text: 'Seen across instances?', author: 'Ada', versionId: 'v1', filename: 'index.html' },
      })
      expect(reply.status).toBe(200)
      // B only hears of it through the database's notification (nothing polls): its arrival is the proof.
      await stream.next('comments', (data) => data.comments.some((c: { text: string }) => c.text === 'Seen across instances?'))
    } finally {
      await stream.cancel()
    }
  })

  it('shows a view counted on instance A on instance B, with its time per slide, its link, and a nudge to B’s owner stream', async () => {
    const [a, b] = [testApi(instances[0]!.url), testApi(instances[1]!.url)]
    const id = await a.create('Read on A', { 'index.html': '<h1>A</h1>' }, { status: 'published' })
    const link = (await b.send(createLink, { params: { id }, body: { name: 'Dana at Acme' } })).body.link
    const owner = await openEvents(b, id)
    await a.send(recordAnalytics, { params: { id }, body: { isInitial: true, link: link.id } })
    expect((await owner.next('view')).data.text).toBe('Dana at Acme opened it')
    await a.send(recordAnalytics, {
      params: { id },
      body: { sessionSeconds: 7, link: link.id, kind: 'slides', total: 2, parts: [{ n: 2, s: 7, v: true }], furthest: 2, completed: true },
    })
    const seen = (await b.send(getFolio, { params: { id }, query: { files: 'none' } })).body.analytics
    expect(seen).toMatchObject({ views: 1, totalTimeSeconds: 7, completedViews: 1, slides: [{ slide: 2, views: 1, totalTimeSeconds: 7 }] })
    expect(seen.links).toEqual([expect.objectContaining({ name: 'Dana at Acme', views: 1, totalTimeSeconds: 7 })])
    await owner.cancel()
  })

  it('gives every instance the key rotated through one of them, and no other', async () => {
    const [a, b, c] = instances.map((i) => testApi(i.url))
    const rotated = await a!.send(rotateKey)
    expect(rotated.status).toBe(200)
    const key = rotated.body.apiKey as string
    // The others hear of it through the database within moments: their answer is the new key.
    for (const other of [b!, c!]) {
      const deadline = Date.now() + 2_000
      let seen: string | undefined
      while (Date.now() < deadline && (seen = (await other.send(getKey)).body.apiKey) !== key) await new Promise((r) => setTimeout(r, 20))
      expect(seen).toBe(key)
    }
  })

  it('loses no acknowledged write when one instance is SIGKILLed under load, and the others keep serving', async () => {
    const api = testApi(proxy.url)
    const id = await api.create('Kill', { 'index.html': '<h1>v1</h1>' }, { status: 'published' })
    const acked: Array<{ version: string; n: number }> = []
    let beacons = 0
    let stop = false
    let n = 0
    const writer = async () => {
      while (!stop) {
        const mine = ++n
        const reply = await api
          .send(updateFolio, {
            params: { id },
            query: { files: 'none' },
            body: { files: { 'index.html': `<h1>kill ${mine}</h1>` }, commitMessage: `kill ${mine}` },
          })
          .catch(() => undefined)
        if (reply?.status === 200) acked.push({ version: reply.body.project.latestVersionId, n: mine })
      }
    }
    const beaconer = async () => {
      while (!stop) {
        const reply = await api.send(recordAnalytics, { params: { id }, body: { isInitial: true, device: 'mobile', sessionSeconds: 1 } }).catch(() => undefined)
        if (reply && reply.status >= 200 && reply.status < 300) beacons++
      }
    }
    const running = [...Array.from({ length: 8 }, writer), ...Array.from({ length: 8 }, beaconer)]
    // Under load, on every instance (the one about to die included), before the kill…
    const at = () => ({ acked: acked.length, beacons, sentTo2: proxy.counts[2]! })
    const enough = { acked: 6, beacons: 20, sentTo2: 10 } // writes to one folio queue for its lock: fewer
    const grown = (since: ReturnType<typeof at>, keys: Array<keyof ReturnType<typeof at>>) => keys.every((k) => at()[k] - since[k] >= enough[k])
    const start = at()
    await vi.waitFor(() => expect(grown(start, ['acked', 'beacons', 'sentTo2']), JSON.stringify(at())).toBe(true), { timeout: 20_000, interval: 20 })
    await killHard(instances[2]!.child)
    proxy.drop(2)
    // …and after it: the survivors acknowledge more writes and views.
    const killed = at()
    await vi.waitFor(() => expect(grown(killed, ['acked', 'beacons']), JSON.stringify(at())).toBe(true), { timeout: 20_000, interval: 20 })
    stop = true
    await Promise.all(running)
    expect(acked.length).toBeGreaterThan(10)

    // The survivors serve, and hold every acknowledged version and view.
    const read = await testApi(instances[0]!.url).send(getFolio, { params: { id }, query: { files: 'all' } })
    expect(read.status, `${read.text.slice(0, 300)}\n${instances[0]!.stderr().slice(-3000)}`).toBe(200)
    const folio = read.body
    const byVersion = new Map(folio.versions.map((v: { versionId: string; files: Record<string, string> }) => [v.versionId, v.files['index.html']]))
    for (const a of acked) expect(byVersion.get(a.version)).toBe(`<h1>kill ${a.n}</h1>`)
    expect(folio.analytics.views).toBeGreaterThanOrEqual(beacons)
    const again = await testApi(instances[1]!.url).send(updateFolio, {
      params: { id },
      query: { files: 'none' },
      body: { files: { 'index.html': '<h1>after</h1>' } },
    })
    expect(again.status).toBe(200)
  }, 30_000)
})
