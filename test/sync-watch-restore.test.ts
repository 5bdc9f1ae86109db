import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { runCli, spawnCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

/**
 * Issue 26: restore, pull and the watcher agree. A version made elsewhere while `folio sync
 * --watch` runs is heard from the server (the live stream, or the manifest asked every second
 * when the stream is refused), not at the next save; a folder with nothing unpushed takes it in,
 * and a folder with unpushed changes stops the watch instead of overwriting either side.
 */

const s = useServer()
let work: string
const config = () => ({ FOLIO_CONFIG_DIR: join(work, 'config') })
const cleanups: Array<() => unknown> = []

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-watch-restore-'))
})
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
  await rm(work, { recursive: true, force: true })
})

const parse = (line: string) => JSON.parse(line)
const event = (name: string) => (line: string) => line.startsWith('{') && parse(line).event === name
const changedSync = (line: string) => event('synced')(line) && parse(line).changed === true
const folio = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'latest' } })).body
const latestFiles = async (id: string): Promise<Record<string, string>> => (await folio(id)).versions.at(-1).files

async function watching(id: string, dir: string) {
  const watch = spawnCli(['sync', id, dir, '--watch', '--json', '--debounce', '100', '--server', s.ts.url], config())
  cleanups.push(() => watch.child.kill('SIGKILL'))
  await watch.waitForLine(event('watching'))
  return watch
}

