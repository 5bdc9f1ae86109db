import { afterEach, describe, expect, it } from 'vitest'
import type { StoreRepositories } from '../src/store/assemble-store.js'
import { BlobStore, hashBytes } from '../src/store/content/blob-store.js'
import { heard, type Instance, startInstances } from './helpers/instances.js'
import { newMeta } from './helpers/store.js'

/**
 * Several instances of the store over ONE storage (issue 15): each a whole set of repositories
 * with its own caches, sharing a lock table whose onStale says when another instance wrote
 * under a key (test/helpers/instances.ts) and one message bus carrying the change feed.
 * Nothing here is PostgreSQL: the same repositories run on it with its locks and pub/sub.
 */

let running: Awaited<ReturnType<typeof startInstances>> | undefined
afterEach(async () => {
  await running?.close()
  running = undefined
})

async function start(count: number, options: { storageUsage?: boolean } = {}): Promise<Instance[]> {
  running = await startInstances(count, options)
  return running.instances
}

/** Until the messages sent so far reached every instance: the memory bus delivers each in a setImmediate of its own, in order. */
const delivered = () => new Promise((resolve) => setImmediate(resolve))
/** Resolves once `condition` holds (checked every few ms), failing after `ms`. */
async function until(condition: () => boolean, ms = 2_000): Promise<void> {
  for (const end = Date.now() + ms; !condition(); await new Promise((r) => setTimeout(r, 5)))
    if (Date.now() > end) throw new Error(`not so after ${ms} ms: ${condition}`)
}
const limits = { maxComments: 10_000, maxBytes: 10_000_000 }
const create = (store: StoreRepositories, title = 'T', workspaceId = 'ws1') =>
  store.folios.create({ meta: newMeta({ title, workspaceId }), files: { 'index.html': '<p>v1</p>' }, commitMessage: 'first', author: 'test' })
const folioHeard = (store: StoreRepositories, id: string, times = 1) => heard((l) => store.folios.onChange((changed) => l(changed)), id, times)
const engagementHeard = (store: StoreRepositories, id: string, times = 1) => heard((l) => store.engagement.onChange((changed) => l(changed)), id, times)
const workspaceHeard = (store: StoreRepositories, id: string) => heard((l) => store.workspaces.onChange((changed, how) => how === 'heard' && l(changed)), id)
const listOf = async (store: StoreRepositories, workspaceId: string) =>
  JSON.parse(((await store.views.lists.get(workspaceId)) as { body: Buffer }).body.toString()) as Array<{ id: string; title: string; versionCount: number }>
const fullOf = async (store: StoreRepositories, id: string) => {
  const json = await store.views.full(id)
  return json === undefined
    ? undefined
    : (JSON.parse(json as string) as {
        title: string
        versions: Array<{ versionId: string; commitMessage: string; files: Record<string, string> }>
        comments: unknown[]
        analytics: { views: number }
      })
}

