import { rm } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { type FolioStore, openStore, VersionConflictError, VersionNotFoundError } from '../src/store/index.js'
import { keys } from '../src/store/keys.js'
import { makeDataDir } from './helpers/server.js'
import { countStorageCalls, createFolio, listFiles } from './helpers/store.js'

/**
 * Group commit of versions (store/content/version-commits.ts): changes to one folio made while a commit
 * is on disk are committed together, in the order they came, each its own version. The tests
 * call the store directly so that what shares a commit is certain: every call made in one turn
 * of the event loop joins the same commit.
 */

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!()
})

async function freshStore(dataDir?: string): Promise<FolioStore> {
  const dir = dataDir ?? (await makeDataDir())
  const store = await openStore({ dataDir: dir, log: () => {} })
  cleanup.push(async () => {
    await store.close().catch(() => {})
    if (!dataDir) await rm(dir, { recursive: true, force: true })
  })
  return store
}

const page = (n: number) => Array.from({ length: 800 }, (_, i) => `<p class="row">Row ${i} of the report${i === 400 ? ` (edited ${n})` : ''}</p>`).join('\n')

/** Writes of one key, counted while `run` runs. */
async function writesOf(store: FolioStore, key: string, run: () => Promise<unknown>): Promise<number> {
  let writes = 0
  const storage = store.storage as unknown as Record<'setItem' | 'setItemRaw', (k: string, ...rest: unknown[]) => Promise<void>>
  const originals = { setItem: storage.setItem, setItemRaw: storage.setItemRaw }
  for (const method of ['setItem', 'setItemRaw'] as const) {
    storage[method] = (k: string, ...rest: unknown[]) => {
      if (k === key) writes++
      return originals[method].call(store.storage, k, ...rest)
    }
  }
  try {
    await run()
  } finally {
    Object.assign(storage, originals)
  }
  return writes
}

