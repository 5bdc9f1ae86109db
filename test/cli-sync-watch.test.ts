import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { testApi } from './helpers/api.js'
import { spawnCli } from './helpers/cli.js'
import { killHard, type ServerProcess, spawnServer as spawnFolioServe } from './helpers/cli-process.js'
import { startTestServer } from './helpers/server.js'
import { closeClean, expectCleanLog } from './helpers/use-server.js'

const cleanups: Array<() => Promise<unknown>> = []
/** Every `folio serve` these tests started, killed or restarted: none may log anything. */
const spawned: ServerProcess[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {})
  for (const server of spawned) expect(server.stderr(), `the log of the server at ${server.url}`).toBe('')
})

async function spawnServer(dataDir: string, args: string[]): Promise<ServerProcess> {
  const server = await spawnFolioServe(dataDir, args)
  spawned.push(server)
  return server
}

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
    const api = testApi(server.url)
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
    const files = (await testApi(server.url).send(getFolio, { params: { id } })).body.versions.at(-1).files
    expect(files['index.html']).toBe('<h1>while away</h1>')
    expect(files['late.css']).toBe('h1{}')
    expect(files['page-0.html']).toBeUndefined()
    expect(files['page-4.html']).toBe('<p>4</p>')

    watch.child.kill('SIGINT')
    await new Promise((r) => watch.child.once('exit', r))
    expect(watch.child.exitCode).toBe(0)
  })
})

