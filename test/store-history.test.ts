import { rm } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { hashBytes } from '../src/store/content/blob-store.js'
import { type FolioStore, openStore } from '../src/store/index.js'
import { keys } from '../src/store/keys.js'
import { makeDataDir } from './helpers/server.js'
import { createFolio, listFiles, newMeta } from './helpers/store.js'

/**
 * Packed history under adversity: background packing that runs late (a slow disk), storage
 * errors, imports, uploads into one head, deletions while packing runs, a crash between the
 * segment write and the release. The oracle: every version of every folio reads back exactly,
 * in the same process and after a restart, and nothing is left behind after deletion.
 */

const big = (tag: string, lines = 300) => Array.from({ length: lines }, (_, i) => `<p class="row">Row ${i} of the report ${i === 7 ? tag : ''}</p>`).join('\n')

async function open(dir?: string, logs: string[] = []): Promise<FolioStore> {
  const d = dir ?? (await makeDataDir())
  return openStore({ dataDir: d, log: (m) => logs.push(m) })
}

/** Reads every version of the folio and compares to the expected file maps. */
async function checkAll(store: FolioStore, id: string, expected: Array<Record<string, string>>) {
  const meta = (await store.folios.get(id))!
  const history = await store.folios.history(meta)
  const errors: string[] = []
  if (history.length !== expected.length) errors.push(`history length ${history.length} != ${expected.length}`)
  for (let i = 0; i < history.length; i++) {
    try {
      const files = await store.folios.readFiles(id, history[i]!)
      if (JSON.stringify(sortKeys(files)) !== JSON.stringify(sortKeys(expected[i]!))) errors.push(`v${i + 1} differs`)
    } catch (e) {
      errors.push(`v${i + 1}: ${(e as Error).message}`)
    }
  }
  return errors
}

const sortKeys = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)))

