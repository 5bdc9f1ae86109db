import { cp, readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { createStorage, type Storage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { faultyDisk } from '../src/store/engine/disk-io.js'
import { type DurableFsDriver, durableFsDriver } from '../src/store/engine/durable-fs-driver.js'
import { InsufficientStorageError } from '../src/store/store-errors.js'
import { readRecords } from '../src/store/engine/journal-records.js'
import { useTempDataDirs } from './helpers/temp-data-dirs.js'

/*
 * Issue 25, part 3, at the driver: the journal and the write-back on a disk that fills up
 * (faultyDisk: real ENOSPC errors, writes cut short where the room ends). test/disk-full.test.ts
 * holds a real server to the same through HTTP and a kill -9.
 */

const { dataDir, cleanup } = useTempDataDirs()

async function used(dir: string): Promise<number> {
  let total = 0
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    total += entry.isDirectory() ? await used(path) : entry.isFile() ? (await stat(path)).size : 0
  }
  return total
}

/** A storage on `dir` whose disk is `disk.bytes` large (changed as the test goes). */
function open(dir: string, disk: { bytes: number }): { storage: Storage; driver: DurableFsDriver } {
  const driver = durableFsDriver({ base: dir, checkpointAfterMs: 3_600_000, disk: faultyDisk(dir, () => disk.bytes) }) as DurableFsDriver
  const storage = createStorage({ driver })
  cleanup.push(() => storage.dispose())
  return { storage, driver }
}

const journalFiles = async (dir: string) => (await readdir(join(dir, '.journal'))).filter((name) => name.endsWith('.log')).sort()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const value = (n: number) => Buffer.from(`${n}:`.padEnd(40_000, String(n % 10)))

/** Retries `fn` until it resolves (writes come back within a few seconds of space being freed). */
async function eventually<T>(fn: () => Promise<T>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    try {
      return await fn()
    } catch (error) {
      if (Date.now() > until) throw error
      await sleep(250)
    }
  }
}

describe('the durable driver on a full disk', () => {
  it('refuses writes with InsufficientStorageError, keeps the journal whole and reads going, and takes writes again once space is freed', async () => {
    const dir = await dataDir()
    const disk = { bytes: 1024 ** 3 }
    const { storage, driver } = open(dir, disk)
    for (let n = 0; n < 3; n++) await storage.setItemRaw(`k:${n}`, value(n))
    disk.bytes = (await used(dir)) + 10_000
    // Cut short: 10 KB of a 40 KB record fit.
    const refused = await storage.setItemRaw('k:big', value(9)).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(InsufficientStorageError)
    expect((refused as Error).message).toMatch(/disk .* is full/)
    expect(driver.diskFullSince()).toBeInstanceOf(Date)
    // A state: the next write is refused at once, even one that would fit.
    await expect(storage.setItem('k:small', 'x')).rejects.toBeInstanceOf(InsufficientStorageError)
    // The partial record was cut off: the journal holds exactly the three acknowledged records.
    const [file] = await journalFiles(dir)
    const bytes = await readFile(join(dir, '.journal', file!))
    expect([...readRecords(bytes)].map((r) => r.key)).toEqual(['k:0', 'k:1', 'k:2'])
    expect(bytes.length).toBe([...readRecords(bytes)].reduce((sum, r) => sum + 8 + 3 + Buffer.byteLength(r.key) + r.data.length, 0))
    // Reads go on; what was refused is not there.
    expect(Buffer.from((await storage.getItemRaw('k:1')) as Uint8Array)).toEqual(value(1))
    expect(await storage.hasItem('k:big')).toBe(false)

    disk.bytes = 1024 ** 3
    await eventually(() => storage.setItemRaw('k:big', value(9)))
    expect(driver.diskFullSince()).toBeUndefined()
    await storage.setItem('k:small', 'x')
    await driver.writeBack()
    for (let n = 0; n < 3; n++) expect(await readFile(join(dir, 'k', String(n)))).toEqual(value(n))
    expect(await readFile(join(dir, 'k', 'big'))).toEqual(value(9))
  })

  it('opens after a crash on a disk too full to write the journal back: reads from memory, refuses writes, and writes it all back once space is freed', async () => {
    const dir = await dataDir()
    const { storage } = open(dir, { bytes: 1024 ** 3 })
    for (let n = 0; n < 20; n++) await storage.setItemRaw(`k:${n}`, value(n))
    await storage.setItem('gone:a', 'a')
    await storage.removeItem('gone:a')
    // What a kill -9 leaves: the journal holds 800 KB that the files do not.
    const copy = await dataDir()
    await cp(dir, copy, { recursive: true })
    expect(await readdir(copy)).not.toContain('k')

    // Not one byte free: writing the journal back needs 800 KB.
    const disk = { bytes: await used(copy) }
    const { storage: reopened, driver } = open(copy, disk)
    for (let n = 0; n < 20; n++) expect(Buffer.from((await reopened.getItemRaw(`k:${n}`)) as Uint8Array)).toEqual(value(n))
    expect(await reopened.hasItem('gone:a')).toBe(false)
    expect((await reopened.getKeys('k')).length).toBe(20)
    expect(driver.diskFullSince()).toBeInstanceOf(Date)
    await expect(reopened.setItem('k:new', 'x')).rejects.toBeInstanceOf(InsufficientStorageError)
    // Nothing was lost from the journal meanwhile.
    expect((await journalFiles(copy)).length).toBeGreaterThanOrEqual(2)

    disk.bytes = 1024 ** 3
    await eventually(() => reopened.setItem('k:new', 'x'))
    await driver.writeBack()
    for (let n = 0; n < 20; n++) expect(await readFile(join(copy, 'k', String(n)))).toEqual(value(n))
    // Written back and dropped: one journal file, the current one.
    expect(await journalFiles(copy)).toHaveLength(1)
  })
})
