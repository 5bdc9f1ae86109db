import { randomBytes } from 'node:crypto'
import { readdirSync, statSync } from 'node:fs'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { getHealth, getReadiness } from '../src/api/health.js'
import { TEST_DISK_BUDGET_ENV } from '../src/store/engine/disk-io.js'
import { testApi, type TestApi } from './helpers/api.js'
import { killHard, spawnServer, type ServerProcess } from './helpers/cli-process.js'
import { makeDataDir } from './helpers/server.js'

/*
 * Issue 25, part 3: a full disk is a state, not an error. A real `folio serve` runs on a data
 * dir whose "disk" is as large as a number in a file (FOLIO_TEST_DISK_BUDGET_FILE, the test seam
 * of store/engine/disk-io.ts): past it, the driver's and the journal's writes fail with a real ENOSPC,
 * cut short as a full file system cuts them, through the same code as on a full disk. No root,
 * no small file system to mount: this runs everywhere, as every test must.
 */

const children: ServerProcess[] = []
const dirs: string[] = []
afterAll(async () => {
  for (const c of children) await killHard(c.child)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** The apparent size of the files under `dir`: what the pretend disk counts. */
function used(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += used(path)
    else if (entry.isFile()) total += statSync(path, { throwIfNoEntry: false })?.size ?? 0
  }
  return total
}

/** Content that does not compress: each version's page takes its size on the disk. */
const page = (n: number) => `<h1>Version ${n}</h1><pre>${randomBytes(24_000).toString('hex')}</pre>`

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('a full disk', () => {
  it('refuses writes with 507 INSUFFICIENT_STORAGE and Retry-After, is not ready, serves reads, takes writes again once space is freed, and restarts after kill -9 on the still-full disk with every acknowledged write', async () => {
    const dataDir = await makeDataDir()
    const budgetDir = await makeDataDir()
    dirs.push(dataDir, budgetDir)
    const budgetFile = join(budgetDir, 'disk-bytes')
    const setDisk = (bytes: number) => writeFile(budgetFile, String(bytes))
    await setDisk(1024 ** 3)
    const env = { [TEST_DISK_BUDGET_ENV]: budgetFile }
    const serve = async () => {
      const server = await spawnServer(dataDir, [], env)
      children.push(server)
      return { server, api: testApi(server.url) }
    }
    let { server, api } = await serve()

    const id = await api.create('Disk full', { 'index.html': page(0) })
    /** Every version a PUT was answered 200 for, with its page. */
    const acked = new Map<string, string>()
    let n = 0
    const put = (a: TestApi) => {
      const content = page(++n)
      return a.send(updateFolio, { params: { id }, body: { files: { 'index.html': content }, commitMessage: `write ${n}` } }).then((reply) => {
        if (reply.status === 200) acked.set(reply.body.project.latestVersionId, content)
        return reply
      })
    }
    /** PUTs until one is refused: the disk is full. */
    const fill = async (a: TestApi) => {
      for (let i = 0; i < 200; i++) {
        const reply = await put(a)
        if (reply.status !== 200) return reply
      }
      throw new Error('the disk never filled')
    }
    const expectFull = (reply: Awaited<ReturnType<TestApi['send']>>) => {
      expect([reply.status, reply.body.error], reply.text).toEqual([507, 'INSUFFICIENT_STORAGE'])
      expect(reply.body.message).toMatch(/disk is full/)
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    const expectEveryAcknowledgedWrite = async (a: TestApi) => {
      const full = await a.send(getFolio, { params: { id } })
      expect(full.status).toBe(200)
      const versions: Array<{ versionId: string; files: Record<string, string> }> = full.body.versions
      expect(versions.map((v) => v.versionId)).toEqual(versions.map((_, i) => `v${i + 1}`))
      for (const [versionId, content] of acked) {
        const v = versions.find((x) => x.versionId === versionId)
        expect(v, `acknowledged ${versionId} lost`).toBeDefined()
        expect(v!.files['index.html']).toBe(content)
      }
    }

    for (let i = 0; i < 3; i++) expect((await put(api)).status).toBe(200)

    // The disk fills: 300 KB left, a dozen versions' worth.
    await setDisk(used(dataDir) + 300_000)
    expectFull(await fill(api))
    // A state, not a one-off: the next write is refused the same way, at once.
    expectFull(await put(api))
    const ready = await api.send(getReadiness)
    expect([ready.status, ready.body.error]).toEqual([503, 'NOT_READY'])
    expect(ready.body.message).toMatch(/disk .*full/)
    expect((await api.send(getHealth)).status).toBe(200)
    // Reads go on.
    await expectEveryAcknowledgedWrite(api)

    // Space is freed: writes come back by themselves, no restart.
    await setDisk(1024 ** 3)
    let back = await put(api)
    for (let tries = 0; back.status !== 200 && tries < 40; tries++) {
      await sleep(500)
      back = await put(api)
    }
    expect(back.status, back.text).toBe(200)
    expect((await api.send(getReadiness)).status).toBe(200)
    await expectEveryAcknowledgedWrite(api)

    // Full again, then kill -9: the journal holds what the checkpoints could not write back.
    await setDisk(used(dataDir) + 300_000)
    expectFull(await fill(api))
    await killHard(server.child)
    // What the files lack and the journal holds: writing it back needs that much room, which is not there.
    const journal = used(join(dataDir, '.journal'))
    expect(journal).toBeGreaterThan(100_000)
    expect(journal).toBeGreaterThan(Number(await readFile(budgetFile, 'utf8')) - used(dataDir))
    // The restart, on the same full disk, starts and serves reads; writes are still refused.
    ;({ server, api } = await serve())
    await expectEveryAcknowledgedWrite(api)
    expectFull(await put(api))
    expect((await api.send(getReadiness)).status).toBe(503)

    // Space freed again: writes come back, the journal is written back, nothing was lost.
    await setDisk(1024 ** 3)
    back = await put(api)
    for (let tries = 0; back.status !== 200 && tries < 40; tries++) {
      await sleep(500)
      back = await put(api)
    }
    expect(back.status, back.text).toBe(200)
    await expectEveryAcknowledgedWrite(api)
    expect(acked.size).toBeGreaterThan(10)
    // No temp file was left behind by the writes that did not fit.
    expect(await readdir(join(dataDir, '.tmp'))).toEqual([])
    // Refused writes are answers, not unhandled errors: no server logged a 500.
    for (const c of children) expect(c.stderr(), `the log of the server at ${c.url}`).not.toMatch(/Unhandled error/)
  })
})
