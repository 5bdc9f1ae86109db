import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { spawnCli } from './helpers/cli.js'
import { killHard, type ServerProcess, spawnServer } from './helpers/cli-process.js'
import { client } from './helpers/http.js'

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

const synced = (line: string) => line.startsWith('{') && JSON.parse(line).event === 'synced'
const parse = (line: string) => JSON.parse(line)

describe('folio sync --watch', () => {
  it('pushes saves as versions, bursts as one, deletions too, and drains its queue after a server restart', async () => {
    const work = await mkdtemp(join(tmpdir(), 'folio-watch-'))
    cleanups.push(() => rm(work, { recursive: true, force: true }))
    const dataDir = join(work, 'data')
    const dir = join(work, 'site')
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'index.html'), '<h1>one</h1>')
    const port = await freePort()
    let server: ServerProcess = await spawnServer(dataDir, ['--port', String(port)])
    cleanups.push(() => killHard(server.child))
    const api = client(server.url)
    const id = await api.create('Watched', { 'index.html': 'start' })

    const watch = spawnCli(['sync', id, dir, '--watch', '--json', '--debounce', '150', '--server', server.url])
    cleanups.push(async () => watch.child.kill('SIGKILL'))
    const first = parse(await watch.waitForLine(synced))
    expect(first).toMatchObject({ versionId: 'v2', updated: 1 })
    await watch.waitForLine((l) => l.includes('"event":"watching"'))

    // One save → one version.
    let mark = watch.lines.length
    await writeFile(join(dir, 'index.html'), '<h1>two</h1>')
    expect(parse(await watch.waitForLine(synced, 15_000, mark))).toMatchObject({ versionId: 'v3', updated: 1, paths: ['index.html'] })

    // A burst of saves → one version.
    mark = watch.lines.length
    await Promise.all(Array.from({ length: 5 }, (_, i) => writeFile(join(dir, `page-${i}.html`), `<p>${i}</p>`)))
    const burst = parse(await watch.waitForLine(synced, 15_000, mark))
    expect(burst).toMatchObject({ versionId: 'v4', added: 5 })

    // A deletion is synced.
    mark = watch.lines.length
    await unlink(join(dir, 'page-0.html'))
    expect(parse(await watch.waitForLine(synced, 15_000, mark))).toMatchObject({ versionId: 'v5', deleted: 1 })

    // The server goes away: saves queue up, the watcher says it waits, then drains on restart.
    await killHard(server.child)
    mark = watch.lines.length
    await writeFile(join(dir, 'index.html'), '<h1>while away</h1>')
    await writeFile(join(dir, 'late.css'), 'h1{}')
    const waiting = parse(await watch.waitForLine((l) => l.includes('"event":"waiting"'), 15_000, mark))
    expect(waiting.queued).toBeGreaterThanOrEqual(1)
    server = await spawnServer(dataDir, ['--port', String(port)])
    const drained = parse(await watch.waitForLine(synced, 30_000, mark))
    expect(drained.changed).toBe(true)
    const files = (await client(server.url).get(`/api/files/${id}`)).body.versions.at(-1).files
    expect(files['index.html']).toBe('<h1>while away</h1>')
    expect(files['late.css']).toBe('h1{}')
    expect(files['page-0.html']).toBeUndefined()
    expect(files['page-4.html']).toBe('<p>4</p>')

    watch.child.kill('SIGINT')
    await new Promise((r) => watch.child.once('exit', r))
    expect(watch.child.exitCode).toBe(0)
  })
})
