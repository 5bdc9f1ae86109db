import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio, listFolios } from '../src/api/files.js'
import { runCli } from './helpers/cli.js'
import { tinyPng } from './helpers/images.js'
import { useServer } from './helpers/use-server.js'

/** folio sync (one push): what it deletes, what it refuses, and that a push is one version. */

const s = useServer()
let work: string
let cli: (args: string[]) => ReturnType<typeof runCli>

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-cli-sync-'))
  const config = { FOLIO_CONFIG_DIR: join(work, 'config') }
  cli = (args) => runCli(['--server', s.ts.url, ...args], config)
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

async function site(name: string, files: Record<string, string | Buffer>): Promise<string> {
  const dir = join(work, name)
  await mkdir(dir, { recursive: true })
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), content)
  }
  return dir
}

const latestFiles = async (id: string) => {
  const folio = (await s.api.send(getFolio, { params: { id }, query: { files: 'latest' } })).body
  return { versions: folio.versionCount as number, paths: Object.keys(folio.versions.at(-1).files).sort() }
}

describe('what a sync deletes', () => {
  it('keeps what came from folio upload, deletes what left the folder, and prints both', async () => {
    const { api } = s
    const id = await api.create('Uploads stay', { 'index.html': 'start' })
    const dir = await site('uploads-stay', { 'index.html': '<h1>site</h1>', 'a.css': 'a{}', 'b.css': 'b{}' })
    expect((await cli(['sync', id, dir])).code).toBe(0)
    const shot = join(work, 'shot.png')
    await writeFile(shot, tinyPng())
    expect((await cli(['upload', id, shot, '--to', 'img'])).code).toBe(0)

    // The uploaded image is not in the folder: it stays, and the sync says why.
    const again = await cli(['sync', id, dir])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('kept 1 file(s) the folder does not have: img/shot.png')
    expect(again.stdout).toContain('--mirror deletes them')
    expect((await latestFiles(id)).paths).toContain('img/shot.png')

    // A file deleted from the folder is deleted from the folio, by name.
    await unlink(join(dir, 'a.css'))
    const deleted = await cli(['sync', id, dir])
    expect(deleted.stdout).toMatch(/^v3 ← 1 deleted/)
    expect(deleted.stdout).toContain('deleted from the folio: a.css')
    expect((await latestFiles(id)).paths).toEqual(['b.css', 'img/shot.png', 'index.html'])

    // --dry-run says what --mirror would do and does nothing.
    const dry = await cli(['sync', id, dir, '--mirror', '--dry-run', '--json'])
    expect(dry.json()).toMatchObject({ event: 'plan', versionId: 'v3', added: [], updated: [], deleted: ['img/shot.png'], kept: [] })
    expect((await latestFiles(id)).versions).toBe(3)
    const mirror = await cli(['sync', id, dir, '--mirror', '--json'])
    expect(mirror.json()).toMatchObject({ versionId: 'v4', deletedPaths: ['img/shot.png'] })
  })

  it('refuses to empty a folio from an empty or wholly ignored folder unless --allow-empty', async () => {
    const { api } = s
    const id = await api.create('Not emptied', { 'index.html': 'start' })
    const dir = await site('emptied', { 'index.html': '<h1>x</h1>', 'app.js': 'go()' })
    expect((await cli(['sync', id, dir])).code).toBe(0)

    // Every file ignored: the sync would delete what the folder had. Refused, nothing changes.
    await writeFile(join(dir, '.folioignore'), '*\n')
    const ignored = await cli(['sync', id, dir])
    expect(ignored.code).toBe(1)
    expect(ignored.stderr).toContain(`${dir} has no files to publish (after .gitignore/.folioignore)`)
    expect(ignored.stderr).toContain(`would delete 2 file(s) from folio ${id}: app.js, index.html`)
    expect(ignored.stderr).toContain('--allow-empty')
    expect(await latestFiles(id)).toEqual({ versions: 2, paths: ['app.js', 'index.html'] })

    // An empty folder with --mirror: the same refusal.
    const empty = await site('really-empty', {})
    const mirrored = await cli(['sync', id, empty, '--mirror'])
    expect(mirrored.code).toBe(1)
    expect(mirrored.stderr).toContain('has no files to publish')
    // A first sync of an empty folder deletes nothing at all (the folder never had those files).
    expect((await cli(['sync', id, empty, '--json'])).json()).toMatchObject({ changed: false, kept: ['app.js', 'index.html'] })

    const allowed = await cli(['sync', id, dir, '--allow-empty', '--json'])
    expect(allowed.json()).toMatchObject({ changed: true, deleted: 2 })
    expect(await latestFiles(id)).toEqual({ versions: 3, paths: [] })
    expect((await runCli(['sync', '--help'])).stdout).toContain('--allow-empty')
  })
})

