import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { runCli, spawnCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

/**
 * A version made elsewhere (folio restore, the dashboard, another machine) while a folder is
 * synced is never overwritten unasked (issue 26): a watcher with nothing unpushed pulls it into
 * the folder; a one-off sync with no changes of its own pushes nothing and points at folio pull;
 * --force makes the folder win, comparing the whole folder against it, and the folder record
 * keeps telling the truth about which files came from the folder.
 */

const s = useServer()
let work: string
const config = () => ({ FOLIO_CONFIG_DIR: join(work, 'config') })
const cleanups: Array<() => unknown> = []

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-elsewhere-'))
})
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
  await rm(work, { recursive: true, force: true })
})

const synced = (line: string) => line.startsWith('{') && JSON.parse(line).event === 'synced'
const pulled = (line: string) => line.startsWith('{') && JSON.parse(line).event === 'pulled'
const parse = (line: string) => JSON.parse(line)
const latest = async (id: string): Promise<Record<string, string>> =>
  (await s.api.send(getFolio, { params: { id }, query: { files: 'latest' } })).body.versions.at(-1).files

describe('a version made elsewhere while sync --watch runs', () => {
  it('is noticed without a save, named, and pulled into the folder: nothing either side holds is dropped', async () => {
    const dir = join(work, 'site')
    const pages = { 'index.html': '<h1>home</h1>', 'about.html': '<h1>about</h1>', 'contact.html': '<h1>contact</h1>' }
    await mkdir(dir)
    for (const [path, text] of Object.entries(pages)) await writeFile(join(dir, path), text)
    const created = await runCli(['create', 'Restored', '--dir', dir, '--json', '--server', s.ts.url], config())
    expect(created.code).toBe(0)
    const id = created.json().id as string

    const watch = spawnCli(['sync', id, dir, '--watch', '--json', '--debounce', '100', '--server', s.ts.url], config())
    cleanups.push(() => watch.child.kill('SIGKILL'))
    expect(parse(await watch.waitForLine(synced))).toMatchObject({ versionId: 'v1', changed: false })
    await watch.waitForLine((l) => l.includes('"event":"watching"'))

    // v2 adds a page, v3 deletes one: the folder now holds index, about and blog.
    let mark = watch.lines.length
    await writeFile(join(dir, 'blog.html'), '<h1>blog</h1>')
    expect(parse(await watch.waitForLine(synced, 15_000, mark))).toMatchObject({ versionId: 'v2', added: 1 })
    mark = watch.lines.length
    await unlink(join(dir, 'contact.html'))
    expect(parse(await watch.waitForLine(synced, 15_000, mark))).toMatchObject({ versionId: 'v3', deletedPaths: ['contact.html'] })

    // Someone restores v1 through the API: v4 holds index, about and contact, as at the start.
    mark = watch.lines.length
    const restored = await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId: 'v1' } })
    expect(restored.body.project.latestVersionId).toBe('v4')

    // No save needed: the watcher says what happened and brings v4 into the folder. blog.html
    // goes from the folder only because v3 holds exactly its bytes.
    const notice = parse(await watch.waitForLine(pulled, 15_000, mark))
    expect(notice).toMatchObject({ versionId: 'v4', after: 'v3', written: ['contact.html'], removed: [{ path: 'blog.html', inVersion: 'v3' }], kept: [] })
    expect(notice.summary).toMatch(/^v4 was made elsewhere \(restore of v1 by \S+.*\)$/)

    // The next save builds on v4.
    mark = watch.lines.length
    await writeFile(join(dir, 'index.html'), '<h1>home, edited</h1>')
    const pushed = parse(await watch.waitForLine((l) => synced(l) && parse(l).changed, 15_000, mark))
    expect(pushed).toMatchObject({ versionId: 'v5', added: 0, updated: 1, deleted: 0, deletedPaths: [], kept: [], notPushed: [] })
    expect(await latest(id)).toEqual({ 'index.html': '<h1>home, edited</h1>', 'about.html': '<h1>about</h1>', 'contact.html': '<h1>contact</h1>' })

    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)

    // The folder record still tells the truth: nothing to do, nothing "kept" as if it came from elsewhere.
    const dry = await runCli(['sync', id, dir, '--dry-run', '--json', '--server', s.ts.url], config())
    expect(dry.json()).toMatchObject({ event: 'plan', versionId: 'v5', added: [], updated: [], deleted: [], kept: [] })

    // A restore while nothing watches: the next sync names it, pushes nothing (the folder changed
    // nothing of its own), and says how to bring it into the folder.
    await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId: 'v3' } })
    const again = await runCli(['sync', id, dir, '--server', s.ts.url], config())
    expect(again.code).toBe(0)
    expect(again.stdout).toBe(
      `v6 was made elsewhere (restore of v3 by ${notice.summary.match(/ by (\S+)\)$/)[1]}) since this folder's last sync; the folder has no changes of its own, so nothing was pushed. folio pull ${id} ${dir} writes v6's files into the folder.\n`,
    )
    expect(await latest(id)).toEqual({ 'index.html': '<h1>home</h1>', 'about.html': '<h1>about</h1>', 'blog.html': '<h1>blog</h1>' })
    const pull = await runCli(['pull', id, dir, '--json', '--server', s.ts.url], config())
    expect(pull.json()).toMatchObject({
      event: 'pulled',
      versionId: 'v6',
      written: ['blog.html', 'index.html'],
      removed: [{ path: 'contact.html', inVersion: 'v5' }],
      kept: [],
    })
    expect((await runCli(['sync', id, dir, '--json', '--server', s.ts.url], config())).json()).toMatchObject({
      event: 'synced',
      versionId: 'v6',
      changed: false,
    })
  })

  it('keeps what came from elsewhere, and says so truthfully, when a forced sync makes the folder win', async () => {
    const dir = join(work, 'uploads')
    await mkdir(dir)
    await writeFile(join(dir, 'index.html'), '<h1>site</h1>')
    const id = await s.api.create('Kept', { 'index.html': 'start', 'from-api.html': '<p>added through the API</p>' })
    expect((await runCli(['sync', id, dir, '--json', '--server', s.ts.url], config())).json()).toMatchObject({ versionId: 'v2', kept: ['from-api.html'] })
    await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId: 'v1' } })
    const behind = await runCli(['sync', id, dir, '--json', '--server', s.ts.url], config())
    expect(behind.code).toBe(0)
    expect(behind.json()).toMatchObject({ event: 'behind', versionId: 'v3', after: 'v2', changed: false, remote: ['index.html'] })
    const forced = await runCli(['sync', id, dir, '--force', '--json', '--server', s.ts.url], config())
    expect(forced.json()).toMatchObject({ versionId: 'v4', updated: 1, deleted: 0, kept: ['from-api.html'] })
  })
})
