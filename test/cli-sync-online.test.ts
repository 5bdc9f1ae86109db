import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { getSyncManifest } from '../src/api/sync.js'
import { testApi } from './helpers/api.js'
import { spawnCli } from './helpers/cli.js'
import { killHard, type ServerProcess, spawnServer } from './helpers/cli-process.js'

/**
 * The server comes back after a long absence: the watcher, which has been probing it all along,
 * pushes within a couple of seconds (not at the next step of a 30 s back-off) and says so.
 */

const cleanups: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {})
})

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1')
  await new Promise((r) => probe.once('listening', r))
  const { port } = probe.address() as { port: number }
  await new Promise((r) => probe.close(r))
  return port
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('sync --watch when the server comes back', () => {
  it('pushes the queue as soon as the server answers again, and says "Back online, pushed N changes"', async () => {
    const work = await mkdtemp(join(tmpdir(), 'folio-online-'))
    cleanups.push(() => rm(work, { recursive: true, force: true }))
    const dir = join(work, 'site')
    await mkdir(dir)
    await writeFile(join(dir, 'index.html'), '<h1>one</h1>')
    const port = await freePort()
    let server: ServerProcess = await spawnServer(join(work, 'data'), ['--port', String(port)])
    cleanups.push(() => killHard(server.child))
    const id = await testApi(server.url).create('Online', { 'index.html': 'start' })

    const watch = spawnCli(['sync', id, dir, '--watch', '--debounce', '100', '--server', server.url], { FOLIO_CONFIG_DIR: join(work, 'config') })
    cleanups.push(async () => watch.child.kill('SIGKILL'))
    await watch.waitForLine((l) => l.startsWith('Watching'))

    await killHard(server.child)
    const mark = watch.lines.length
    await writeFile(join(dir, 'index.html'), '<h1>written while away</h1>')
    await writeFile(join(dir, 'late.css'), 'h1{}')
    expect(await watch.waitForLine((l) => l.startsWith('Server away'), 15_000, mark)).toMatch(/; 2 change\(s\) queued, retrying in 1 s$/)
    // Away for 16 s: a doubling back-off would have its next try 15 s after the server is back.
    await sleep(16_000)
    server = await spawnServer(join(work, 'data'), ['--port', String(port)])
    const backAt = Date.now()
    const online = await watch.waitForLine((l) => l.startsWith('Back online'), 15_000, mark)
    expect(Date.now() - backAt).toBeLessThan(4000)
    expect(online).toMatch(/^Back online, pushed 2 changes \(the server was away 1\d s\)$/)
    expect(watch.lines.slice(mark).filter((l) => l.startsWith('Server away'))).toHaveLength(1)
    expect(watch.lines.slice(mark).find((l) => l.startsWith('v3 ←'))).toMatch(/^v3 ← 1 added, 1 changed .*: index\.html, late\.css$/)
    const files = (await testApi(server.url).send(getSyncManifest, { params: { id } })).body.files
    expect(Object.keys(files).sort()).toEqual(['index.html', 'late.css'])

    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)
    expect(server.stderr()).toBe('')
  })
})