async function blobAndRefFiles(of: string | FolioStore) {
  return (await listFiles(of)).filter((f) => /^(blobs|refs)\//.test(f.path))
}

async function cleanupDir(dir: string) {
  await rm(dir, { recursive: true, force: true })
}

/**
 * Makes the next read of one content's blob (once armed) wait until released: a slow disk under
 * one version's background housekeeping, so later versions overtake it.
 */
function stallBlobRead(store: FolioStore, content: string) {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const storage = store.storage as unknown as { getItemRaw: (key: string, ...rest: unknown[]) => Promise<unknown> }
  const original = storage.getItemRaw.bind(storage)
  const key = keys.blob(hashBytes(Buffer.from(content)))
  let armed = false
  storage.getItemRaw = async (k: string, ...rest: unknown[]) => {
    const value = await original(k, ...rest)
    if (armed && k === key) {
      armed = false
      await gate
    }
    return value
  }
  return { arm: () => (armed = true), release }
}

/** Every version, checked in this process once housekeeping settled, then after a restart. */
async function checkHotAndCold(store: FolioStore, id: string, expected: Array<Record<string, string>>) {
  await store.folios.idle()
  const hot = await checkAll(store, id, expected)
  await store.close()
  const reopened = await open(store.dataDir)
  const cold = await checkAll(reopened, id, expected)
  await reopened.close()
  return { hot, cold }
}

/** 'ok', or the message it failed with. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e as Error).message,
  )
const until = async (cond: () => Promise<boolean>) => {
  for (let i = 0; i < 500 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 10))
}
const blobsOf = async (of: string | FolioStore) => (await listFiles(of)).filter((f) => f.path.startsWith('blobs/'))

describe('packing that runs late', () => {
  it('never writes a pack older than one written since (no delta loop, no dead end), whatever the order', async () => {
    const logs: string[] = []
    const store = await open(undefined, logs)
    const [X, Y, Z, W] = ['X', 'Y', 'Z', 'W'].map((t) => big(t)) as [string, string, string, string]
    const Q0 = 'q0 '.repeat(100)
    const Q1 = 'q1 '.repeat(100)
    const { meta } = await createFolio(store, { 'p.html': X, 'q.txt': Q0 })
    const id = meta.id
    // Slow I/O on one blob read of v2's housekeeping (stands for a version that changed many files).
    const stall = stallBlobRead(store, Q0)
    stall.arm()
    const open_ = stall.release
    const has = (c: string) => store.blobs.has(hashBytes(Buffer.from(c)))
    const expected: Array<Record<string, string>> = [{ 'p.html': X, 'q.txt': Q0 }]
    const put = async (p: string) => {
      const files = { 'p.html': p, 'q.txt': Q1 }
      expected.push(files)
      await store.folios.update(id, { patch: {}, files, author: 't' })
    }
    await put(Y) // v2: tidy packs X→{Y} ... then stalls on Q0
    await put(X) // v3
    await put(Z) // v4: X packed as X→{Z}, released
    await until(async () => !(await has(X)))
    await put(Y) // v5
    await put(X) // v6: X created again; Y packed as Y→{X}, released
    await until(async () => !(await has(Y)))
    await put(W) // v7: X packed as X→{W}, released
    await until(async () => !(await has(X)))
    open_()
    expect(await checkHotAndCold(store, id, expected)).toEqual({ hot: [], cold: [] })
    expect(logs).toEqual([])
  })
})

describe('the in-memory index of packed contents', () => {
  it('stays right when an older segment is rewritten late (an upload into an older head)', async () => {
    const store = await open()
    const [X, Y, W] = ['X', 'Y', 'W'].map((t) => big(t)) as [string, string, string]
    const Q0 = 'q0 '.repeat(100)
    const Q1 = 'q1 '.repeat(100)
    // 800 files of one shared content: every manifest is > 64 KB, so each version is its own segment.
    const filler = Object.fromEntries(Array.from({ length: 800 }, (_, i) => [`f/${i}.txt`, 'same']))
    const { meta } = await createFolio(store, { ...filler, 'p.html': X, 'q.txt': Q0 })
    const id = meta.id
    const stall = stallBlobRead(store, Q0)
    const open_ = stall.release
    const has = (c: string) => store.blobs.has(hashBytes(Buffer.from(c)))
    const expected: Array<Record<string, string>> = [{ ...filler, 'p.html': X, 'q.txt': Q0 }]
    const put = async (p: string) => {
      const files = { ...filler, 'p.html': p, 'q.txt': expected.at(-1)!['q.txt']! }
      expected.push(files)
      await store.folios.update(id, { patch: {}, files, author: 't' })
    }
    await put(Y) // v2 (s2): X packed X→{Y}, released
    await until(async () => !(await has(X)))
    // someone views the history: the packed index is built now
    await store.folios.readFiles(id, (await store.folios.manifest(id, 1))!)
    stall.arm()
    // an upload into v2 whose housekeeping is slow (it will write s2 late)
    await store.folios.mergeIntoHead(id, [{ path: 'q.txt', bytes: Buffer.from(Q1) }])
    expected[1] = { ...expected[1]!, 'q.txt': Q1 }
    await put(X) // v3 (s3): X created again; Y packed Y→{X}, released
    await until(async () => !(await has(Y)))
    await put(W) // v4 (s4): X packed X→{W}, released
    await until(async () => !(await has(X)))
    open_()
    expect(await checkHotAndCold(store, id, expected)).toEqual({ hot: [], cold: [] })
  })
})

async function folioWithPackedHistory() {
  const store = await open()
  const { meta } = await createFolio(store, { 'index.html': big('1') })
  await store.folios.update(meta.id, { patch: {}, files: { 'index.html': big('2') }, author: 't' })
  await store.folios.idle()
  const dir = store.dataDir
  await store.close()
  return { dir, id: meta.id }
}

function failOnce(store: any, method: string, match: (key: string) => boolean) {
  const orig = store.storage[method].bind(store.storage)
  let armed = true
  store.storage[method] = async (key: string, ...rest: unknown[]) => {
    if (armed && match(key)) {
      armed = false
      throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' })
    }
    return orig(key, ...rest)
  }
}

describe('a transient storage error does not stick', () => {
  it('a failed segment read while building the packed index: the next read and writes work', async () => {
    const { dir, id } = await folioWithPackedHistory()
    const first = await open(dir)
    const v1 = (await first.folios.manifest(id, 1))!
    await first.close()
    // A fresh process: reading v1 (packed) builds the index, and that segment read fails once.
    const store = await open(dir)
    failOnce(store, 'getItemRaw', (k) => k.includes(':history:'))
    expect(await outcome(store.folios.readFiles(id, v1))).toContain('EMFILE')
    expect(await outcome(store.folios.readFiles(id, v1))).toBe('ok')
    expect(await outcome(store.folios.update(id, { patch: {}, files: { 'index.html': big('3') }, author: 't' }))).toBe('ok')
    expect(await outcome(store.folios.update(id, { patch: {}, files: { 'index.html': big('4') }, author: 't' }))).toBe('ok')
    expect((await store.folios.get(id))!.head).toBe(4)
    await store.close()
  })

  it('a failed listing of the history folder: the next read and write work', async () => {
    const { dir, id } = await folioWithPackedHistory()
    const store = await open(dir)
    failOnce(store, 'getKeys', (k) => k.includes(':history'))
    expect(await outcome(store.folios.manifest(id, 2))).toContain('EMFILE')
    expect(await outcome(store.folios.manifest(id, 2))).toBe('ok')
    expect(await outcome(store.folios.update(id, { patch: {}, files: { 'index.html': big('3') }, author: 't' }))).toBe('ok')
    expect((await store.folios.readFiles(id, (await store.folios.manifest(id, 3))!))['index.html']).toBe(big('3'))
    await store.close()
  })
})

describe('space and safety', () => {
  it('packs the history of an imported folio (format-0 migration) as it does for updates', async () => {
    const store = await open()
    const versions = Array.from({ length: 30 }, (_, n) => ({
      commitMessage: `v${n}`,
      createdAt: new Date().toISOString(),
      author: 'a',
      files: { 'index.html': big(`e${n}`, 2000), 'a.css': `a{z-index:${n}}` },
    }))
    await store.folios.importFolio({ ...newMeta(), id: 'importedAbc1', createdAt: 'x', updatedAt: 'x' } as any, versions)
    await store.folios.idle()
    const blobs = await blobsOf(store)
    expect(
      await checkAll(
        store,
        'importedAbc1',
        versions.map((v) => v.files),
      ),
    ).toEqual([])
    // Same history through update(): how much it costs there.
    const { meta } = await createFolio(store, versions[0]!.files)
    for (const v of versions.slice(1)) await store.folios.update(meta.id, { patch: {}, files: v.files, author: 't' })
    await store.folios.idle()
    await store.close()
    expect(blobs.length).toBeLessThan(5)
  })

  it('keeps the head segment small however many uploads replace a file in one version', async () => {
    const store = await open()
    const { meta } = await createFolio(store, { 'index.html': 'hi' })
    const sizes: number[] = []
    for (let i = 0; i < 300; i++) {
      await store.folios.mergeIntoHead(meta.id, [{ path: 'up.txt', bytes: Buffer.from(`upload ${i} `.repeat(150)) }])
      await store.folios.idle()
      if (i % 100 === 99) sizes.push((await listFiles(store)).filter((f) => f.path.includes('/history/')).reduce((s, f) => s + f.size, 0))
    }
    expect(await checkAll(store, meta.id, [{ 'index.html': 'hi', 'up.txt': `upload 299 `.repeat(150) }])).toEqual([])
    await store.close()
    expect(sizes[2]).toBeLessThan(64 * 1024)
  })

  it('deletes a folio while its packing runs: nothing left behind, the other folio intact', async () => {
    for (let round = 0; round < 10; round++) {
      const logs: string[] = []
      const store = await open(undefined, logs)
      const shared = big('shared')
      const a = await createFolio(store, { 'index.html': shared, 's.css': 'a{}' })
      const b = await createFolio(store, { 'index.html': shared, 's.css': 'a{}' })
      const ops: Promise<unknown>[] = []
      for (let n = 0; n < 10; n++) {
        ops.push(store.folios.update(a.meta.id, { patch: {}, files: { 'index.html': big(`a${n}`), 's.css': `a{${n}}` }, author: 't' }))
        ops.push(store.folios.update(b.meta.id, { patch: {}, files: { 'index.html': big(`a${n}`), 's.css': `a{${n}}` }, author: 't' }))
      }
      ops.push(store.folios.delete(a.meta.id))
      ops.push(store.folios.update(b.meta.id, { patch: {}, restoreVersionId: 'v1', author: 't' }))
      await Promise.allSettled(ops)
      await store.folios.idle()
      const exp = [
        { 'index.html': shared, 's.css': 'a{}' },
        ...Array.from({ length: 10 }, (_, n) => ({ 'index.html': big(`a${n}`), 's.css': `a{${n}}` })),
        { 'index.html': shared, 's.css': 'a{}' },
      ]
      expect(await checkAll(store, b.meta.id, exp)).toEqual([])
      await store.folios.delete(b.meta.id)
      expect(await blobAndRefFiles(store)).toEqual([])
      expect(logs).toEqual([])
      await store.close()
      await cleanupDir(store.dataDir)
    }
  })

  it('a crash between the segment write and the release loses nothing; the kept blob goes with the folio', async () => {
    const store = await open()
    const dir = store.dataDir
    const { meta } = await createFolio(store, { 'index.html': big('1') })
    // make release fail (simulated kill) once
    const blobs = store.blobs as any
    const release = blobs.release.bind(blobs)
    blobs.release = async () => {
      throw new Error('killed')
    }
    await store.folios.update(meta.id, { patch: {}, files: { 'index.html': big('2') }, author: 't' })
    await store.folios.idle()
    blobs.release = release
    await store.close()
    const again = await open(dir)
    for (let n = 3; n < 6; n++) await again.folios.update(meta.id, { patch: {}, files: { 'index.html': big(`${n}`) }, author: 't' })
    await again.folios.idle()
    expect(
      await checkAll(
        again,
        meta.id,
        [1, 2, 3, 4, 5].map((n) => ({ 'index.html': big(`${n}`) })),
      ),
    ).toEqual([])
    await again.folios.delete(meta.id)
    expect(await blobAndRefFiles(again)).toEqual([])
    await again.close()
  })

  it('A→B→A→B, restores of packed versions, concurrent, with a second folio sharing and deleting', async () => {
    const logs: string[] = []
    const store = await open(undefined, logs)
    const A = big('A')
    const B = big('B')
    const f = await createFolio(store, { 'p.html': A, s: 'x' })
    const g = await createFolio(store, { 'p.html': A, s: 'x' })
    const exp: Array<Record<string, string>> = [{ 'p.html': A, s: 'x' }]
    for (let i = 0; i < 12; i++) {
      const c = i % 2 ? A : B
      exp.push({ 'p.html': c, s: `s${i % 3}` })
      void store.folios.update(f.meta.id, { patch: {}, files: exp.at(-1)!, author: 't' })
      if (i % 4 === 3) {
        exp.push({ ...exp[1]! })
        void store.folios.update(f.meta.id, { patch: {}, restoreVersionId: 'v2', author: 't' })
      }
      if (i === 5) void store.folios.delete(g.meta.id)
      if (i % 3 === 0) await new Promise((r) => setTimeout(r, 5))
    }
    await store.folios.idle()
    await new Promise((r) => setTimeout(r, 200))
    await store.folios.idle()
    expect(await checkAll(store, f.meta.id, exp)).toEqual([])
    const dir = store.dataDir
    await store.close()
    const again = await open(dir)
    expect(await checkAll(again, f.meta.id, exp)).toEqual([])
    await again.folios.delete(f.meta.id)
    expect(await blobAndRefFiles(again)).toEqual([])
    expect(logs).toEqual([])
    await again.close()
  })
})
