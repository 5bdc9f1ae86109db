import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { testApi } from './helpers/api.js'
import { killHard, spawnServer, type ServerProcess } from './helpers/cli-process.js'
import { makeDataDir } from './helpers/server.js'

const children: ServerProcess[] = []
const dirs: string[] = []
afterAll(async () => {
  for (const c of children) await killHard(c.child)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** Content of write n: large enough for deltas and compaction to be running when the kill lands. */
const page = (n: number) => `<h1>Version ${n}</h1>\n${Array.from({ length: 400 }, (_, i) => `<p>Line ${i}${i === n % 400 ? ` changed by ${n}` : ''}</p>`).join('\n')}`

describe('crash durability', () => {
  it('keeps every acknowledged version exactly after SIGKILL in the middle of a stream of PUTs', async () => {
    const dataDir = await makeDataDir()
    dirs.push(dataDir)
    let server = await spawnServer(dataDir)
    children.push(server)
    let api = testApi(server.url)
    const id = await api.create('Crash test', { 'index.html': page(0), 'style.css': 'body{}' })
    const acked = new Map<string, Record<string, string>>()
    let n = 0

    for (let round = 0; round < 3; round++) {
      // Four writers keep PUTs in flight; the kill lands while some are half done.
      let stop = false
      const writer = async () => {
        while (!stop) {
          const files = { 'index.html': page(++n), 'style.css': `body{margin:${n}px}`, [`extra-${n % 5}.txt`]: `x${n}` }
          try {
            const reply = await api.send(updateFolio, { params: { id }, body: { files, commitMessage: `write ${n}` } })
            if (reply.status === 200) acked.set(reply.body.project.latestVersionId, files)
          } catch {
            return // the connection died with the server
          }
        }
      }
      const writers = [writer(), writer(), writer(), writer()]
      await new Promise((r) => setTimeout(r, 150 + round * 100))
      await killHard(server.child)
      stop = true
      await Promise.all(writers)

      server = await spawnServer(dataDir)
      children.push(server)
      api = testApi(server.url)
      const full = await api.send(getFolio, { params: { id } })
      expect(full.status).toBe(200)
      const versions: any[] = full.body.versions
      // Versions are contiguous v1..vN, and every acknowledged one is there with its exact files.
      expect(versions.map((v) => v.versionId)).toEqual(versions.map((_, i) => `v${i + 1}`))
      for (const [versionId, files] of acked) {
        const v = versions.find((x) => x.versionId === versionId)
        expect(v, `acknowledged ${versionId} lost`).toBeDefined()
        expect(v.files).toEqual(files)
      }
      // Writes go on from where the history ends.
      const next = await api.send(updateFolio, { params: { id }, body: { files: { 'index.html': 'after restart' } } })
      expect(next.status).toBe(200)
      expect(next.body.project.latestVersionId).toBe(`v${versions.length + 1}`)
      acked.set(next.body.project.latestVersionId, { 'index.html': 'after restart' })
    }
    expect(acked.size).toBeGreaterThan(10)
    // No temp file survives a restart.
    expect(await readdir(join(dataDir, '.tmp'))).toEqual([])
    await killHard(server.child)
    // Killed or not, no server logged anything: a restart after a crash is no error.
    for (const c of children) expect(c.stderr(), `the log of the server at ${c.url}`).toBe('')
  })
})
