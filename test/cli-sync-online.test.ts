import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { getSyncManifest } from '../src/api/sync.js'
import { testApi } from './helpers/api.js'
import { spawnCli } from './helpers/cli.js'
import { killHard, type ServerProcess, spawnServer } from './helpers/cli-process.js'

/**
 * The server comes back after a long absence: the watcher, which has been probing it all along,
 * pushes within a couple of seconds (not at the next step of a 30 s back-off) and says so.
 *
 * No sleeping and no stopwatch: while the server is away a plain TCP listener stands on its port
 * and counts the watcher's probes (each is one GET /api/files/{id}/sync on a new connection,
 * which the listener hangs up on: still away). Probes capped at 2 s apart come 1, 3, 5, 7, 9 s
 * after the failed push; a doubling back-off would make the fifth wait until 31 s (1+2+4+8+16),
 * past the wait for it. Then the real server comes back and the test waits for "Back online".
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

/** Stands on the server's port while it is away: counts the watcher's probes, answers none. */
async function probeCounter(url: string) {
  const { hostname, port } = new URL(url)
  const probes: string[] = []
  const sockets = new Set<Socket>()
  const listener = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    // The request line tells a probe from the live event stream's reconnections.
    socket.once('data', (chunk) => {
      const line = chunk.toString('latin1').split('\r\n')[0]!
      if (/^GET \/api\/files\/[^/]+\/sync\b/.test(line)) probes.push(line)
      socket.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => listener.once('error', reject).listen(Number(port), hostname.replace(/^\[|\]$/g, ''), resolve))
  return {
    probes,
    close: () => {
      for (const socket of sockets) socket.destroy()
      return new Promise<void>((resolve) => listener.close(() => resolve()))
    },
  }
}

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
    // The first probe comes 1 s after that line: the listener is up long before.
    const away = await probeCounter(server.url)
    cleanups.push(() => away.close())
    // Five probes while away, every one still unanswered: the spacing stays at its 2 s cap
    // (doubling, the fifth would come 31 s after the failed push, after this wait gives up).
    await vi.waitFor(() => expect(away.probes.length).toBeGreaterThanOrEqual(5), { timeout: 20_000, interval: 50 })
    await away.close()
    server = await spawnServer(join(work, 'data'), ['--port', String(port)])
    const online = await watch.waitForLine((l) => l.startsWith('Back online'), 15_000, mark)
    expect(online).toMatch(/^Back online, pushed 2 changes \(the server was away \d+ s\)$/)
    expect(watch.lines.slice(mark).filter((l) => l.startsWith('Server away'))).toHaveLength(1)
    expect(watch.lines.slice(mark).find((l) => l.startsWith('v3 ←'))).toMatch(/^v3 ← 1 added, 1 changed .*: index\.html, late\.css$/)
    const files = (await testApi(server.url).send(getSyncManifest, { params: { id } })).body.files
    expect(Object.keys(files).sort()).toEqual(['index.html', 'late.css'])

    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)
    expect(server.stderr()).toBe('')
  })
})