describe('folio sync --watch, starting and stopping', () => {
  it('started while the server is down: says so, queues the whole folder, pushes all of it once the server is back', async () => {
    const work = await mkdtemp(join(tmpdir(), 'folio-watch-late-'))
    cleanups.push(() => rm(work, { recursive: true, force: true }))
    const dataDir = join(work, 'data')
    const dir = join(work, 'site')
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'index.html'), '<h1>written while the server was down</h1>')
    await writeFile(join(dir, 'style.css'), 'h1{color:teal}')
    const port = await freePort()
    let server: ServerProcess = await spawnServer(dataDir, ['--port', String(port)])
    cleanups.push(() => killHard(server.child))
    const id = await testApi(server.url).create('Late', { 'index.html': 'start' })
    await killHard(server.child)

    const watch = spawnCli(['sync', id, dir, '--watch', '--json', '--debounce', '100', '--server', server.url])
    cleanups.push(async () => watch.child.kill('SIGKILL'))
    const waiting = parse(await watch.waitForLine((l) => l.includes('"event":"waiting"')))
    expect(waiting).toMatchObject({ fullSync: true, retryInMs: 1000, server: server.url })
    await watch.waitForLine((l) => l.includes('"event":"watching"'))
    server = await spawnServer(dataDir, ['--port', String(port)])
    const pushed = parse(await watch.waitForLine(synced, 30_000))
    expect(pushed).toMatchObject({ versionId: 'v2', added: 1, updated: 1 })
    const files = (await testApi(server.url).send(getFolio, { params: { id } })).body.versions.at(-1).files
    expect(files).toEqual({ 'index.html': '<h1>written while the server was down</h1>', 'style.css': 'h1{color:teal}' })
    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)

    // In words, and Ctrl+C while nothing could ever be pushed: it says what was left, exit 130.
    const deadUrl = `http://127.0.0.1:${await freePort()}`
    const text = spawnCli(['sync', id, dir, '--watch', '--server', deadUrl])
    cleanups.push(async () => text.child.kill('SIGKILL'))
    expect(await text.waitForLine((l) => l.startsWith('Server away'))).toBe(`Server away at ${deadUrl}; a sync of the whole folder queued, retrying in 1 s`)
    await text.waitForLine((l) => l.startsWith('Watching'))
    text.child.kill('SIGINT')
    expect(await text.exited).toBe(130)
    expect(text.stderr()).toContain('pushing anything not pushed yet (at most 10 s')
    expect(text.stderr()).toContain(
      `folio: Stopped with changes not pushed: the whole folder ${dir} (the folio was never reached). The server at ${deadUrl} is away (ECONNREFUSED). Push them with folio sync ${id} ${dir} once it is back.`,
    )
  })

  it('Ctrl+C pushes the last save (and the queue of a server that went away) before it exits', async () => {
    const ts = await startTestServer()
    cleanups.push(() => ts.close())
    const dir = await mkdtemp(join(tmpdir(), 'folio-watch-stop-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    await writeFile(join(dir, 'index.html'), '<h1>first</h1>')
    const id = await testApi(ts.url).create('Stopped', { 'index.html': 'start' })
    // A long debounce: only the push on Ctrl+C can carry the save.
    const watch = spawnCli(['sync', id, dir, '--watch', '--json', '--debounce', '10000', '--server', ts.url])
    cleanups.push(async () => watch.child.kill('SIGINT'))
    await watch.waitForLine((l) => l.includes('"event":"watching"'))
    await writeFile(join(dir, 'index.html'), '<h1>the last save</h1>')
    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)
    expect(
      watch.lines
        .map(parse)
        .filter((e) => e.event === 'synced')
        .at(-1),
    ).toMatchObject({ versionId: 'v3', paths: ['index.html'] })
    expect((await testApi(ts.url).send(getFolio, { params: { id } })).body.versions.at(-1).files['index.html']).toBe('<h1>the last save</h1>')

    // The server goes away with a save queued: Ctrl+C names the file that was not pushed.
    const again = spawnCli(['sync', id, dir, '--watch', '--debounce', '100', '--server', ts.url])
    cleanups.push(async () => again.child.kill('SIGKILL'))
    await again.waitForLine((l) => l.startsWith('Watching'))
    await ts.stop()
    await writeFile(join(dir, 'later.html'), '<p>later</p>')
    await again.waitForLine((l) => l.startsWith('Server away'))
    again.child.kill('SIGINT')
    expect(await again.exited).toBe(130)
    expect(again.stderr()).toMatch(/Stopped with changes not pushed: later\.html\. The server at .* is away \(ECONNREFUSED\)\. Push them with folio sync/)
    expectCleanLog(ts)
  })

  it('reloads .gitignore and .folioignore when they change, and compares the whole folder again', async () => {
    const ts = await startTestServer()
    cleanups.push(() => ts.close())
    const dir = await mkdtemp(join(tmpdir(), 'folio-watch-rules-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    await mkdir(join(dir, 'drafts'))
    await writeFile(join(dir, 'index.html'), '<h1>rules</h1>')
    await writeFile(join(dir, 'notes.txt'), 'private notes')
    await writeFile(join(dir, 'drafts', 'wip.html'), '<p>wip</p>')
    await writeFile(join(dir, '.folioignore'), 'notes.txt\ndrafts/\n')
    const id = await testApi(ts.url).create('Rules', { 'index.html': 'start' })
    const watch = spawnCli(['sync', id, dir, '--watch', '--json', '--debounce', '100', '--server', ts.url])
    cleanups.push(async () => watch.child.kill('SIGKILL'))
    expect(parse(await watch.waitForLine(synced))).toMatchObject({ versionId: 'v2', paths: ['index.html'] })
    await watch.waitForLine((l) => l.includes('"event":"watching"'))

    // Nothing ignored any more: the notes and the draft folder are pushed.
    let mark = watch.lines.length
    await writeFile(join(dir, '.folioignore'), '')
    expect(parse(await watch.waitForLine((l) => l.includes('"event":"rules"'), 15_000, mark))).toEqual({ event: 'rules', file: '.folioignore' })
    expect(parse(await watch.waitForLine(synced, 15_000, mark))).toMatchObject({ versionId: 'v3', added: 2, paths: ['drafts/wip.html', 'notes.txt'] })

    // The folder that used to be ignored is watched now.
    mark = watch.lines.length
    await writeFile(join(dir, 'drafts', 'wip.html'), '<p>wip, edited</p>')
    expect(parse(await watch.waitForLine(synced, 15_000, mark))).toMatchObject({ versionId: 'v4', updated: 1, paths: ['drafts/wip.html'] })

    // Ignored again (through .gitignore this time): it leaves the folio.
    mark = watch.lines.length
    await writeFile(join(dir, '.gitignore'), 'notes.txt\n')
    expect(parse(await watch.waitForLine(synced, 15_000, mark))).toMatchObject({ versionId: 'v5', deleted: 1, deletedPaths: ['notes.txt'] })
    const files = (await testApi(ts.url).send(getFolio, { params: { id } })).body.versions.at(-1).files
    expect(Object.keys(files).sort()).toEqual(['drafts/wip.html', 'index.html'])
    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)
    await closeClean(ts)
  })
})
