import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { runCli, spawnCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

/**
 * A version made elsewhere (folio restore, the dashboard, another machine) while a folder is
 * synced: the next push compares the whole folder against it, so the folio ends up holding the
 * folder, and the folder record keeps telling the truth about which files came from the folder.
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
const parse = (line: string) => JSON.parse(line)
const latest = async (id: string): Promise<Record<string, string>> =>
  (await s.api.send(getFolio, { params: { id }, query: { files: 'latest' } })).body.versions.at(-1).files

describe('a version made elsewhere while sync --watch runs', () => {
  it('is noticed, named, and the whole folder is compared against it: nothing the folder holds is dropped', async () => {
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
    const restored = await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId: 'v1' } })
    expect(restored.body.project.latestVersionId).toBe('v4')

    // One save later: the watcher says what happened and pushes the folder, not v4 plus the save.
    mark = watch.lines.length
    await writeFile(join(dir, 'index.html'), '<h1>home, edited</h1>')
    const pushed = parse(await watch.waitForLine(synced, 15_000, mark))
    const notice = watch.lines.slice(mark).map(parse).find((e) => e.event === 'elsewhere')
    expect(notice).toMatchObject({ versionId: 'v4', versions: [{ versionId: 'v4', commitMessage: 'Restore v1' }] })
    expect(notice.message).toMatch(/^v4 was made elsewhere \(restore of v1 by \S+.*\): re-reading the folder against it$/)
    expect(pushed).toMatchObject({ versionId: 'v5', added: 1, updated: 1, deleted: 1, deletedPaths: ['contact.html'], kept: [], notPushed: [] })
    expect(await latest(id)).toEqual({ 'index.html': '<h1>home, edited</h1>', 'about.html': '<h1>about</h1>', 'blog.html': '<h1>blog</h1>' })

    watch.child.kill('SIGINT')
    expect(await watch.exited).toBe(0)

    // The folder record still tells the truth: nothing to do, nothing "kept" as if it came from elsewhere.
    const dry = await runCli(['sync', id, dir, '--dry-run', '--json', '--server', s.ts.url], config())
    expect(dry.json()).toMatchObject({ event: 'plan', versionId: 'v5', added: [], updated: [], deleted: [], kept: [] })

    // A restore while nothing watches: the next sync names it too, and brings the folio back to the folder.
    await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId: 'v3' } })
    const again = await runCli(['sync', id, dir, '--server', s.ts.url], config())
    expect(again.code).toBe(0)
    expect(again.stderr).toMatch(/v6 was made elsewhere \(restore of v3 by \S+.*\) since this folder's last sync: re-reading the folder against it/)
    expect(again.stdout).toMatch(/^v7 ← 1 changed/)
    expect(await latest(id)).toEqual({ 'index.html': '<h1>home, edited</h1>', 'about.html': '<h1>about</h1>', 'blog.html': '<h1>blog</h1>' })
  })

  it('keeps what came from elsewhere, and says so truthfully, when a restore brings back a file the folder never had', async () => {
    const dir = join(work, 'uploads')
    await mkdir(dir)
    await writeFile(join(dir, 'index.html'), '<h1>site</h1>')
    const id = await s.api.create('Kept', { 'index.html': 'start', 'from-api.html': '<p>added through the API</p>' })
    expect((await runCli(['sync', id, dir, '--json', '--server', s.ts.url], config())).json()).toMatchObject({ versionId: 'v2', kept: ['from-api.html'] })
    await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId: 'v1' } })
    const again = await runCli(['sync', id, dir, '--json', '--server', s.ts.url], config())
    expect(again.json()).toMatchObject({ versionId: 'v4', updated: 1, deleted: 0, kept: ['from-api.html'] })
  })
})
