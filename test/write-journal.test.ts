import { cp, mkdir, readdir, readFile, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createStorage, type Storage } from 'unstorage'
import { afterEach, describe, expect, it } from 'vitest'
import { durableFsDriver } from '../src/store/durable-fs-driver.js'
import { readRecords } from '../src/store/write-journal.js'
import { makeDataDir } from './helpers/server.js'

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!()
})

async function dataDir(): Promise<string> {
  const dir = await makeDataDir()
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  return dir
}

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
    await unlink(join(copy, 'blobs/ab/abc'))
    await unlink(join(copy, 'blobs/cd/cde'))
    await writeFile(join(copy, 'folios/a/meta.json'), '{"he')
    await rm(join(copy, 'refs'), { recursive: true })
    await rm(join(copy, 'many'), { recursive: true })
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
    await unlink(join(copy, 'k/second'))
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