describe('the store as several instances over one storage', () => {
  it('gives 100 concurrent updates spread over three instances 100 distinct versions, in order, none lost', async () => {
    const instances = await start(3)
    const { meta } = await create(instances[0]!.store)
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        instances[i % 3]!.store.folios.update(meta.id, {
          patch: {},
          files: { 'index.html': `<p>edit ${i}</p>` },
          commitMessage: `edit ${i}`,
          author: `instance ${i % 3}`,
        }),
      ),
    )
    await delivered()
    const numbers = results.map((r) => Number(r!.head.versionId.slice(1)))
    expect(new Set(numbers).size).toBe(100)
    expect(Math.min(...numbers)).toBe(2)
    expect(Math.max(...numbers)).toBe(101)
    // Every instance reads the same history: each version holds the files and message of the update answered with it.
    for (const { store } of instances) {
      const latest = (await store.folios.get(meta.id))!
      expect(latest.head).toBe(101)
      const history = await store.folios.history(latest)
      expect(history.map((m) => m.versionId)).toEqual(Array.from({ length: 101 }, (_, i) => `v${i + 1}`))
      for (const [i, result] of results.entries()) {
        const version = history[Number(result!.head.versionId.slice(1)) - 1]!
        expect(version.commitMessage).toBe(`edit ${i}`)
        expect((await store.folios.readFiles(meta.id, version))['index.html']).toBe(`<p>edit ${i}</p>`)
      }
    }
  })

  it('shows a version made on A in B’s get, list and views once B hears of it, and to B under the lock at once', async () => {
    const [a, b] = await start(2)
    const { meta } = await create(a!.store, 'Deck')
    await delivered()
    // B caches all of it.
    expect((await fullOf(b!.store, meta.id))!.versions).toHaveLength(1)
    expect((await listOf(b!.store, 'ws1')).map((f) => f.versionCount)).toEqual([1])
    const hearing = folioHeard(b!.store, meta.id)
    await a!.store.folios.update(meta.id, { patch: { title: 'Deck 2' }, files: { 'index.html': '<p>v2</p>' }, commitMessage: 'second', author: 'a' })
    await hearing
    expect((await b!.store.folios.get(meta.id))!.head).toBe(2)
    const full = (await fullOf(b!.store, meta.id))!
    expect(full.title).toBe('Deck 2')
    expect(full.versions.map((v) => v.files['index.html'])).toEqual(['<p>v1</p>', '<p>v2</p>'])
    expect(await listOf(b!.store, 'ws1')).toMatchObject([{ id: meta.id, title: 'Deck 2', versionCount: 2 }])

    // B hears nothing now: its cache still says v2, yet its next write, under the lock, builds on A's v3.
    b!.bus.disconnect()
    await a!.store.folios.update(meta.id, { patch: {}, files: { 'index.html': '<p>v3</p>' }, commitMessage: 'third', author: 'a' })
    expect(b!.store.folios.peek(meta.id)!.head).toBe(2)
    const next = await b!.store.folios.applyPatch(meta.id, {
      changes: [{ path: 'extra.html', bytes: Buffer.from('<p>x</p>') }],
      author: 'b',
      baseVersionId: 'v3',
    })
    expect(next!.head.versionId).toBe('v4')
    expect(Object.keys(next!.head.files).sort()).toEqual(['extra.html', 'index.html'])
    expect(b!.locks.staleCount.get(meta.id)).toBeGreaterThanOrEqual(1)
  })

  it('counts 1,000 beacons spread over three instances as exactly 1,000 views, and every comment and reaction once', async () => {
    const instances = await start(3)
    const { meta } = await create(instances[0]!.store)
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        instances[i % 3]!.store.engagement.recordBeacon(meta.id, { isInitial: true, sessionSeconds: 1, mobile: i % 2 === 0 }),
      ),
    )
    const comments = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        instances[i % 3]!.store.engagement.addComment(meta.id, { text: `c${i}`, author: `viewer ${i}`, versionId: 'v1', filename: 'index.html' }, limits),
      ),
    )
    await Promise.all(Array.from({ length: 90 }, (_, i) => instances[i % 3]!.store.engagement.react(meta.id, { add: { '👍': 1 }, owner: true })))
    expect(new Set(comments.map((c) => c!.id)).size).toBe(60)
    await delivered()
    for (const { store } of instances) {
      // Under the lock (a write) and from the feed (reads) alike, each instance sees every other's.
      await store.engagement.recordBeacon(meta.id, { isInitial: false, sessionSeconds: 0, mobile: false })
      expect(await store.engagement.analytics(meta.id)).toMatchObject({ views: 1000, mobileViews: 500, desktopViews: 500, totalTimeSeconds: 1000 })
      expect((await store.engagement.reactions(meta.id))['👍']).toBe(90)
      expect((await store.engagement.comments(meta.id)).map((c) => c.text).sort()).toEqual(Array.from({ length: 60 }, (_, i) => `c${i}`).sort())
    }
    // And what B shows viewers follows a comment made on A once B hears of it.
    const [a, b] = instances
    expect((await fullOf(b!.store, meta.id))!.comments).toHaveLength(60)
    await delivered()
    const hearing = engagementHeard(b!.store, meta.id)
    await a!.store.engagement.addComment(meta.id, { text: 'late', author: 'x', versionId: 'v1', filename: 'index.html' }, limits)
    await hearing
    expect((await fullOf(b!.store, meta.id))!.comments).toHaveLength(61)
    expect((await b!.store.engagement.openComments(meta.id, 'v1', 100)).map((c) => c.text)).toContain('late')
  })

  it('refuses on B a key rotated on A, and takes the new one', async () => {
    const [a, b] = await start(2)
    const { workspace, apiKey } = await a!.store.workspaces.create({ name: 'W', owner: { name: 'o' } })
    // B learns of the new workspace from the feed, or by walking the storage on the miss.
    expect(await b!.store.workspaces.refreshOnMiss(apiKey)).toBe(true)
    expect(b!.store.workspaces.principalOfKey(apiKey)?.workspaceId).toBe(workspace.id)
    const hearing = workspaceHeard(b!.store, workspace.id)
    const rotated = await a!.store.workspaces.rotateKey(workspace.id)
    await hearing
    expect(b!.store.workspaces.principalOfKey(apiKey)).toBeUndefined()
    await until(() => b!.store.workspaces.principalOfKey(rotated) !== undefined)
    expect(b!.store.workspaces.principalOfKey(rotated)?.workspaceId).toBe(workspace.id)
    expect(b!.store.workspaces.keyGeneration(workspace.id)).toBe(2)
    // A revocation too, and a walk on a miss never brings the old key back.
    const revoking = workspaceHeard(b!.store, workspace.id)
    await a!.store.workspaces.revokeKey(workspace.id)
    await revoking
    expect(b!.store.workspaces.principalOfKey(rotated)).toBeUndefined()
    expect(await b!.store.workspaces.refreshOnMiss(rotated)).toBe(false)
  })

  it('authenticates on B a workspace made on A that B never heard of, walking the storage at most once a period for any number of misses', async () => {
    const [a, b] = await start(2)
    b!.bus.disconnect()
    const { workspace, apiKey } = await a!.store.workspaces.create({ name: 'New', owner: { email: 'o@example.com', name: 'o' } })
    expect(b!.store.workspaces.principalOfKey(apiKey)).toBeUndefined()
    let walks = 0
    const storage = running!.storage as unknown as { getKeys: (base: string) => Promise<string[]> }
    const getKeys = storage.getKeys.bind(storage)
    storage.getKeys = (base: string) => {
      if (base === 'workspaces') walks++
      return getKeys(base)
    }
    // 200 wrong keys and the right one, all at once: one walk serves them all.
    const wrong = Array.from({ length: 200 }, (_, i) => `folio_live_${i.toString(16).padStart(48, '0')}`)
    const answers = await Promise.all([...wrong, apiKey].map((key) => b!.store.workspaces.refreshOnMiss(key)))
    expect(answers.filter(Boolean)).toHaveLength(1)
    expect(answers.at(-1)).toBe(true)
    expect(walks).toBe(1)
    expect(b!.store.workspaces.get(workspace.id)?.name).toBe('New')
    expect(b!.store.workspaces.member(workspace.id, 'o@example.com')?.role).toBe('owner')
    // Another burst right after waits for the next period: still one walk for all of it.
    const started = Date.now()
    await Promise.all(wrong.slice(0, 50).map((key) => b!.store.workspaces.refreshOnMiss(key)))
    expect(walks).toBe(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(500)
    // Something that is no key costs nothing.
    expect(await b!.store.workspaces.refreshOnMiss('not a key')).toBe(false)
    expect(walks).toBe(2)
  })

  it('takes a folio deleted on A away from B: get, views, list and engagement', async () => {
    const [a, b] = await start(2)
    const { meta } = await create(a!.store, 'Gone')
    await b!.store.engagement.recordBeacon(meta.id, { isInitial: true, sessionSeconds: 1, mobile: false })
    expect(await fullOf(b!.store, meta.id)).toBeDefined()
    expect(await listOf(b!.store, 'ws1')).toHaveLength(1)
    const hearing = folioHeard(b!.store, meta.id)
    expect(await a!.store.folios.delete(meta.id, 'ws1')).toBe(true)
    await hearing
    expect(await b!.store.folios.get(meta.id)).toBeUndefined()
    expect(await fullOf(b!.store, meta.id)).toBeUndefined()
    expect(await listOf(b!.store, 'ws1')).toEqual([])
    // A beacon B takes for it now finds no folio, under the lock, even when B heard nothing.
    expect((await b!.store.engagement.recordBeacon(meta.id, { isInitial: true, sessionSeconds: 1, mobile: false })).found).toBe(false)
  })

  it('finds a deleted folio gone under the lock on an instance that heard nothing', async () => {
    const [a, b] = await start(2)
    const { meta } = await create(a!.store)
    await b!.store.engagement.addComment(meta.id, { text: 'hi', author: 'x', versionId: 'v1', filename: 'index.html' }, limits)
    b!.bus.disconnect()
    await a!.store.folios.delete(meta.id, 'ws1')
    expect(b!.store.folios.peek(meta.id)).toBeDefined()
    expect(await b!.store.engagement.addComment(meta.id, { text: 'late', author: 'x', versionId: 'v1', filename: 'index.html' }, limits)).toBeUndefined()
    expect(await b!.store.folios.update(meta.id, { patch: { title: 'x' }, author: 'b' })).toBeUndefined()
  })

  it('handles its own messages once, and another’s once', async () => {
    const [a, b] = await start(2)
    const changesOnA: string[] = []
    const changesOnB: string[] = []
    a!.store.folios.onChange((_id, change) => changesOnA.push(change))
    b!.store.folios.onChange((_id, change) => changesOnB.push(change))
    const { meta } = await create(a!.store)
    await a!.store.folios.update(meta.id, { patch: { title: 'x' }, author: 'a' })
    await new Promise((r) => setTimeout(r, 50))
    expect(changesOnA).toEqual(['versions', 'meta'])
    expect(changesOnB).toEqual(['versions', 'meta'])
  })

  it('drops everything cached when messages may have been missed (gap), and tells onReset', async () => {
    const [a, b] = await start(2)
    const { meta } = await create(a!.store, 'Before')
    await b!.store.engagement.recordBeacon(meta.id, { isInitial: true, sessionSeconds: 1, mobile: false })
    expect((await fullOf(b!.store, meta.id))!.title).toBe('Before')
    b!.bus.disconnect()
    await a!.store.folios.update(meta.id, { patch: { title: 'After' }, author: 'a' })
    await a!.store.engagement.recordBeacon(meta.id, { isInitial: true, sessionSeconds: 1, mobile: false })
    const { workspace, apiKey } = await a!.store.workspaces.create({ name: 'Missed', owner: { name: 'o' } })
    await new Promise((r) => setTimeout(r, 20))
    // B missed all of it: its caches still say so.
    expect((await fullOf(b!.store, meta.id))!.title).toBe('Before')
    let resets = 0
    b!.store.changes!.onReset(() => resets++)
    const walked = workspaceHeard(b!.store, workspace.id)
    b!.bus.reconnect()
    expect(resets).toBe(1)
    expect(await fullOf(b!.store, meta.id)).toMatchObject({ title: 'After', analytics: { views: 2 } })
    await walked
    expect(b!.store.workspaces.principalOfKey(apiKey)?.workspaceId).toBe(workspace.id)
  })

  it('never lets two instances make two blobs deltas of each other (each ranks only the blobs it created)', async () => {
    const [a, b] = await start(2)
    const base = 'x'.repeat(8000)
    const one = Buffer.from(`${base}one`)
    const two = Buffer.from(`${base}two`)
    // A created `one`, B created `two`: each takes its own for the newer one.
    await a!.store.blobs.put(one, 'f1')
    await b!.store.blobs.put(two, 'f2')
    await Promise.all([a!.store.blobs.compact(hashBytes(two), hashBytes(one)), b!.store.blobs.compact(hashBytes(one), hashBytes(two))])
    const raw = async (hash: string) => ((await running!.storage.getItemRaw(`blobs:${hash.slice(0, 2)}:${hash}`)) as Buffer)[0]
    const encodings = [await raw(hashBytes(one)), await raw(hashBytes(two))]
    // One became a delta of the other, never both.
    expect(encodings.sort()).toEqual([0, 1])
    // A reader with empty caches rebuilds both contents from the storage.
    const reader = new BlobStore(running!.storage)
    expect((await reader.get(hashBytes(one))).equals(one)).toBe(true)
    expect((await reader.get(hashBytes(two))).equals(two)).toBe(true)
  })
})
