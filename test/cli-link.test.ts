import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteFolio, getFolio } from '../src/api/files.js'
import { rotateKey } from '../src/api/keys.js'
import { runCli, spawnCli } from './helpers/cli.js'
import { tinyPng } from './helpers/images.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean, useServer } from './helpers/use-server.js'

// Issue 11: a folder created or synced once is linked (.folio/link.json), so commands run in it need no id.
const s = useServer()
let other: TestServer
let work: string
let config: { FOLIO_CONFIG_DIR: string }
const cli = (args: string[], cwd: string, env: Record<string, string> = {}) => runCli(['--server', s.ts.url, ...args], { ...config, ...env }, { cwd })
const files = async (id: string) => Object.keys((await s.api.send(getFolio, { params: { id } })).body.versions.at(-1).files).sort()

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-cli-link-'))
  config = { FOLIO_CONFIG_DIR: join(work, 'config') }
  other = await startTestServer()
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
  await closeClean(other)
})

async function site(name: string, contents: Record<string, string | Buffer> = { 'index.html': `<h1>${name}</h1>`, 'css/site.css': 'h1{}' }): Promise<string> {
  const dir = join(work, name)
  for (const [path, content] of Object.entries(contents)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), content)
  }
  return dir
}

const linkOf = async (dir: string) => JSON.parse(await readFile(join(dir, '.folio', 'link.json'), 'utf8'))

describe('folio create --dir links the folder', () => {
  it('writes server and id, never the key, and the commands inside need no id', async () => {
    const dir = await site('created')
    const key = (await s.api.send(rotateKey)).body.apiKey as string
    const created = await cli(['create', 'Linked', '--dir', dir, '--json'], work, { FOLIO_API_KEY: key })
    expect(created.code, created.stderr).toBe(0)
    const { id, link } = created.json()
    expect(link).toBe(join(dir, '.folio', 'link.json'))
    expect(await linkOf(dir)).toEqual({ server: s.ts.url, id })
    expect(await readFile(link, 'utf8')).not.toContain(key)

    // A change, then sync from the folder and from a folder below it: no id, and .folio/ never travels.
    await writeFile(join(dir, 'about.html'), '<p>about</p>')
    const synced = await cli(['sync', '--json'], dir)
    expect(synced.code, synced.stderr).toBe(0)
    expect(synced.json()).toMatchObject({ event: 'synced', versionId: 'v2', added: 1 })
    await writeFile(join(dir, 'css', 'site.css'), 'h1{color:red}')
    expect((await cli(['sync', '--json'], join(dir, 'css'))).json()).toMatchObject({ versionId: 'v3', updated: 1 })
    expect(await files(id)).toEqual(['about.html', 'css/site.css', 'index.html'])

    // The rest of the commands that take an id.
    expect((await cli(['versions', '--json'], dir)).json().map((v: { versionId: string }) => v.versionId)).toEqual(['v1', 'v2', 'v3'])
    expect((await cli(['publish', '--json'], join(dir, 'css'))).json()).toMatchObject({ project: { id, status: 'published' } })
    expect((await cli(['set', '--title', 'Renamed', '--json'], dir)).json()).toMatchObject({ project: { id, title: 'Renamed' } })
    expect((await cli(['open', '--json'], dir)).json()).toEqual({ url: `${s.ts.url}/share/${id}`, opened: false })
    expect((await cli(['comments', '--json'], dir)).json()).toEqual([])
    expect((await cli(['comments', 'resolve', 'c_1', '--json'], dir)).json()).toMatchObject({
      error: 'Comment not found',
      message: expect.stringContaining(`No comment c_1 on folio ${id}`),
    })
    await writeFile(join(work, 'logo.png'), tinyPng())
    expect((await cli(['upload', join(work, 'logo.png'), '--to', 'img', '--json'], dir)).json()).toMatchObject({ success: true, path: 'img/logo.png' })
    expect((await cli(['restore', 'v1', '--json'], dir)).json()).toEqual({ id, restored: 'v1', versionId: 'v4' })
    expect((await cli(['unpublish', '--json'], dir)).json()).toMatchObject({ project: { status: 'draft' } })
    expect((await cli(['rm', '--yes', '--json'], dir)).json()).toEqual({ success: true, id, deleted: true })
  })

  it('an id given wins over the link', async () => {
    const dir = await site('wins')
    const { id } = (await cli(['create', 'Linked one', '--dir', dir, '--json'], work)).json()
    const elsewhere = await s.api.create('Named one', { 'index.html': 'x' })
    expect((await cli(['publish', elsewhere, '--json'], dir)).json()).toMatchObject({ project: { id: elsewhere } })
    expect((await s.api.send(getFolio, { params: { id } })).body.status).toBe('draft')
    // A 404 names the folio meant: the linked one.
    await s.api.send(deleteFolio, { params: { id } })
    const gone = await cli(['versions'], dir)
    expect(gone.code).toBe(1)
    expect(gone.stderr).toBe(`folio: No folio ${id} on ${s.ts.url}; folio list shows the folios there.\n`)
  })
})