describe('folio restore while folio sync --watch runs', () => {
  it('brings the restored files into the folder, removes only what the history holds, and the next save builds on them', async () => {
    const dir = join(work, 'site')
    await mkdir(dir)
    await writeFile(join(dir, 'a.html'), '<h1>a</h1>')
    await writeFile(join(dir, 'b.css'), 'h1{color:red}')
    await writeFile(join(dir, 'notes.txt'), 'not published')
    await writeFile(join(dir, '.folioignore'), 'notes.txt\n')
    const created = await runCli(['create', 'Restore me', '--dir', dir, '--json', '--server', s.ts.url], config())
    expect(created.code).toBe(0)
    const id = created.json().id as string

    // A draft: its live stream is refused without the API key, so the watcher asks every second.
    const watch = await watching(id, dir)
    let mark = watch.lines.length
    await writeFile(join(dir, 'c.js'), 'console.log(1)')
    expect(parse(await watch.waitForLine(changedSync, 15_000, mark))).toMatchObject({ versionId: 'v2', added: 1 })
    mark = watch.lines.length
    await unlink(join(dir, 'b.css'))
    expect(parse(await watch.waitForLine(changedSync, 15_000, mark))).toMatchObject({ versionId: 'v3', deletedPaths: ['b.css'] })

    // folio restore in the folder, with no terminal and no flag: it restores and says how to pull.
    mark = watch.lines.length
    const restored = await runCli(['restore', 'v1', '--server', s.ts.url], config(), { cwd: dir })
    expect(restored.code).toBe(0)
    expect(restored.stdout).toBe('Restored v1 as v4\n')
    expect(restored.stderr).toMatch(/folio pull writes v4's files into it/)

    // No save: the watcher hears of v4 and pulls it into the folder.
    const pulled = parse(await watch.waitForLine(event('pulled'), 15_000, mark))
    expect(pulled).toMatchObject({ versionId: 'v4', after: 'v3', written: ['b.css'], removed: [{ path: 'c.js', inVersion: 'v3' }], kept: [] })
    expect(pulled.summary).toMatch(/^v4 was made elsewhere \(restore of v1 by \S+.*\)$/)
    expect(await readFile(join(dir, 'b.css'), 'utf8')).toBe('h1{color:red}')
    expect(await readFile(join(dir, 'a.html'), 'utf8')).toBe('<h1>a</h1>')
    expect(existsSync(join(dir, 'c.js'))).toBe(false)
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('not published')
    // The pull's own writes are not pushed back: they match the folio.
    expect(watch.lines.slice(mark).filter(changedSync)).toEqual([])

    // The next save makes v5 from the folder: v1's files and the save.
    mark = watch.lines.length
    await writeFile(join(dir, 'a.html'), '<h1>a, edited</h1>')
    expect(parse(await watch.waitForLine(changedSync, 15_000, mark))).toMatchObject({ versionId: 'v5', updated: 1, added: 0, deleted: 0, paths: ['a.html'] })
    expect(await latestFiles(id)).toEqual({ 'a.html': '<h1>a, edited</h1>', 'b.css': 'h1{color:red}' })
    // c.js is not lost: v3 still holds it.
    const versions = (await s.api.send(getFolio, { params: { id } })).body.versions
    expect(versions.map((v: { versionId: string }) => v.versionId)).toEqual(['v1', 'v2', 'v3', 'v4', 'v5'])
    expect(versions[2].files['c.js']).toBe('console.log(1)')

    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)
  })

  it('stops with a conflict, pushing nothing, when the folder has unpushed changes and a version arrives', async () => {
    const dir = join(work, 'both')
    await mkdir(dir)
    await writeFile(join(dir, 'index.html'), '<h1>start</h1>')
    await writeFile(join(dir, 'style.css'), 'body{}')
    // Published: the live stream admits it, so the version is heard from the stream.
    const id = await s.api.create('Both sides', { 'index.html': '<h1>start</h1>', 'style.css': 'body{}' }, { status: 'published' })
    const watch = spawnCli(['sync', id, dir, '--watch', '--json', '--debounce', '5000', '--server', s.ts.url], config())
    cleanups.push(() => watch.child.kill('SIGKILL'))
    await watch.waitForLine(event('watching'))

    // A save the long debounce keeps unpushed, then a version made elsewhere touching the same file.
    await writeFile(join(dir, 'index.html'), '<h1>mine</h1>')
    await s.api.send(updateFolio, {
      params: { id },
      body: { files: { 'index.html': '<h1>theirs</h1>', 'style.css': 'body{}', 'new.html': '<p>new</p>' }, commitMessage: 'From the dashboard' },
    })

    const conflict = parse(await watch.waitForLine(event('conflict')))
    expect(conflict).toMatchObject({ versionId: 'v2', after: 'v1', conflicts: ['index.html'], local: ['index.html'], remote: ['index.html', 'new.html'] })
    expect(conflict.message).toMatch(
      /^v2 was made elsewhere \("From the dashboard" by \S+.*\), while this folder has changes not pushed: nothing was pushed\. Changed on both sides: index\.html\. Changed only in v2: new\.html\./,
    )
    expect(conflict.message).toContain(`folio pull ${id} ${dir} --force`)
    expect(conflict.message).toContain(`folio sync ${id} ${dir} --force`)
    // The command ends on it: exit 1, the same words on stderr (stdout already carried the stream).
    expect(await watch.exited).toBe(1)
    expect(watch.stderr()).toContain(`folio: ${conflict.message}`)
    // Neither side lost anything.
    expect(await readFile(join(dir, 'index.html'), 'utf8')).toBe('<h1>mine</h1>')
    expect(existsSync(join(dir, 'new.html'))).toBe(false)
    expect(await latestFiles(id)).toEqual({ 'index.html': '<h1>theirs</h1>', 'style.css': 'body{}', 'new.html': '<p>new</p>' })
    expect((await folio(id)).versions).toHaveLength(2)

    // The text form says the same, on stderr, with the same exit code.
    const again = await runCli(['sync', id, dir, '--server', s.ts.url], config())
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/Changed on both sides: index\.html\./)

    // The folder wins when asked: v3 is the folder, v2 stays in the history.
    const forced = await runCli(['sync', id, dir, '--force', '--server', s.ts.url], config())
    expect(forced.code).toBe(0)
    expect(forced.stdout).toMatch(/^v3 ← 1 changed .*: index\.html\n/)
    expect(forced.stderr).toMatch(/v2 was made elsewhere .*: re-reading the folder against it/)
    // new.html did not come from the folder: kept, as a forced sync always did.
    expect(await latestFiles(id)).toEqual({ 'index.html': '<h1>mine</h1>', 'style.css': 'body{}', 'new.html': '<p>new</p>' })
  })
})