describe('group-committed versions', () => {
  it('applies a batch of files, a restore, a metadata change and patches in order, refusing the patch whose base went stale at its turn', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': 'first', 'site.css': 'body{}' })
    const id = meta.id
    let settled!: PromiseSettledResult<unknown>[]
    // One meta.json write for the six of them: they share one commit.
    const metaWrites = await writesOf(store, keys.meta(id), async () => {
      settled = await Promise.allSettled([
        store.folios.update(id, { patch: {}, files: { 'index.html': 'second' }, commitMessage: 'files', author: 'ann' }),
        store.folios.update(id, { patch: {}, restoreVersionId: 'v1', author: 'bob' }),
        store.folios.update(id, { patch: { title: 'Renamed' }, author: 'cy' }),
        // Its base was the latest when it came, no longer at its turn (v3 by then).
        store.folios.applyPatch(id, { changes: [{ path: 'index.html', bytes: Buffer.from('stale') }], baseVersionId: 'v1', author: 'dee' }),
        store.folios.applyPatch(id, { changes: [{ path: 'extra.txt', bytes: Buffer.from('added') }], baseVersionId: 'v3', message: 'on v3', author: 'eve' }),
        store.folios.update(id, { patch: {}, restoreVersionId: 'v9', author: 'fay' }),
      ])
    })
    expect(metaWrites).toBe(1)
    const [files, restore, rename, stale, patch, missing] = settled.map((s) => (s.status === 'fulfilled' ? s.value : s.reason)) as any[]
    expect(files.head.versionId).toBe('v2')
    expect(restore.head).toMatchObject({ versionId: 'v3', commitMessage: 'Restore v1', author: 'bob' })
    // Each answer is the folio as that change left it.
    expect(rename.meta).toMatchObject({ title: 'Renamed', head: 3 })
    expect(files.meta.title).toBe('T')
    expect(stale).toBeInstanceOf(VersionConflictError)
    expect(stale).toMatchObject({ expected: 'v1', latest: 'v3' })
    expect(patch).toMatchObject({ changed: true, counts: { added: 1, updated: 0, deleted: 0 } })
    expect(patch.head).toMatchObject({ versionId: 'v4', commitMessage: 'on v3', author: 'eve' })
    expect(missing).toBeInstanceOf(VersionNotFoundError)

    const after = (await store.folios.get(id))!
    expect(after).toMatchObject({ head: 4, title: 'Renamed' })
    const history = await store.folios.history(after)
    expect(history.map((v) => [v.versionId, v.author])).toEqual([
      ['v1', 'test'],
      ['v2', 'ann'],
      ['v3', 'bob'],
      ['v4', 'eve'],
    ])
    const createdAt = history.map((v) => v.createdAt)
    expect([...createdAt].sort()).toEqual(createdAt)
    expect(await store.folios.readFiles(id, history[1]!)).toEqual({ 'index.html': 'second' })
    expect(await store.folios.readFiles(id, history[2]!)).toEqual({ 'index.html': 'first', 'site.css': 'body{}' })
    expect(await store.folios.readFiles(id, history[3]!)).toEqual({ 'index.html': 'first', 'site.css': 'body{}', 'extra.txt': 'added' })
    // The summaries lists show, from the metadata alone, match the history.
    expect(await store.folios.versionSummaries(after)).toEqual(history.map(({ files: _, ...summary }) => summary))
  })

  it('tells listeners of a commit once: its versions, and its metadata change too when it holds one', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': 'x' })
    const heard: string[] = []
    store.folios.onChange((id, change) => id === meta.id && heard.push(change))
    store.folios.onNewVersion((id) => id === meta.id && heard.push('new version'))
    await Promise.all([
      store.folios.update(meta.id, { patch: {}, files: { 'index.html': 'y' }, author: 'a' }),
      store.folios.update(meta.id, { patch: { status: 'published' }, author: 'a' }),
      store.folios.update(meta.id, { patch: {}, files: { 'index.html': 'z' }, author: 'a' }),
    ])
    // Share pages hear the new status (a meta event) and the new version.
    expect(heard).toEqual(['meta', 'versions', 'new version'])
    heard.length = 0
    await Promise.all([
      store.folios.update(meta.id, { patch: { title: 'A' }, author: 'a' }),
      store.folios.update(meta.id, { patch: { title: 'B' }, author: 'a' }),
    ])
    expect(heard).toEqual(['meta'])
    expect((await store.folios.get(meta.id))!.title).toBe('B')
  })

  it('commits 40 concurrent versions in a few writes, each its own version with its files, message and author', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': page(-1) })
    const calls = countStorageCalls(store)
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.folios.update(meta.id, {
          patch: {},
          files: { 'index.html': page(i), [`p${i}.txt`]: `page ${i}` },
          commitMessage: `edit ${i}`,
          author: `writer ${i}`,
        }),
      ),
    )
    // In the order they came: the i-th call is v(i+2).
    expect(results.map((r) => r!.head.versionId)).toEqual(Array.from({ length: 40 }, (_, i) => `v${i + 2}`))
    // One metadata write for all 40.
    expect(calls.snapshot().setItem).toBe(1)
    await store.folios.idle()
    const dataDir = store.dataDir
    await store.close()
    // A fresh process (no caches) reads every version back exactly.
    const reopened = await freshStore(dataDir)
    const after = (await reopened.folios.get(meta.id))!
    expect(after.head).toBe(41)
    const history = await reopened.folios.history(after)
    for (let i = 0; i < 40; i++) {
      const version = history[i + 1]!
      expect(version).toMatchObject({ versionId: `v${i + 2}`, commitMessage: `edit ${i}`, author: `writer ${i}` })
      expect(await reopened.folios.readFiles(meta.id, version)).toEqual({ 'index.html': page(i), [`p${i}.txt`]: `page ${i}` })
    }
    // The housekeeping saw every version of the batch: the pages they replaced are packed into
    // the history, only the latest is a blob file (plus the small pages, stored once each).
    const blobs = (await listFiles(reopened)).filter((f) => f.path.startsWith('blobs/'))
    expect(blobs.filter((f) => f.size > 10_000)).toHaveLength(1)
  })

  it('keeps the version log right when one commit closes log chunks in the middle of its versions', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': 'x' })
    const long = (i: number) => `${'a long commit message that fills the log tail quickly '.repeat(8)}#${i}`
    // Up to just under the 8 KB tail, one at a time.
    for (let i = 0; i < 14; i++) await store.folios.update(meta.id, { patch: {}, files: { 'index.html': `one ${i}` }, commitMessage: long(i), author: 'a' })
    const before = (await store.folios.get(meta.id))!
    // One commit of 30 versions closes the tail two or three times on the way.
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        store.folios.update(meta.id, { patch: {}, files: { 'index.html': `batch ${i}` }, commitMessage: long(100 + i), author: 'b' }),
      ),
    )
    const after = (await store.folios.get(meta.id))!
    expect(after.logStart).toBeGreaterThan(before.logStart + 30 / 2)
    const dataDir = store.dataDir
    await store.close()
    const reopened = await freshStore(dataDir)
    const fresh = (await reopened.folios.get(meta.id))!
    const history = await reopened.folios.history(fresh)
    expect(history).toHaveLength(45)
    expect(await reopened.folios.versionSummaries(fresh)).toEqual(history.map(({ files: _, ...summary }) => summary))
    expect(history.slice(15).map((v) => v.commitMessage)).toEqual(Array.from({ length: 30 }, (_, i) => long(100 + i)))
  })

  it('lets a folio deleted while its versions wait keep nothing of them', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': 'keep out' })
    const other = await createFolio(store, { 'index.html': 'the other folio' })
    const writes = Array.from({ length: 5 }, (_, i) =>
      store.folios.update(meta.id, { patch: {}, files: { 'index.html': `late ${i} ${'x'.repeat(5000)}` }, author: 'a' }),
    )
    const deleted = store.folios.delete(meta.id)
    // Each write was answered "no such folio", or committed before the delete (then purged with it).
    for (const result of await Promise.all(writes)) if (result) expect(result.meta.id).toBe(meta.id)
    expect(await deleted).toBe(true)
    await store.folios.idle()
    await store.writeBack()
    const left = (await listFiles(store)).filter((f) => /^(blobs|refs)\//.test(f.path))
    // Only the other folio's page and its reference remain.
    expect(left.map((f) => f.path.split('/')[0])).toEqual(['blobs', 'refs'])
    expect(left[1]!.path.endsWith(`~${other.meta.id}`)).toBe(true)
    expect(await store.folios.readFiles(other.meta.id, other.head)).toEqual({ 'index.html': 'the other folio' })
  })

  it('never makes a blob a delta against an older one: versions stored at once may reach the housekeeping in either order', async () => {
    const store = await freshStore()
    const older = Buffer.from(page(1))
    const newer = Buffer.from(page(2))
    const a = await store.blobs.put(older, 'owner')
    const b = await store.blobs.put(newer, 'owner')
    const encoding = async (hash: string) => ((await store.storage.getItemRaw(keys.blob(hash))) as Buffer)[0]
    // The newer against the older would let the older later rest on the newer: a loop.
    await store.blobs.compact(b.hash, a.hash)
    expect(await encoding(b.hash)).toBe(0)
    await store.blobs.compact(a.hash, b.hash)
    expect(await encoding(a.hash)).toBe(1)
    const dataDir = store.dataDir
    await store.close()
    const reopened = await freshStore(dataDir)
    expect(await reopened.blobs.get(a.hash)).toEqual(older)
    expect(await reopened.blobs.get(b.hash)).toEqual(newer)
  })
})