describe('one push is one request and one version', () => {
  it('sends a change set bigger than 12 MB in one request when gzip makes it fit', async () => {
    const id = await s.api.create('Big text', { 'index.html': 'start' })
    const page = (n: number) => `<section>${`<p>Paragraph ${n} of a long report, with enough words to weigh something.</p>\n`.repeat(100_000)}</section>`
    const dir = await site('big-text', { 'a.html': page(1), 'b.html': page(2) })
    const pushed = await cli(['sync', id, dir, '--json'])
    expect(pushed.code).toBe(0)
    expect(pushed.json()).toMatchObject({ versionId: 'v2', added: 2, filesSent: 2 })
    expect(pushed.json().bytesSent).toBeGreaterThan(14 * 1024 * 1024)
    expect((await latestFiles(id)).versions).toBe(2)
  })

  it('refuses what cannot fit in one request, naming the biggest files, for sync and create --dir', async () => {
    const id = await s.api.create('Too big', { 'index.html': 'start' })
    const dir = await site('too-big', {
      'index.html': '<h1>media</h1>',
      'media/video.mp4': randomBytes(12 * 1024 * 1024),
      'img/hero.png': Buffer.concat([tinyPng(), randomBytes(10 * 1024 * 1024)]),
    })
    const sync = await cli(['sync', id, dir])
    expect(sync.code).toBe(1)
    expect(sync.stderr).toContain('Too big for one request')
    expect(sync.stderr).toContain('32.0 MB')
    expect(sync.stderr).toContain('20.0 MB')
    expect(sync.stderr).toMatch(/Biggest files: media\/video\.mp4 \(12\.0 MB\), img\/hero\.png \(10\.0 MB\)/)
    expect(sync.stderr).toContain(`folio upload ${id} ${join(dir, 'img/hero.png')} --to img`)
    expect(sync.stderr).not.toContain('_gz')
    expect(await latestFiles(id)).toEqual({ versions: 1, paths: ['index.html'] })

    const before = (await s.api.send(listFolios)).body.length
    const create = await cli(['create', 'Too big', '--dir', dir])
    expect(create.code).toBe(1)
    expect(create.stderr).toContain('Too big for one request')
    expect(create.stderr).toContain('media/video.mp4 (12.0 MB)')
    expect(create.stderr).toContain('folio upload')
    expect((await s.api.send(listFolios)).body.length).toBe(before)

    // One file that no request can carry (over the limit before a byte is read) does not hold
    // back the rest: they go, it is named with its size and the limit, and the exit code says so.
    const huge = await site('huge', { 'index.html': 'x', 'data.bin': Buffer.alloc(33 * 1024 * 1024) })
    const partly = await cli(['sync', id, huge])
    expect(partly.code).toBe(1)
    expect(partly.stdout).toMatch(/^v2 ← 1 changed/)
    expect(partly.stdout).toContain('not pushed: data.bin (33.0 MB, over 20.0 MB by itself) is too big for one push: a push carries at most 20.0 MB')
    expect(partly.stdout).toContain('make it smaller, or leave it out with .folioignore')
    expect(partly.stderr).toContain('folio: Not pushed: data.bin (too big for one push). Everything else is in v2.')
    expect(await latestFiles(id)).toEqual({ versions: 2, paths: ['index.html'] })
  })
})