describe('folio sync <id> <folder> links the folder', () => {
  it('after a push that worked; later runs need neither the id nor the folder, or just the folder', async () => {
    const id = await s.api.create('Synced', { 'index.html': 'old' })
    const dir = await site('synced')
    const first = await cli(['sync', id, dir], work)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toContain(`Linked ${dir} to ${id}`)
    expect(await linkOf(dir)).toEqual({ server: s.ts.url, id })
    await writeFile(join(dir, 'index.html'), 'new')
    expect((await cli(['sync', dir, '--json'], work)).json()).toMatchObject({ versionId: 'v3', updated: 1 })
    expect((await cli(['sync', '--dry-run', '--json'], dir)).json()).toMatchObject({ event: 'plan', added: [], updated: [], deleted: [] })

    // A wrong id links nothing.
    const wrong = await site('wrong-id')
    expect((await cli(['sync', 'nope1234', wrong], work)).code).toBe(1)
    expect(await stat(join(wrong, '.folio')).catch(() => undefined)).toBeUndefined()
  })

  it('sync --watch in a linked folder pushes every save', async () => {
    const id = await s.api.create('Watched', { 'index.html': 'x' })
    const dir = await site('watched')
    expect((await cli(['sync', id, dir], work)).code).toBe(0)
    const watch = spawnCli(['--server', s.ts.url, 'sync', '--watch', '--json', '--debounce', '100'], config, { cwd: join(dir, 'css') })
    try {
      await watch.waitForLine((l) => l.includes('"event":"watching"'))
      await writeFile(join(dir, 'index.html'), '<h1>saved</h1>')
      const pushed = JSON.parse(await watch.waitForLine((l) => l.includes('"event":"synced"') && l.includes('"changed":true')))
      expect(pushed).toMatchObject({ updated: 1, paths: ['index.html'] })
    } finally {
      watch.child.kill('SIGINT')
      expect(await watch.exited).toBe(0)
    }
  })
})

describe('when the link cannot be used', () => {
  it('refuses a link to another server than the one in use, naming both', async () => {
    const dir = await site('other-server')
    const { id } = (await cli(['create', 'Over there', '--dir', dir, '--json'], work)).json()
    const result = await runCli(['--server', other.url, 'versions'], config, { cwd: dir })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      `folio: This folder is linked to folio ${id} on ${s.ts.url} (.folio/link.json), but the server in use is ${other.url} (--server). Pass --server ${s.ts.url}, or give the id of a folio on ${other.url}.\n`,
    )
    const fromEnv = await runCli(['sync', '--json'], { ...config, FOLIO_URL: other.url }, { cwd: join(dir, 'css') })
    expect(fromEnv.code).toBe(2)
    expect(fromEnv.json().message).toContain(`(../.folio/link.json), but the server in use is ${other.url} (FOLIO_URL)`)
  })

  it('says how to link when there is no link, and what is wrong with a damaged one', async () => {
    const plain = await site('plain')
    for (const args of [['versions'], ['sync'], ['publish'], ['comments']]) {
      const result = await cli(args, plain)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toContain(
        `No folio id given, and ${plain} is not in a linked folder: pass the id (folio list shows them), or link the folder with folio sync <id> <folder>.`,
      )
    }
    const id = await s.api.create('Id only')
    expect((await cli(['sync', id], plain)).stderr).toContain(`folio sync ${id} needs the folder to push: folio sync ${id} <folder>`)
    await mkdir(join(plain, '.folio'))
    await writeFile(join(plain, '.folio', 'link.json'), '{"server": 3}')
    const damaged = await cli(['versions'], plain)
    expect(damaged.code).toBe(1)
    expect(damaged.stderr).toContain(`${join(plain, '.folio', 'link.json')} is not a folio link`)
  })

  it('is explained in folio --help', async () => {
    const { stdout } = await runCli(['--help'])
    expect(stdout).toContain('<folder>/.folio/link.json')
    expect(stdout).toContain('An id on the command line wins')
    expect((await runCli(['sync', '--help'])).stdout).toContain('Usage: folio sync [options] [id] [dir]')
  })
})
