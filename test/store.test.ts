import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createStorage } from 'unstorage'
import { afterEach, describe, expect, it } from 'vitest'
import { durableFsDriver } from '../src/store/engine/durable-fs-driver.js'
import { CURRENT_FORMAT, DataDirBusyError, type FolioStore, FormatTooNewError, openStore } from '../src/store/index.js'
import { keys } from '../src/store/keys.js'
import { makeDataDir } from './helpers/server.js'
import { countStorageCalls, createFolio, listFiles } from './helpers/store.js'

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

const bigPage = (n: number, lines = 1500) =>
  Array.from({ length: lines }, (_, i) => `<p class="row">Row ${i} of the report${i === n ? ` (edited ${n})` : ''}</p>`).join('\n')

describe('durable fs driver', () => {
  it('never lets a reader see a partial file while writers replace it', async () => {
    const dir = await makeDataDir()
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    // Checkpoints every few ms: reads come from memory and from the files written back meanwhile.
    const storage = createStorage({ driver: durableFsDriver({ base: dir, checkpointAfterMs: 5 }) })
    const values = Array.from({ length: 8 }, (_, i) => String(i).repeat(200_000 + i))
    await storage.setItem('a:b', values[0]!)
    let stop = false
    const reads: Array<string | null> = []
    const reader = (async () => {
      while (!stop) {
        reads.push((await storage.getItem('a:b')) as string | null)
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    for (let round = 0; round < 5; round++) await Promise.all(values.map((v) => storage.setItem('a:b', v)))
    stop = true
    await reader
    expect(reads.length).toBeGreaterThan(5)
    for (const r of reads) expect(values).toContain(String(r))
  })

  it('lists only the folder a base names, and refuses keys that could escape the data dir', async () => {
    const dir = await makeDataDir()
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    const storage = createStorage({ driver: durableFsDriver({ base: dir }) })
    await storage.setItem('folios:a:meta.json', '{}')
    await storage.setItem('folios:a:versions:v1.json', '{}')
    await storage.setItem('folios:b:meta.json', '{}')
    expect((await storage.getKeys('folios:a')).sort()).toEqual(['folios:a:meta.json', 'folios:a:versions:v1.json'])
    // unstorage already refuses '..'; the driver refuses on its own too, and keeps its temp dir private.
    const driver = durableFsDriver({ base: dir })
    await expect(Promise.resolve().then(() => driver.setItem!('folios:..:x', '1', {}))).rejects.toThrow(/unsafe/)
    await expect(Promise.resolve().then(() => driver.getItem('.tmp:x', {}))).rejects.toThrow(/unsafe/)
  })
})

describe('blobs: content addressing, reverse deltas, reclaiming', () => {
  it('stores one copy of content shared by versions and folios, and reclaims it when the last folio goes', async () => {
    const store = await freshStore()
    const shared = 'shared content '.repeat(1000)
    const a = await createFolio(store, { 'index.html': shared, 'a.css': 'a{}' })
    const b = await createFolio(store, { 'index.html': shared })
    await store.folios.update(a.meta.id, { patch: {}, files: { 'index.html': shared, 'a.css': 'a{color:red}' }, author: 't' })
    const blobFiles = async () => (await listFiles(store)).filter((f) => f.path.startsWith('blobs/'))
    expect(await blobFiles()).toHaveLength(3) // shared page, a.css v1, a.css v2
    await store.folios.delete(a.meta.id)
    expect(await blobFiles()).toHaveLength(1) // b still holds the shared page
    await store.folios.delete(b.meta.id)
    const left = await listFiles(store)
    expect(left.filter((f) => /^(blobs|refs|folios|trash)\//.test(f.path))).toEqual([])
  })

  it('deletes folios of many files, several at once, reclaiming every blob (shard folders empty concurrently)', async () => {
    const store = await freshStore()
    const manyFiles = (tag: string) => Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}.txt`, `${tag} content ${i}`]))
    const folios = await Promise.all(['a', 'b', 'c'].map((tag) => createFolio(store, manyFiles(tag))))
    expect(await Promise.all(folios.map((f) => store.folios.delete(f.meta.id)))).toEqual([true, true, true])
    const left = await listFiles(store)
    expect(left.filter((f) => /^(blobs|refs|folios|trash|workspaces)\//.test(f.path))).toEqual([])
  })

  it('keeps a history of one-line edits as small reverse deltas packed in a few files, every version exact', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': bigPage(-1), 'site.css': 'h1 { color: teal }' })
    const firstCopy = bigPage(-1).length
    const filesBefore = (await listFiles(store)).length
    for (let n = 0; n < 60; n++)
      await store.folios.update(meta.id, { patch: {}, files: { 'index.html': bigPage(n), 'site.css': `h1 { color: #${n}${n} }` }, author: 't' })
    await store.folios.idle()
    const files = await listFiles(store)
    const bytes = files.filter((f) => f.path.startsWith('blobs/') || f.path.includes('/history/')).reduce((s, f) => s + f.size, 0)
    // One full copy of the latest, plus per version its manifest (~330 bytes) and the replaced
    // contents packed small (a base64 delta of ~140 bytes, the old CSS whole).
    expect(bytes).toBeLessThan(firstCopy + 60 * 700)
    // 60 versions of two files: not 120 manifests and deltas of a disk block each, a few segments.
    expect(files.length - filesBefore).toBeLessThan(10)
    expect(files.filter((f) => f.path.startsWith('blobs/'))).toHaveLength(2)
    const dataDir = store.dataDir
    await store.close()
    // A fresh process (no caches) reads every version back through the chain.
    const reopened = await freshStore(dataDir)
    const full = JSON.parse((await reopened.views.full(meta.id)) as string)
    expect(full.versions).toHaveLength(61)
    expect(full.versions[0].files['index.html']).toBe(bigPage(-1))
    for (let n = 0; n < 60; n++) expect(full.versions[n + 1].files['index.html']).toBe(bigPage(n))
  })

  it('stores a restored old version whole again, so the latest never reads through a long chain', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': bigPage(-1) })
    for (let n = 0; n < 40; n++) await store.folios.update(meta.id, { patch: {}, files: { 'index.html': bigPage(n) }, author: 't' })
    await store.folios.idle()
    const v1 = (await store.folios.manifest(meta.id, 1))!.files['index.html']!.h
    expect(await store.storage.hasItem(keys.blob(v1))).toBe(false) // packed in the history
    await store.folios.update(meta.id, { patch: {}, restoreVersionId: 'v1', author: 't' })
    await store.folios.idle()
    expect(((await store.storage.getItemRaw(keys.blob(v1))) as Buffer)[0]).toBe(0) // a whole blob again
    const full = JSON.parse((await store.views.full(meta.id)) as string)
    expect(full.versions.at(-1).files['index.html']).toBe(bigPage(-1))
    expect(full.versions[20].files['index.html']).toBe(bigPage(19))
    await store.folios.delete(meta.id)
    expect((await listFiles(store)).filter((f) => /^(blobs|refs)\//.test(f.path))).toEqual([])
  })

  it('keeps old contents readable when another folio that shared them is deleted, and restores them', async () => {
    const store = await freshStore()
    const shared = bigPage(-1)
    const f = await createFolio(store, { 'index.html': shared, 'a.css': 'a{}' })
    const g = await createFolio(store, { 'index.html': shared, 'a.css': 'a{}' })
    for (let n = 0; n < 5; n++)
      await store.folios.update(f.meta.id, { patch: {}, files: { 'index.html': bigPage(n), 'a.css': `a{z-index:${n}}` }, author: 't' })
    await store.folios.idle()
    // F packed its v1 contents and let go of them; G still holds the blobs.
    await store.folios.delete(g.meta.id)
    const v1 = (await store.folios.manifest(f.meta.id, 1))!
    expect(await store.blobs.has(v1.files['index.html']!.h)).toBe(false)
    expect(await store.folios.readFiles(f.meta.id, v1)).toEqual({ 'index.html': shared, 'a.css': 'a{}' })
    // A restore makes them blobs of F's again: a fresh process reads the latest without the history.
    await store.folios.update(f.meta.id, { patch: {}, restoreVersionId: 'v1', author: 't' })
    await store.folios.idle()
    expect(await store.blobs.has(v1.files['index.html']!.h)).toBe(true)
    expect(await store.blobs.has(v1.files['a.css']!.h)).toBe(true)
    const dataDir = store.dataDir
    await store.close()
    const reopened = await freshStore(dataDir)
    const full = JSON.parse((await reopened.views.full(f.meta.id)) as string)
    expect(full.versions.map((v: any) => v.files['a.css'])).toEqual([
      'a{}',
      'a{z-index:0}',
      'a{z-index:1}',
      'a{z-index:2}',
      'a{z-index:3}',
      'a{z-index:4}',
      'a{}',
    ])
    expect(full.versions.at(-1).files['index.html']).toBe(shared)
    expect(full.versions[3].files['index.html']).toBe(bigPage(2))
  })

  it('reads a folio written before segments (one manifest file per version) and goes on from it', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': bigPage(-1) })
    // Rewrite v1 the way format 1 stored it.
    const v1 = (await store.folios.manifest(meta.id, 1))!
    const dataDir = store.dataDir
    await store.close()
    await rm(join(dataDir, 'folios', meta.id, 'history'), { recursive: true })
    await mkdir(join(dataDir, 'folios', meta.id, 'versions'), { recursive: true })
    await writeFile(join(dataDir, 'folios', meta.id, 'versions', 'v1.json'), JSON.stringify(v1))
    await writeFile(join(dataDir, 'format.json'), JSON.stringify({ format: 1, updatedAt: new Date().toISOString() }))

    const reopened = await freshStore(dataDir)
    await reopened.writeBack()
    expect(JSON.parse(await readFile(join(dataDir, 'format.json'), 'utf8')).format).toBe(CURRENT_FORMAT)
    for (let n = 0; n < 3; n++) await reopened.folios.update(meta.id, { patch: {}, files: { 'index.html': bigPage(n) }, author: 't' })
    await reopened.folios.idle()
    const full = JSON.parse((await reopened.views.full(meta.id)) as string)
    expect(full.versions.map((v: any) => v.files['index.html'])).toEqual([bigPage(-1), bigPage(0), bigPage(1), bigPage(2)])
    const files = (await listFiles(reopened)).map((f) => f.path).filter((p) => p.startsWith(`folios/${meta.id}/`))
    expect(files).toContain(`folios/${meta.id}/versions/v1.json`)
    expect(files).toContain(`folios/${meta.id}/history/s2.json`)
  })

  it('keeps binary files (data URLs) as bytes and gives back the same string', async () => {
    const store = await freshStore()
    const png = `data:image/png;base64,${Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 250]).toString('base64')}`
    const { meta } = await createFolio(store, { 'logo.png': png, 'odd.txt': 'data:image/png;base64,not canonical!!' })
    const manifest = (await store.folios.manifest(meta.id, 1))!
    expect(manifest.files['logo.png']).toMatchObject({ s: 8, m: 'image/png' })
    expect(manifest.files['odd.txt']!.m).toBeUndefined()
    expect(await store.folios.readFiles(meta.id, manifest)).toEqual({ 'logo.png': png, 'odd.txt': 'data:image/png;base64,not canonical!!' })
  })
})

describe('write cost', () => {
  it('of a comment, and of resolving one, does not grow with the number of comments', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': 'x' })
    const limits = { maxComments: 5000, maxBytes: 64 * 1024 * 1024 }
    const add = (text: string) => store.engagement.addComment(meta.id, { text, author: 'Ann', versionId: 'v1', filename: 'index.html', x: 1, y: 2 }, limits)
    const calls = countStorageCalls(store)
    const costOf = async (n: number) => {
      calls.reset()
      const made = await add(`comment ${n} ${'t'.repeat(400)}`)
      await store.engagement.moderateComment(meta.id, made!.id, { kind: 'change', resolved: true }, { owner: false }, 'anyone')
      return { calls: calls.snapshot(), bytes: calls.bytesWritten() }
    }
    await costOf(0)
    const early = await costOf(1)
    for (let i = 0; i < 2000; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => add(`filler ${i + j} ${'f'.repeat(400)}`)))
    const late = await costOf(2)
    expect(late.calls).toEqual(early.calls)
    // Two writes of at most one 64 KB segment each; the 2,000 comments take ~1 MB.
    expect(late.bytes).toBeLessThan(2 * (64 * 1024 + 1024))
    expect((await store.engagement.commentSize(meta.id)).bytes).toBeGreaterThan(900 * 1024)
  })

  it('does not grow with the number of versions', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': bigPage(-1, 200) })
    const calls = countStorageCalls(store)
    // A version's background work too: the packing, and the re-anchoring of its pins (which
    // reads where the folio's comments are once, then has it cached).
    const costOfOneWrite = async (n: number) => {
      await Promise.all([store.folios.idle(), store.engagement.idle()])
      calls.reset()
      await store.folios.update(meta.id, { patch: {}, files: { 'index.html': bigPage(n, 200) }, author: 't' })
      await Promise.all([store.folios.idle(), store.engagement.idle()])
      return calls.snapshot()
    }
    await costOfOneWrite(0) // warm the caches, so both measurements compare like with like
    const early = await costOfOneWrite(1)
    for (let n = 2; n < 150; n++) await store.folios.update(meta.id, { patch: {}, files: { 'index.html': bigPage(n, 200) }, author: 't' })
    const late = await costOfOneWrite(150)
    expect(late).toEqual(early)
  })

  it('does not grow with the number of folios, for reads and writes of one folio', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': 'one' })
    const calls = countStorageCalls(store)
    const costOf = async (n: number) => {
      await store.folios.idle()
      calls.reset()
      await store.folios.update(meta.id, { patch: {}, files: { 'index.html': `edit ${n}` }, author: 't' })
      // The version's housekeeping first: whether the read below finds the replaced content
      // still a cached blob, or reads it from its pack, would depend on which ran first.
      await store.folios.idle()
      await store.engagement.react(meta.id, { set: { '👍': n }, owner: true })
      await store.views.full(meta.id)
      await store.folios.idle()
      return calls.snapshot()
    }
    await costOf(0) // warm the caches, so both measurements compare like with like
    const few = await costOf(1)
    for (let i = 0; i < 300; i++) await createFolio(store, { 'index.html': `folio ${i}` })
    expect(await costOf(2)).toEqual(few)
  })
})

describe('start-up: lock, migrations, recovery', () => {
  it('refuses a second server on the same data dir, and takes over the lock of a dead one', async () => {
    const dir = await makeDataDir()
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    const store = await openStore({ dataDir: dir, log: () => {} })
    await expect(openStore({ dataDir: dir, log: () => {} })).rejects.toBeInstanceOf(DataDirBusyError)
    await store.close()
    await writeFile(join(dir, 'folio.lock'), '999999999')
    const again = await openStore({ dataDir: dir, log: () => {} })
    await again.close()
  })

  it('stamps a new data dir with the current format, and refuses one from a newer folio', async () => {
    const store = await freshStore()
    await store.writeBack()
    const stamp = JSON.parse(await readFile(join(store.dataDir, 'format.json'), 'utf8'))
    expect(stamp.format).toBe(CURRENT_FORMAT)
    const dir = await makeDataDir()
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    await writeFile(join(dir, 'format.json'), JSON.stringify({ format: 99 }))
    const error = await openStore({ dataDir: dir, log: () => {} }).catch((e) => e)
    expect(error).toBeInstanceOf(FormatTooNewError)
    expect(error.message).toMatch(/newer folio/)
  })

  it('migrates a legacy database.json (format 0) on first start, keeping ids, history and engagement', async () => {
    const dir = await makeDataDir()
    const legacy = {
      projects: [
        {
          id: 'legacyDeck01',
          title: 'Old deck',
          description: 'From the old server',
          createdAt: '2025-01-01T00:00:00.000Z',
          updatedAt: '2025-02-01T00:00:00.000Z',
          status: 'published',
          projectMode: 'deck',
          versions: [
            { versionId: 'v1', commitMessage: 'first', createdAt: '2025-01-01T00:00:00.000Z', author: 'ann', files: { 'index.html': '<h1>1</h1>' } },
            {
              versionId: 'v2',
              commitMessage: 'second',
              createdAt: '2025-01-02T00:00:00.000Z',
              author: 'bob',
              files: { 'index.html': '<h1>2</h1>', 'a.css': 'a{}' },
            },
          ],
          comments: [
            {
              id: 'c_1',
              author: 'Guest',
              text: 'Nice',
              createdAt: '2025-01-03T00:00:00.000Z',
              versionId: 'v2',
              filename: 'index.html',
              resolved: false,
              x: 10,
              y: 20,
            },
          ],
          reactions: { '👍': 3, '🙃': 9 },
          analytics: { views: 7, totalTimeSeconds: 70, avgTimeSeconds: 10, mobileViews: 2, desktopViews: 5 },
        },
      ],
    }
    await writeFile(join(dir, 'database.json'), JSON.stringify(legacy))
    const store = await freshStore(dir)
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    const folio = JSON.parse((await store.views.full('legacyDeck01')) as string)
    expect(folio).toMatchObject({
      title: 'Old deck',
      status: 'published',
      createdAt: '2025-01-01T00:00:00.000Z',
      latestVersionId: 'v2',
      reactions: { '👍': 3 },
    })
    expect(folio.versions.map((v: any) => [v.versionId, v.author, v.files])).toEqual([
      ['v1', 'ann', { 'index.html': '<h1>1</h1>' }],
      ['v2', 'bob', { 'index.html': '<h1>2</h1>', 'a.css': 'a{}' }],
    ])
    expect(folio.comments[0].text).toBe('Nice')
    expect(folio.analytics.views).toBe(7)
    await store.writeBack()
    expect(JSON.parse(await readFile(join(dir, 'format.json'), 'utf8')).format).toBe(CURRENT_FORMAT)
    expect(JSON.parse(await readFile(join(dir, 'database.imported.json'), 'utf8'))).toEqual(legacy)
    await expect(readFile(join(dir, 'database.json'))).rejects.toThrow()
  })

  it('moves a comments.json (format 4 and older) into segments, keeping ids and never giving one again', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': 'x' })
    const dataDir = store.dataDir
    await store.close()
    const c = (id: unknown, text: string) => ({
      id,
      text,
      author: 'Ann',
      createdAt: '2025-03-01T00:00:00.000Z',
      versionId: 'v1',
      filename: 'index.html',
      resolved: false,
    })
    const legacy = [
      c('c_1700000000000', 'first'),
      c('c_1700000000005', 'newest'),
      c('c_1700000000002', 'middle'),
      c('c_1700000000002', 'same id'),
      c('imported-7', 'foreign id'),
    ]
    await writeFile(join(dataDir, 'folios', meta.id, 'comments.json'), JSON.stringify(legacy))
    await writeFile(join(dataDir, 'format.json'), JSON.stringify({ format: 4, updatedAt: new Date().toISOString() }))

    const logs: string[] = []
    const reopened = await openStore({ dataDir, log: (m) => logs.push(m) })
    cleanup.push(() => reopened.close())
    await reopened.writeBack()
    expect(JSON.parse(await readFile(join(dataDir, 'format.json'), 'utf8')).format).toBe(CURRENT_FORMAT)
    expect(logs).toEqual(['Moved the comments of 1 folio(s) into segments (data format 5); 2 comment(s) without a usable id got a new one.'])
    const comments = await reopened.engagement.comments(meta.id)
    expect(comments.map((x) => [x.id, x.text])).toEqual([
      ['c_1700000000000', 'first'],
      ['c_1700000000002', 'middle'],
      ['c_1700000000005', 'newest'],
      ['c_1740787200000', 'same id'],
      ['c_1740787200001', 'foreign id'],
    ])
    const files = (await listFiles(reopened)).map((f) => f.path).filter((p) => p.startsWith(`folios/${meta.id}/comments`))
    expect(files).toEqual([`folios/${meta.id}/comments/s1700000000000.json`])
    // Deleting the newest does not free its id.
    await reopened.engagement.moderateComment(meta.id, 'c_1740787200001', { kind: 'delete' }, { owner: true }, 'anyone')
    const next = await reopened.engagement.addComment(
      meta.id,
      { text: 'new', author: 'Bo', versionId: 'v1', filename: 'index.html' },
      { maxComments: 10, maxBytes: 1e6 },
      5,
    )
    expect(next!.id).toBe('c_1740787200002')
  })

  it('finishes a deletion that a crash interrupted', async () => {
    const store = await freshStore()
    const { meta } = await createFolio(store, { 'index.html': 'to be deleted' })
    // What delete() has durably done when the process dies right after its commit point:
    const blobKeys = await store.storage.getKeys(keys.folioBlobs(meta.id))
    await store.storage.setItem(keys.trash(meta.id), JSON.stringify({ id: meta.id, workspaceId: 'local', hashes: blobKeys.map((k) => k.split(':').pop()) }))
    await store.storage.removeItem(keys.meta(meta.id))
    const dataDir = store.dataDir
    await store.close()
    const reopened = await freshStore(dataDir)
    expect(await reopened.folios.listIds('local')).toEqual([])
    expect((await listFiles(reopened)).filter((f) => /^(blobs|refs|folios|trash)\//.test(f.path))).toEqual([])
  })
})
