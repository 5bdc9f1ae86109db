import { cp, mkdir, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createStorage, type Storage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { durableFsDriver } from '../src/store/engine/durable-fs-driver.js'
import { clearPrefix } from '../src/store/engine/json-io.js'
import { readRecords } from '../src/store/engine/journal-records.js'
import { useTempDataDirs } from './helpers/temp-data-dirs.js'

const { dataDir, cleanup } = useTempDataDirs()

/** A storage whose journal file is never retired on its own: the test decides what a crash leaves. */
function open(dir: string, checkpointAfterMs = 3_600_000): Storage {
  const storage = createStorage({ driver: durableFsDriver({ base: dir, checkpointAfterMs }) })
  cleanup.push(() => storage.dispose())
  return storage
}

/**
 * What a power cut could leave: a copy of the data dir taken while the server runs (the
 * journal as appended so far, the files as written so far). The caller then undoes, in the copy,
 * what the disk may not have kept of the files: the journal alone must bring it back.
 */
async function crashCopy(dir: string): Promise<string> {
  const copy = await dataDir()
  await cp(dir, copy, { recursive: true })
  return copy
}

const journalFiles = async (dir: string) => (await readdir(join(dir, '.journal'))).filter((name) => name.endsWith('.log'))

describe('write journal', () => {
  it('brings back, after a crash, every acknowledged write the disk did not keep, in order, and removals too', async () => {
    const dir = await dataDir()
    const storage = open(dir)
    const page = 'x'.repeat(150_000)
    await storage.setItem('folios:a:meta.json', '{"head":1}')
    await storage.setItemRaw('blobs:ab:abc', Buffer.from(page))
    await storage.setItemRaw('refs:ab:abc~a', Buffer.alloc(0))
    // Not waited for: the commit point written after it makes it durable.
    await storage.setItemRaw('blobs:cd:cde', Buffer.from('staged'), { durableWithNext: true })
    await storage.setItem('folios:a:meta.json', '{"head":2}')
    await storage.setItem('folios:gone:meta.json', '{}')
    await storage.removeItem('folios:gone:meta.json')
    // Concurrent writers share appends: all of them are in the journal too.
    await Promise.all(Array.from({ length: 40 }, (_, i) => storage.setItem(`many:k${i}`, `v${i}`)))
    expect(await journalFiles(dir)).toHaveLength(1)

    const copy = await crashCopy(dir)
    // The files as a power cut may leave them: gone, torn, or a removal undone.
    // (Written back at the checkpoint, these files may not be there at all yet: gone either way.)
    await rm(join(copy, 'blobs/ab/abc'), { force: true })
    await rm(join(copy, 'blobs/cd/cde'), { force: true })
    await mkdir(join(copy, 'folios/a'), { recursive: true })
    await writeFile(join(copy, 'folios/a/meta.json'), '{"he')
    await rm(join(copy, 'refs'), { recursive: true, force: true })
    await rm(join(copy, 'many'), { recursive: true, force: true })
    await mkdir(join(copy, 'folios/gone'), { recursive: true })
    await writeFile(join(copy, 'folios/gone/meta.json'), '{}')

    const reopened = open(copy)
    expect(await reopened.getItem('folios:a:meta.json')).toEqual({ head: 2 })
    expect(Buffer.from((await reopened.getItemRaw('blobs:ab:abc')) as Uint8Array).toString()).toBe(page)
    expect(await reopened.hasItem('refs:ab:abc~a')).toBe(true)
    expect(Buffer.from((await reopened.getItemRaw('blobs:cd:cde')) as Uint8Array).toString()).toBe('staged')
    expect(await reopened.hasItem('folios:gone:meta.json')).toBe(false)
    for (let i = 0; i < 40; i++) expect(await reopened.getItem(`many:k${i}`)).toBe(`v${i}`)
    // Replayed, made durable, and dropped: one fresh journal file, empty.
    const left = await journalFiles(copy)
    expect(left).toHaveLength(1)
    expect((await stat(join(copy, '.journal', left[0]!))).size).toBe(0)
  })

  it('ignores a torn last record (never acknowledged) and keeps every whole one before it', async () => {
    const dir = await dataDir()
    const storage = open(dir)
    await storage.setItem('k:first', 'one')
    await storage.setItem('k:second', 'two')
    const copy = await crashCopy(dir)
    const [name] = await journalFiles(copy)
    const path = join(copy, '.journal', name!)
    const records = [...readRecords(await readFile(path))]
    expect(records.map((r) => [r.op, r.key])).toEqual([
      ['put', 'k:first'],
      ['put', 'k:second'],
    ])
    // The second append cut short, and the file it wrote lost.
    await truncate(path, (await stat(path)).size - 2)
    await rm(join(copy, 'k/second'), { force: true })
    await mkdir(join(copy, 'k'), { recursive: true })
    await writeFile(join(copy, 'k/first'), '')
    const reopened = open(copy)
    expect(await reopened.getItem('k:first')).toBe('one')
    expect(await reopened.hasItem('k:second')).toBe(false)
    await reopened.setItem('k:third', 'three')
    expect(await reopened.getItem('k:third')).toBe('three')
  })

  it('checkpoints in the background and leaves no journal after a clean stop', async () => {
    const dir = await dataDir()
    const storage = open(dir, 50)
    for (let i = 0; i < 5; i++) await storage.setItem(`k:v${i}`, String(i))
    // Retired after 50 ms, fsync'd where the files lie, then deleted: only the new, empty one is left.
    await expect.poll(async () => (await journalFiles(dir)).length, { timeout: 5000 }).toBe(1)
    await expect.poll(async () => (await stat(join(dir, '.journal', (await journalFiles(dir))[0]!))).size, { timeout: 5000 }).toBe(0)
    await storage.setItem('k:last', 'last')
    await storage.dispose()
    expect(await journalFiles(dir)).toEqual([])
    expect(await readFile(join(dir, 'k/last'), 'utf8')).toBe('last')
    // Keys never show the driver's own folders.
    expect((await open(dir).getKeys('')).sort()).toEqual(['k:last', 'k:v0', 'k:v1', 'k:v2', 'k:v3', 'k:v4'])
  })
})

describe('write-back', () => {
  const onDisk = (dir: string, path: string) =>
    stat(join(dir, path)).then(
      () => true,
      () => false,
    )

  it('holds writes in memory until a checkpoint: reads and listings see them at once, and a file replaced or removed meanwhile is never written', async () => {
    const dir = await dataDir()
    const storage = open(dir)
    await storage.setItem('folios:a:meta.json', '{"head":1}')
    await storage.setItem('folios:a:meta.json', '{"head":2}')
    await storage.setItemRaw('blobs:ab:old', Buffer.from('replaced content'))
    await storage.setItemRaw('refs:ab:old~a', Buffer.alloc(0))
    await storage.setItemRaw('blobs:cd:new', Buffer.from('current content'))
    await storage.removeItem('blobs:ab:old', { lazy: true })
    await storage.removeItem('refs:ab:old~a')

    expect(await storage.getItem('folios:a:meta.json')).toEqual({ head: 2 })
    expect(await storage.hasItem('blobs:ab:old')).toBe(false)
    expect(await storage.getItemRaw('blobs:ab:old')).toBeNull()
    expect(await storage.getMeta('blobs:cd:new')).toMatchObject({ size: 15 })
    expect((await storage.getKeys('')).sort()).toEqual(['blobs:cd:new', 'folios:a:meta.json'])
    expect(await storage.getKeys('refs')).toEqual([])
    // Durable in the journal, not yet in the files.
    expect(await onDisk(dir, 'folios/a/meta.json')).toBe(false)
    expect(await onDisk(dir, 'blobs/cd/new')).toBe(false)

    // A clean stop writes back the newest state of each key, and nothing that was removed.
    await storage.dispose()
    expect(await readFile(join(dir, 'folios/a/meta.json'), 'utf8')).toBe('{"head":2}')
    expect(await readFile(join(dir, 'blobs/cd/new'), 'utf8')).toBe('current content')
    expect(await onDisk(dir, 'blobs/ab/old')).toBe(false)
    expect(await onDisk(dir, 'refs/ab/old~a')).toBe(false)
    expect(await journalFiles(dir)).toEqual([])
  })

  it('writes back at each checkpoint while running, and a clear removes what was held under it', async () => {
    const dir = await dataDir()
    const storage = open(dir, 50)
    await storage.setItem('folios:a:meta.json', '{"head":1}')
    await expect.poll(() => onDisk(dir, 'folios/a/meta.json'), { timeout: 5000 }).toBe(true)
    await storage.setItem('folios:a:meta.json', '{"head":2}')
    await expect.poll(() => readFile(join(dir, 'folios/a/meta.json'), 'utf8'), { timeout: 5000 }).toBe('{"head":2}')

    // Held (not yet written) and written keys under one folder: a clear removes both, now and after the checkpoint.
    await storage.setItem('folios:a:history:s1.json', '[]')
    await clearPrefix(storage, 'folios:a')
    expect(await storage.getKeys('folios')).toEqual([])
    expect(await storage.hasItem('folios:a:history:s1.json')).toBe(false)
    await storage.setItem('folios:b:meta.json', '{}')
    await expect.poll(() => onDisk(dir, 'folios/b/meta.json'), { timeout: 5000 }).toBe(true)
    expect(await onDisk(dir, 'folios/a/history/s1.json')).toBe(false)
    expect(await onDisk(dir, 'folios/a/meta.json')).toBe(false)
  })

  it('holds the states of a key in the order of their records when a removal and a write race', async () => {
    const dir = await dataDir()
    const storage = open(dir)
    for (let round = 0; round < 5; round++) {
      await storage.setItem(`k:x${round}`, 'A')
      // The removal's unlink goes through libuv's pool; the write is queued meanwhile.
      await Promise.all([storage.removeItem(`k:x${round}`), storage.setItem(`k:x${round}`, 'B')])
    }
    const live = await Promise.all(Array.from({ length: 5 }, (_, round) => storage.getItem(`k:x${round}`)))
    // What a crash now leaves: the journal alone, replayed in its order, must say the same.
    const reopened = open(await crashCopy(dir))
    expect(await Promise.all(Array.from({ length: 5 }, (_, round) => reopened.getItem(`k:x${round}`)))).toEqual(live)
  })

  it('two drivers on one data dir share one journal and what it holds', async () => {
    const dir = await dataDir()
    const first = open(dir)
    const second = open(dir)
    await first.setItem('k:a', 'from the first')
    expect(await second.getItem('k:a')).toBe('from the first')
    await second.removeItem('k:a')
    expect(await first.hasItem('k:a')).toBe(false)
    expect(await journalFiles(dir)).toHaveLength(1)
  })
})

describe('a failed append', () => {
  it('fails every write after it, with what to do, and nothing it held is read', async () => {
    const dir = await dataDir()
    const storage = open(dir, 50)
    await storage.setItem('k:a', 'acknowledged')
    // The journal's folder taken away: the next journal file cannot be made.
    await rm(join(dir, '.journal'), { recursive: true, force: true })
    await new Promise((r) => setTimeout(r, 120))
    const failure = /write journal could not be written .*takes no more writes.*Check the disk \(space, permissions\), then restart folio/
    // A write that does not wait (a version's blob before its metadata) fails with the one after it.
    await storage.setItemRaw('blobs:ab:staged', Buffer.from('staged'), { durableWithNext: true }).catch(() => {})
    await expect(storage.setItem('k:b', 'after the failure')).rejects.toThrow(failure)
    await expect(storage.setItem('k:c', 'later still')).rejects.toThrow(failure)
    await expect(storage.removeItem('k:a')).rejects.toThrow(failure)
    for (const key of ['k:b', 'k:c', 'blobs:ab:staged']) expect(await storage.hasItem(key)).toBe(false)
    expect(await storage.getItem('k:a')).toBe('acknowledged')
  })
})
