import { randomBytes } from 'node:crypto'
import { createStorage, type Driver } from 'unstorage'
import { expect, it } from 'vitest'
import { BlobStore } from '../../src/store/content/blob-store.js'
import { FolioRepository } from '../../src/store/repositories/folio-repository.js'
import { clearPrefix, readJson, writeJson } from '../../src/store/engine/json-io.js'
import { KeyedMutex } from '../../src/store/coordination/keyed-mutex.js'
import { keys } from '../../src/store/keys.js'
import { newMeta } from './store.js'

/**
 * What every storage driver of the store must do, whatever keeps the bytes (durable-fs-driver.ts,
 * store/pg/kv-driver.ts): the calls and options the repositories make, through unstorage as they
 * make them, and the driver directly where unstorage would change the key (it turns `\` into `:`).
 * `driver()` is a driver on a fresh, empty store; `another()` a second driver on the same data,
 * as a restarted instance (or a second one) would open it.
 */
export interface StorageDriverSubject {
  driver(): Driver
  another(): Driver
}

const MB = 1024 * 1024

/** Sorted: the fs driver lists in directory order, which no caller relies on. */
const sorted = (list: string[]) => [...list].sort()

export function storageDriverContract(make: () => Promise<StorageDriverSubject>): void {
  it('round-trips text, JSON documents and bytes that are not UTF-8, and another instance reads them', async () => {
    const subject = await make()
    const storage = createStorage({ driver: subject.driver() })
    await storage.setItem('docs:text', 'héllo wörld ✓ 😀')
    const document = { title: 'T', list: [1, 'two', null], nested: { ok: true, n: 1.5 } }
    await writeJson(storage, keys.meta('f1'), document)
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x80, 0xed, 0xa0, 0x80]), Buffer.from(Array.from({ length: 256 }, (_, i) => i))])
    await storage.setItemRaw('blobs:ab:raw', bytes)

    const other = createStorage({ driver: subject.another() })
    for (const reader of [storage, other]) {
      expect(await reader.getItem('docs:text')).toBe('héllo wörld ✓ 😀')
      expect(await readJson(reader, keys.meta('f1'))).toEqual(document)
      const raw = (await reader.getItemRaw('blobs:ab:raw')) as Buffer
      expect(Buffer.isBuffer(raw)).toBe(true)
      expect(raw.equals(bytes)).toBe(true)
      // The blob store slices what it reads (a kind byte, a hash, a delta).
      expect([...raw.subarray(1, 3)]).toEqual([0xfe, 0x00])
    }
    // Read as text, bytes that are not UTF-8 come back as U+FFFD, as from readFile(…, 'utf8').
    expect(await subject.driver().getItem('blobs:ab:raw', {})).toBe(bytes.toString('utf8'))
  })

  it('keeps empty values (markers) and values of 20 MB', async () => {
    const { driver } = await make()
    const storage = createStorage({ driver: driver() })
    await storage.setItemRaw(keys.workspaceFolio('local', 'f1'), Buffer.alloc(0))
    await storage.setItem(keys.workspaceContent('ws', 'ab'.repeat(32), 10), '')
    expect(await storage.hasItem(keys.workspaceFolio('local', 'f1'))).toBe(true)
    const empty = (await storage.getItemRaw(keys.workspaceFolio('local', 'f1'))) as Buffer
    expect(Buffer.isBuffer(empty) && empty.length).toBe(0)
    expect(await driver().getItem(keys.workspaceContent('ws', 'ab'.repeat(32), 10), {})).toBe('')

    const big = randomBytes(20 * MB)
    await storage.setItemRaw('blobs:cd:big', big)
    expect(((await storage.getItemRaw('blobs:cd:big')) as Buffer).equals(big)).toBe(true)
    await storage.setItemRaw('blobs:cd:big', big.subarray(0, 3))
    expect([...((await storage.getItemRaw('blobs:cd:big')) as Buffer)]).toEqual([...big.subarray(0, 3)])
  })

  it('overwrites, removes (also lazily), and has only keys that hold a value', async () => {
    const { driver } = await make()
    const storage = createStorage({ driver: driver() })
    expect(await storage.getItem('a:b:c')).toBeNull()
    expect(await storage.getItemRaw('a:b:c')).toBeNull()
    expect(await storage.hasItem('a:b:c')).toBe(false)
    await storage.setItem('a:b:c', 'short')
    await storage.setItem('a:b:c', 'a longer value than before')
    await storage.setItem('a:b:c', 'tiny')
    expect(await storage.getItem('a:b:c')).toBe('tiny')
    // A name with keys under it holds no value itself (on disk it is a folder).
    expect(await storage.hasItem('a:b')).toBe(false)
    expect(await storage.hasItem('a')).toBe(false)
    await storage.setItem('a:b:d', 'x')
    await storage.removeItem('a:b:c')
    expect(await storage.hasItem('a:b:c')).toBe(false)
    expect(await storage.getItem('a:b:c')).toBeNull()
    await storage.removeItem('a:b:c') // already gone: nothing to do, no error
    await storage.removeItem('a:b:d', { lazy: true })
    await storage.removeItem('a:b:nothing', { lazy: true })
    expect(await storage.hasItem('a:b:d')).toBe(false)
    expect(await storage.getKeys('a')).toEqual([])
  })

  it('lists the keys under a prefix, nested, and nothing of a sibling whose name starts with it', async () => {
    const { driver } = await make()
    const storage = createStorage({ driver: driver() })
    const all = ['a:b:c', 'a:b:d:e', 'a:bc:x', 'a:b2', 'a:c', 'b']
    for (const key of all) await storage.setItem(key, key)
    expect(sorted(await storage.getKeys('a:b'))).toEqual(['a:b:c', 'a:b:d:e'])
    expect(sorted(await storage.getKeys('a:b:'))).toEqual(['a:b:c', 'a:b:d:e'])
    expect(sorted(await storage.getKeys('a:b:d'))).toEqual(['a:b:d:e'])
    expect(sorted(await storage.getKeys('a'))).toEqual(['a:b2', 'a:b:c', 'a:b:d:e', 'a:bc:x', 'a:c'].sort())
    expect(sorted(await storage.getKeys(''))).toEqual(sorted(all))
    expect(sorted(await storage.getKeys())).toEqual(sorted(all))
    // A key's own name lists nothing (on disk it is a file), nor does a name nothing is under.
    expect(await storage.getKeys('a:c')).toEqual([])
    expect(await storage.getKeys('nothing:here')).toEqual([])
    // The driver itself, as clearPrefix and the import/export reach it.
    const direct = driver()
    expect(sorted(await direct.getKeys('a:b', {}))).toEqual(['a:b:c', 'a:b:d:e'])
    expect(sorted(await direct.getKeys('', {}))).toEqual(sorted(all))
  })

  it('takes %, _ and \\ in keys literally', async () => {
    const { driver } = await make()
    const storage = createStorage({ driver: driver() })
    // Unescaped in a LIKE, `100%` would match `1000` and `a_b` would match `axb`.
    for (const key of ['w:100%:a', 'w:1000:a', 'w:a_b:c', 'w:axb:c', 'w:%:d', 'w:_:e']) await storage.setItem(key, key)
    expect(await storage.getKeys('w:100%')).toEqual(['w:100%:a'])
    expect(await storage.getKeys('w:a_b')).toEqual(['w:a_b:c'])
    expect(await storage.getKeys('w:%')).toEqual(['w:%:d'])
    expect(await storage.getKeys('w:_')).toEqual(['w:_:e'])
    expect(await storage.getItem('w:100%:a')).toBe('w:100%:a')
    // unstorage turns `\` into `:`: only the driver itself sees one. Unescaped, `back\slash`
    // would match `backslash`.
    const direct = driver()
    for (const key of ['v:back\\slash:x', 'v:backslash:y', 'v:back\\\\slash:z']) await direct.setItem!(key, key, {})
    expect(await direct.getKeys('v:back\\slash', {})).toEqual(['v:back\\slash:x'])
    expect(await direct.getKeys('v:back\\\\slash', {})).toEqual(['v:back\\\\slash:z'])
    expect(await direct.getItem('v:back\\slash:x', {})).toBe('v:back\\slash:x')
    expect(await direct.hasItem('v:back\\slash:y', {})).toBe(false)
    await direct.clear!('v:back\\slash', {})
    expect(sorted(await direct.getKeys('v', {}))).toEqual(['v:back\\\\slash:z', 'v:backslash:y'])
    await clearPrefix(storage, 'w:a_b')
    await clearPrefix(storage, 'w:100%')
    expect(sorted(await storage.getKeys('w'))).toEqual(['w:%:d', 'w:1000:a', 'w:_:e', 'w:axb:c'])
  })

  it('clear(base) removes everything under base (and base itself) and nothing beside it', async () => {
    const { driver } = await make()
    const storage = createStorage({ driver: driver() })
    for (const key of ['folios:1:meta.json', 'folios:1:blobs:aa', 'folios:1:history:s1.json', 'folios:10:meta.json', 'folios:1x', 'g'])
      await storage.setItem(key, '{}')
    // The store's way (trash.ts): clearPrefix asks the driver.
    await clearPrefix(storage, keys.folio('1'))
    expect(sorted(await storage.getKeys(''))).toEqual(['folios:10:meta.json', 'folios:1x', 'g'])
    // unstorage's own form of a base ends with ':'; a base nothing is under is no error.
    await driver().clear!('folios:10:', {})
    await driver().clear!('folios:nothing', {})
    expect(sorted(await storage.getKeys(''))).toEqual(['folios:1x', 'g'])
    // As rm of a path: a key's own name removes that key.
    await driver().clear!('folios:1x', {})
    expect(await storage.getKeys('')).toEqual(['g'])
    await expect(Promise.resolve().then(() => driver().clear!('', {}))).rejects.toThrow(/Refusing to clear/)
    expect(await storage.getKeys('')).toEqual(['g'])
  })

  it('concurrent writers to one key: every read is one whole value, and the last write stands', async () => {
    const subject = await make()
    const storage = createStorage({ driver: subject.driver() })
    // Each value is its own byte repeated, each of a different length: a torn read shows.
    const values = Array.from({ length: 12 }, (_, i) => Buffer.alloc(300_000 + i * 7_919, i + 1))
    const isWhole = (read: Buffer | null) => read !== null && read.length > 0 && values[read[0]! - 1]?.equals(read) === true
    await storage.setItemRaw('hot:key', values[0]!)
    let stop = false
    const reads: Array<Buffer | null> = []
    const reader = (async () => {
      while (!stop) {
        reads.push((await storage.getItemRaw('hot:key')) as Buffer | null)
        // A read answered from memory never waits for I/O: let the writers' I/O run.
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    for (let round = 0; round < 3; round++) await Promise.all(values.map((v) => storage.setItemRaw('hot:key', v)))
    stop = true
    await reader
    expect(reads.length).toBeGreaterThan(3)
    expect(reads.filter((r) => !isWhole(r))).toEqual([])
    const settled = (await storage.getItemRaw('hot:key')) as Buffer
    expect(isWhole(settled)).toBe(true)
    // Writes from two instances, one after the other: the later stands for both.
    const other = createStorage({ driver: subject.another() })
    await other.setItemRaw('hot:key', values[5]!)
    await storage.setItemRaw('hot:key', values[7]!)
    for (const reader of [storage, other]) expect(((await reader.getItemRaw('hot:key')) as Buffer).equals(values[7]!)).toBe(true)
  })

  it("holds a folio repository's work end to end: create, versions, metadata, read back by another instance, delete", async () => {
    const subject = await make()
    const repository = (driver: Driver) => {
      const storage = createStorage({ driver })
      return { storage, folios: new FolioRepository(storage, new BlobStore(storage), new KeyedMutex(), { warn: (m) => expect.fail(m) }) }
    }
    const first = repository(subject.driver())
    const page = (n: number) => `<!doctype html><title>v${n}</title>${'<p>Row of the report</p>\n'.repeat(2_000)}<p>edit ${n}</p>`
    const created = await first.folios.create({
      meta: newMeta({ title: 'On any driver' }),
      files: { 'index.html': page(1), 'notes.txt': 'café' },
      commitMessage: 'first',
      author: 'test',
    })
    const id = created.meta.id
    for (let n = 2; n <= 4; n++)
      await first.folios.update(id, { patch: {}, files: { 'index.html': page(n), 'notes.txt': 'café' }, commitMessage: `v${n}`, author: 'test' })
    await first.folios.update(id, { patch: { title: 'Renamed' }, author: 'test' })
    await first.folios.idle()

    // Another instance: nothing cached, everything read from the driver.
    const second = repository(subject.another())
    const meta = await second.folios.get(id)
    expect(meta).toMatchObject({ id, title: 'Renamed', head: 4 })
    expect(await second.folios.listIds('local')).toEqual([id])
    expect((await second.folios.history(meta!)).map((v) => v.commitMessage)).toEqual(['first', 'v2', 'v3', 'v4'])
    for (const n of [1, 3, 4]) {
      expect(await second.folios.readFiles(id, (await second.folios.manifest(id, n))!)).toEqual({ 'index.html': page(n), 'notes.txt': 'café' })
    }

    expect(await second.folios.delete(id)).toBe(true)
    await second.folios.idle()
    expect(await first.storage.hasItem(keys.meta(id))).toBe(false)
    // Its keys, its blobs and their references, its workspace marker: nothing is left.
    expect(await first.storage.getKeys('')).toEqual([])
  })
}
