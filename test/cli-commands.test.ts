import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from './helpers/cli.js'
import { client } from './helpers/http.js'
import { tinyGif, tinyPng } from './helpers/images.js'
import { startTestServer, type TestServer } from './helpers/server.js'

let ts: TestServer
let work: string
let cli: (args: string[], env?: Record<string, string>) => ReturnType<typeof runCli>

beforeAll(async () => {
  ts = await startTestServer()
  work = await mkdtemp(join(tmpdir(), 'folio-cli-'))
  const configDir = join(work, 'config')
  cli = (args, env = {}) => runCli(['--server', ts.url, ...args], { FOLIO_CONFIG_DIR: configDir, ...env })
})
afterAll(async () => {
  await ts.close()
  await rm(work, { recursive: true, force: true })
})

async function site(name: string, files: Record<string, string | Buffer>): Promise<string> {
  const dir = join(work, name)
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), content)
  }
  return dir
}

describe('folio create, list, versions, restore, open', () => {
  it('creates a folio from a folder, honouring .gitignore and .folioignore, and prints id and share URL', async () => {
    const dir = await site('deck', {
      'index.html': '<link rel="stylesheet" href="css/site.css"><h1>Deck</h1>',
      'css/site.css': 'h1{color:teal}',
      'img/logo.png': tinyPng(),
      '.gitignore': 'drafts/\n*.log\n',
      '.folioignore': 'secret.txt\n',
      'drafts/wip.html': 'not yet',
      'debug.log': 'noise',
      'secret.txt': 'hush',
      'node_modules/x/index.js': 'nope',
    })
    const created = await cli(['create', 'Quarterly', '--dir', dir, '--publish', '--json'])
    expect(created.code).toBe(0)
    const { id, url, status, files } = created.json()
    expect(url).toBe(`${ts.url}/share/${id}`)
    expect(status).toBe('published')
    expect(files).toBe(3)
    const folio = (await client(ts.url).get(`/api/files/${id}`)).body
    expect(Object.keys(folio.versions[0].files).sort()).toEqual(['css/site.css', 'img/logo.png', 'index.html'])
    expect(folio.versions[0].files['img/logo.png']).toBe(`data:image/png;base64,${tinyPng().toString('base64')}`)
    const text = await cli(['create', 'Plain', '--html', join(dir, 'index.html')])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^Created \w+ \(draft, 1 file\(s\)\)\nShare: http/)
  })

  it('creates private folios with a printed access key, and a starter page without files', async () => {
    const secret = await cli(['create', 'Secret', '--publish', '--private', '--access-key', 'blue whale', '--json'])
    const { id, accessKey } = secret.json()
    expect(accessKey).toBe('blue whale')
    const folio = (await client(ts.url).get(`/api/files/${id}`)).body
    expect(folio).toMatchObject({ isPrivate: true, accessKey: 'blue whale', status: 'published' })
    expect(folio.versions[0].files['index.html']).toContain('Secret')
    const generated = (await cli(['create', 'Secret 2', '--private', '--json'])).json()
    expect(generated.accessKey).toMatch(/^[A-Za-z0-9]{16}$/)
  })

  it('lists, shows versions, restores, and opens', async () => {
    const api = client(ts.url)
    const id = await api.create('History', { 'index.html': 'one' })
    await api.put(`/api/files/${id}`, { files: { 'index.html': 'two' }, commitMessage: 'second' })
    const list = await cli(['list', '--json'])
    expect(list.json().find((f: any) => f.id === id).title).toBe('History')
    expect((await cli(['list'])).stdout).toMatch(/^ID\s+TITLE\s+STATUS/)
    const versions = (await cli(['versions', id, '--json'])).json()
    expect(versions.map((v: any) => [v.versionId, v.commitMessage])).toEqual([
      ['v1', 'Initial version'],
      ['v2', 'second'],
    ])
    const restored = await cli(['restore', id, 'v1', '--json'])
    expect(restored.json()).toEqual({ id, restored: 'v1', versionId: 'v3' })
    expect((await api.get(`/api/files/${id}`)).body.versions[2].files).toEqual({ 'index.html': 'one' })
    // open: a draft opens as the owner's preview; $BROWSER is the opener.
    const opened = join(work, 'opened.txt')
    const script = join(work, 'browser.sh')
    await writeFile(script, `#!/bin/sh\necho "$1" > ${opened}\n`, { mode: 0o755 })
    const open = await cli(['open', id], { BROWSER: script })
    expect(open.code).toBe(0)
    await expect.poll(async () => (await stat(opened).catch(() => undefined))?.size ?? 0).toBeGreaterThan(0)
    const { readFile } = await import('node:fs/promises')
    expect((await readFile(opened, 'utf8')).trim()).toBe(`${ts.url}/share/${id}?preview=1`)
  })

  it('fails with a clear message and a non-zero code', async () => {
    const unknown = await cli(['versions', 'nope1234'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('Project not found')
    const badRestore = await cli(['restore', (await client(ts.url).create('R')), 'v9'])
    expect(badRestore.code).toBe(1)
    expect(badRestore.stderr).toContain('v9 does not exist')
    const away = await runCli(['list', '--server', 'http://127.0.0.1:9'])
    expect(away.code).toBe(2)
    expect(away.stderr).toContain('Cannot reach the folio server at http://127.0.0.1:9')
    expect(away.stderr).toContain('folio serve')
    const both = await cli(['create', 'x', '--html', 'a', '--dir', 'b'])
    expect(both.code).toBe(1)
    expect(both.stderr).toContain('--html or --dir')
  })
})

describe('folio upload', () => {
  it('uploads one image, or a batch, into the latest version', async () => {
    const api = client(ts.url)
    const id = await api.create('Pics', { 'index.html': 'x' })
    const dir = await site('pics', { 'logo.png': tinyPng(), 'anim.gif': tinyGif(), 'notes.txt': 'text' })
    const one = await cli(['upload', id, join(dir, 'logo.png'), '--to', 'img', '--json'])
    expect(one.json()).toMatchObject({ success: true, path: 'img/logo.png' })
    const batch = await cli(['upload', id, join(dir, 'anim.gif'), join(dir, 'notes.txt'), join(dir, 'logo.png'), '--json'])
    expect(batch.json()).toMatchObject({ count: 2, paths: ['anim.gif', 'logo.png'], skipped: ['notes.txt'] })
    const folio = (await api.get(`/api/files/${id}`)).body
    expect(folio.versionCount).toBe(1)
    expect(Object.keys(folio.versions[0].files).sort()).toEqual(['anim.gif', 'img/logo.png', 'index.html', 'logo.png'])
    const refused = await cli(['upload', id, join(dir, 'notes.txt')])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('Unsupported file type')
  })

  it('streams a large file with a size it announces', async () => {
    const api = client(ts.url)
    const id = await api.create('Big', { 'index.html': 'x' })
    const big = Buffer.concat([tinyPng(), Buffer.alloc(5 * 1024 * 1024, 7)])
    const dir = await site('big', { 'big.png': big })
    const result = await cli(['upload', id, join(dir, 'big.png'), '--json'])
    expect(result.json()).toMatchObject({ success: true, path: 'big.png', bytes: big.length })
    const manifest = (await api.get(`/api/files/${id}/sync`)).body
    expect(manifest.files['big.png'].size).toBe(big.length)
  })
})

describe('folio keys and login', () => {
  it('shows, rotates and revokes the key', async () => {
    const shown = await cli(['keys'])
    expect(shown.code).toBe(1)
    expect(shown.stderr).toContain('folio keys rotate')
    const rotated = (await cli(['keys', 'rotate', '--json'])).json().apiKey
    expect(rotated).toMatch(/^folio_live_[0-9a-f]{48}$/)
    expect((await cli(['keys'])).stdout.trim()).toBe(rotated)
    expect((await cli(['keys', 'revoke', '--json'])).json()).toEqual({ success: true })
  })

  it('saves a profile readable only by the user, and the other commands use it', async () => {
    const configDir = join(work, 'config-login')
    const login = await runCli(['login', '--server', ts.url, '--key', 'folio_live_x', '--json'], { FOLIO_CONFIG_DIR: configDir })
    expect(login.stderr).toBe('')
    expect(login.code).toBe(0)
    const { path } = login.json()
    expect(((await stat(path)).mode & 0o777).toString(8)).toBe('600')
    const list = await runCli(['list', '--json'], { FOLIO_CONFIG_DIR: configDir })
    expect(list.code).toBe(0)
    expect(Array.isArray(list.json())).toBe(true)
    const refused = await runCli(['login', '--server', 'http://127.0.0.1:9'], { FOLIO_CONFIG_DIR: join(work, 'config-refused') })
    expect(refused.code).toBe(2)
  })
})

describe('folio sync', () => {
  it('pushes only what changed, deletions included, and nothing at all the second time', async () => {
    const api = client(ts.url)
    const id = await api.create('Synced', { 'index.html': 'old', 'gone.css': 'x{}' })
    const dir = await site('synced', { 'index.html': 'new', 'a/b.css': 'b{}', 'logo.png': tinyPng(), '.gitignore': 'tmp/\n', 'tmp/cache.txt': 'junk' })
    const first = (await cli(['sync', id, dir, '--json'])).json()
    expect(first).toMatchObject({ event: 'synced', versionId: 'v2', changed: true, added: 2, updated: 1, deleted: 1, filesSent: 3 })
    const second = (await cli(['sync', id, dir, '--json'])).json()
    expect(second).toMatchObject({ changed: false, versionId: 'v2', filesSent: 0, bytesSent: 0 })
    const files = (await api.get(`/api/files/${id}`)).body.versions[1].files
    expect(Object.keys(files).sort()).toEqual(['a/b.css', 'index.html', 'logo.png'])
    const human = await cli(['sync', id, dir])
    expect(human.stdout.trim()).toBe('Up to date (v2)')
  })
})
