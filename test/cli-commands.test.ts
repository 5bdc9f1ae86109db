import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile } from 'node:child_process'
import { getFolio, updateFolio } from '../src/api/files.js'
import { getSyncManifest } from '../src/api/sync.js'
import { controlTunnel } from '../src/api/tunnel.js'
import { sharePage } from '../src/api/viewer.js'
import { testApi } from './helpers/api.js'
import { startLoopbackTunnelServer } from './helpers/localtunnel-server.js'
import { cliEnv, runCli } from './helpers/cli.js'
import { BIN } from './helpers/cli-process.js'
import { recordingProxy } from './helpers/cli-proxy.js'
import { tinyGif, tinyPng } from './helpers/images.js'
import { startTestServer } from './helpers/server.js'
import { closeClean, expectLogged, useServer } from './helpers/use-server.js'

const s = useServer()
let work: string
let cli: (args: string[], env?: Record<string, string>) => ReturnType<typeof runCli>

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-cli-'))
  const configDir = join(work, 'config')
  cli = (args, env = {}) => runCli(['--server', s.ts.url, ...args], { FOLIO_CONFIG_DIR: configDir, ...env })
})
afterAll(async () => {
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
    expect(url).toBe(`${s.ts.url}/share/${id}`)
    expect(status).toBe('published')
    expect(files).toBe(3)
    const folio = (await s.api.send(getFolio, { params: { id } })).body
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
    const folio = (await s.api.send(getFolio, { params: { id } })).body
    expect(folio).toMatchObject({ isPrivate: true, accessKey: 'blue whale', status: 'published' })
    expect(folio.versions[0].files['index.html']).toContain('Secret')
    const generated = (await cli(['create', 'Secret 2', '--private', '--json'])).json()
    expect(generated.accessKey).toMatch(/^[A-Za-z0-9]{20}$/)
  })

  it('never makes a --publish --private folio public, not even between two requests', async () => {
    const proxy = await recordingProxy(s.ts.url)
    try {
      const created = await runCli(['--server', proxy.url, 'create', 'Board pack', '--publish', '--private', '--json'])
      expect(created.code).toBe(0)
      expect(created.json()).toMatchObject({ status: 'published' })
      // The create call makes a draft; the one update makes it private and published together.
      expect(proxy.bodiesOf('POST', /^\/api\/files$/)).toEqual([expect.objectContaining({ status: 'draft' })])
      expect(proxy.bodiesOf('PUT', /^\/api\/files\//)).toEqual([expect.objectContaining({ isPrivate: true, status: 'published' })])
      const folio = (await s.api.send(getFolio, { params: { id: created.json().id } })).body
      expect(folio).toMatchObject({ isPrivate: true, status: 'published' })
    } finally {
      await proxy.close()
    }
  })

  it('lists, shows versions, restores, and opens', async () => {
    const { api } = s
    const id = await api.create('History', { 'index.html': 'one' })
    await api.send(updateFolio, { params: { id }, body: { files: { 'index.html': 'two' }, commitMessage: 'second' } })
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
    expect((await api.send(getFolio, { params: { id } })).body.versions[2].files).toEqual({ 'index.html': 'one' })
    // open: a draft opens as the owner's preview; $BROWSER is the opener.
    const opened = join(work, 'opened.txt')
    const script = join(work, 'browser.sh')
    await writeFile(script, `#!/bin/sh\necho "$1" > ${opened}\n`, { mode: 0o755 })
    const open = await cli(['open', id], { BROWSER: script })
    expect(open.code).toBe(0)
    await expect.poll(async () => (await stat(opened).catch(() => undefined))?.size ?? 0).toBeGreaterThan(0)
    const { readFile } = await import('node:fs/promises')
    expect((await readFile(opened, 'utf8')).trim()).toBe(`${s.ts.url}/share/${id}?preview=1`)
    expect(open.stdout).toBe(`Opened ${s.ts.url}/share/${id}?preview=1\n`)
  })

  it('open does not claim to have opened what the opener failed to open, and prints the URL', async () => {
    const id = await s.api.create('No browser')
    const failing = join(work, 'no-browser.sh')
    await writeFile(failing, '#!/bin/sh\necho "no method available for opening" >&2\nexit 3\n', { mode: 0o755 })
    const open = await cli(['open', id], { BROWSER: failing })
    expect(open.code).toBe(0)
    expect(open.stdout).not.toContain('Opened')
    expect(open.stdout).toContain('No browser could be opened')
    expect(open.stdout).toContain(`${s.ts.url}/share/${id}?preview=1`)
    const missing = await cli(['open', id], { BROWSER: join(work, 'does-not-exist') })
    expect(missing.stdout).toContain('No browser could be opened')
  })

  it('fails with a clear message and a non-zero code', async () => {
    const unknown = await cli(['versions', 'nope1234'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe(`folio: No folio nope1234 on ${s.ts.url}; folio list shows the folios there.\n`)
    for (const command of [
      ['open', 'nope1234'],
      ['restore', 'nope1234', 'v1'],
      ['sync', 'nope1234', work],
    ]) {
      const result = await cli(command)
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`No folio nope1234 on ${s.ts.url}; folio list shows the folios there.`)
    }
    const badRestore = await cli(['restore', await s.api.create('R'), 'v9'])
    expect(badRestore.code).toBe(1)
    expect(badRestore.stderr).toContain('v9 does not exist')
    const away = await runCli(['list', '--server', 'http://127.0.0.1:9'])
    expect(away.code).toBe(1)
    expect(away.stderr).toContain('Cannot reach the folio server at http://127.0.0.1:9')
    expect(away.stderr).toContain('folio serve')
    const both = await cli(['create', 'x', '--html', 'a', '--dir', 'b'])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--html or --dir')
  })

  it('points at the right --help after a usage mistake, and names the source of a bad server URL', async () => {
    const option = await cli(['sync', 'abc', work, '--bogus'])
    expect(option.code).toBe(2)
    expect(option.stderr).toContain("unknown option '--bogus'")
    expect(option.stderr).toContain('See folio sync --help.')
    const missing = await runCli(['create'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('folio: Give the folio a title, e.g. folio create "Q3 review", or --dir/--html')
    expect((await runCli(['upload'])).stderr).toBe('folio: Name the image files to upload: folio upload <id> <files...> (folio upload --help).\n')
    const typo = await runCli(['lsit'])
    expect(typo.stderr).toContain('See folio --help.')
    expect((await runCli(['--help'])).stderr).toBe('')
    const badEnv = await runCli(['list'], { FOLIO_URL: 'ftp://localhost:3000' })
    expect(badEnv.stderr).toBe('folio: FOLIO_URL must be an http(s) URL like http://127.0.0.1:3000 (or just localhost:3000), got "ftp://localhost:3000".\n')
    const badFlag = await runCli(['list', '--server', 'http://[::1'])
    expect(badFlag.stderr).toBe('folio: --server is not a valid URL: "http://[::1".\n')
  })

  it('lists the environment it reads in --help', async () => {
    const { stdout } = await runCli(['--help'])
    for (const name of ['FOLIO_URL', 'FOLIO_API_KEY', 'FOLIO_CONFIG_DIR', 'FOLIO_TUNNEL_HOST', 'BROWSER'])
      expect(stdout).toMatch(new RegExp(`^  ${name}\\s`, 'm'))
  })

  it('exits quietly when the reader of its output goes away (folio status --json | true)', async () => {
    for (let i = 0; i < 5; i++) await s.api.create(`Pipe ${i}`)
    for (const args of ['status --json', 'list']) {
      const shell = await new Promise<{ stderr: string }>((resolve) =>
        execFile('sh', ['-c', `"${process.execPath}" "${BIN}" ${args} --server ${s.ts.url} | true`], { env: cliEnv() }, (_error, _stdout, stderr) =>
          resolve({ stderr }),
        ),
      )
      expect(shell.stderr).toBe('')
    }
  })
})

describe('folio upload', () => {
  it('uploads one image, or a batch, into the latest version', async () => {
    const { api } = s
    const id = await api.create('Pics', { 'index.html': 'x' })
    const dir = await site('pics', { 'logo.png': tinyPng(), 'anim.gif': tinyGif(), 'notes.txt': 'text', 'more.txt': 'more' })
    const one = await cli(['upload', id, join(dir, 'logo.png'), '--to', 'img', '--json'])
    expect(one.json()).toMatchObject({ success: true, path: 'img/logo.png' })
    const batch = await cli(['upload', id, join(dir, 'anim.gif'), join(dir, 'notes.txt'), join(dir, 'logo.png'), '--json'])
    expect(batch.json()).toMatchObject({ count: 2, paths: ['anim.gif', 'logo.png'], skipped: ['notes.txt'] })
    // Some landed: exit 0, and the skipped file is named on stderr (stdout stays the result).
    expect(batch.code).toBe(0)
    expect(batch.stderr).toBe('folio: skipped 1 file(s) that are not images: notes.txt; use folio sync for those.\n')
    const text = await cli(['upload', id, join(dir, 'anim.gif'), join(dir, 'notes.txt')])
    expect(text.stdout).toBe('Uploaded 1 image(s) into the latest version\n')
    expect(text.stderr).toContain('notes.txt')
    const nothing = await cli(['upload', id, join(dir, 'notes.txt'), join(dir, 'more.txt')])
    expect(nothing.code).toBe(1)
    expect(nothing.stderr).toContain('No image files')
    const folio = (await api.send(getFolio, { params: { id } })).body
    expect(folio.versionCount).toBe(1)
    expect(Object.keys(folio.versions[0].files).sort()).toEqual(['anim.gif', 'img/logo.png', 'index.html', 'logo.png'])
    const refused = await cli(['upload', id, join(dir, 'notes.txt')])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('Unsupported file type')
  })

  it('refuses two files that would land at the same path, and sends a file named twice once', async () => {
    const { api } = s
    const id = await api.create('Same names', { 'index.html': 'x' })
    const a = await site('same-a', { 'shots/a.png': tinyPng() })
    const b = await site('same-b', { 'd2/a.png': tinyGif() })
    const clash = await cli(['upload', id, join(a, 'shots/a.png'), join(b, 'd2/a.png'), '--to', 'img'])
    expect(clash.code).toBe(1)
    expect(clash.stderr).toContain(`${join(a, 'shots/a.png')} and ${join(b, 'd2/a.png')} would both be uploaded as img/a.png`)
    expect(clash.stderr).toContain('--to')
    expect(Object.keys((await api.send(getFolio, { params: { id } })).body.versions[0].files)).toEqual(['index.html'])
    const twice = await cli(['upload', id, join(a, 'shots/a.png'), join(a, 'shots/a.png'), '--json'])
    expect(twice.code).toBe(0)
    expect(twice.json()).toMatchObject({ success: true, path: 'a.png' })
  })

  it('streams a large file with a size it announces', async () => {
    const { api } = s
    const id = await api.create('Big', { 'index.html': 'x' })
    const big = Buffer.concat([tinyPng(), Buffer.alloc(5 * 1024 * 1024, 7)])
    const dir = await site('big', { 'big.png': big })
    const result = await cli(['upload', id, join(dir, 'big.png'), '--json'])
    expect(result.json()).toMatchObject({ success: true, path: 'big.png', bytes: big.length })
    const manifest = (await api.send(getSyncManifest, { params: { id } })).body
    expect(manifest.files['big.png'].size).toBe(big.length)
  })
})

describe('folio sync', () => {
  it('pushes only what changed, deletions included, and nothing at all the second time', async () => {
    const { api } = s
    const id = await api.create('Synced', { 'index.html': 'old', 'gone.css': 'x{}' })
    const dir = await site('synced', { 'index.html': 'new', 'a/b.css': 'b{}', 'logo.png': tinyPng(), '.gitignore': 'tmp/\n', 'tmp/cache.txt': 'junk' })
    // gone.css never came from this folder: a first sync keeps it (and says so); --mirror deletes it.
    const first = (await cli(['sync', id, dir, '--json'])).json()
    expect(first).toMatchObject({ event: 'synced', versionId: 'v2', changed: true, added: 2, updated: 1, deleted: 0, filesSent: 3, kept: ['gone.css'] })
    const second = (await cli(['sync', id, dir, '--json'])).json()
    expect(second).toMatchObject({ changed: false, versionId: 'v2', filesSent: 0, bytesSent: 0 })
    const mirrored = (await cli(['sync', id, dir, '--mirror', '--json'])).json()
    expect(mirrored).toMatchObject({ versionId: 'v3', deleted: 1, deletedPaths: ['gone.css'], filesSent: 0 })
    const files = (await api.send(getFolio, { params: { id } })).body.versions[2].files
    expect(Object.keys(files).sort()).toEqual(['a/b.css', 'index.html', 'logo.png'])
    const human = await cli(['sync', id, dir])
    expect(human.stdout.trim()).toBe('Up to date (v3)')
  })
})

describe('folio tunnel', () => {
  it('start --tunnel-host --subdomain: another tunnel server this time, and a name of its own when it gives one', async () => {
    const relay = await startLoopbackTunnelServer({ takenSubdomain: 'random' })
    // Both servers' own tunnel host is unreachable: only --tunnel-host can make a tunnel here.
    const config = { config: { tunnel: { host: 'http://127.0.0.1:9', startTimeoutMs: 5000 } } }
    const first = await startTestServer(config)
    const second = await startTestServer(config)
    try {
      const id = await testApi(first.url).create('Through', { 'index.html': '<h1>Through the named tunnel</h1>' }, { status: 'published' })
      // No scheme: a local name gets http://, like --server.
      const started = await runCli([
        '--server',
        first.url,
        'tunnel',
        'start',
        '--tunnel-host',
        relay.url.replace('http://', ''),
        '--subdomain',
        'q3-review',
        '--json',
      ])
      expect(started.code, started.stderr).toBe(0)
      // A wall-less tunnel server: nothing is claimed about what viewers see.
      expect(started.json()).toEqual({
        success: true,
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        provider: 'localtunnel',
        viewerPassword: null,
        viewerNotice: null,
      })
      expect(relay.ids()).toEqual(['q3-review'])
      expect((await testApi(started.json().url).send(sharePage, { params: { id } })).text).toContain('Through')
      const again = await runCli(['--server', first.url, 'tunnel', 'start', '--subdomain', 'other-name'])
      expect(again.stdout).toContain(
        'A tunnel is already running through localtunnel (folio tunnel stop, then start, to change its provider, server or subdomain).',
      )

      // The name is taken: the tunnel server gives another, and the CLI says so.
      const taken = await runCli(['--server', second.url, 'tunnel', 'start', '--tunnel-host', relay.url, '--subdomain', 'q3-review'])
      expect(taken.code, taken.stderr).toBe(0)
      expect(taken.stdout).toMatch(
        /^The tunnel server gave another address than the subdomain q3-review \(taken\?\)\.\nPublic URL: http:\/\/127\.0\.0\.1:\d+ \(localtunnel\)\n$/,
      )
      expect(relay.ids()).toHaveLength(2)

      for (const args of [
        ['tunnel', 'stop', '--subdomain', 'q3-review'],
        ['tunnel', 'start', '--subdomain', 'No Spaces'],
        ['tunnel', 'start', '--tunnel-host', 'ftp://x'],
      ]) {
        const refused = await runCli(['--server', first.url, ...args])
        expect(refused.code, args.join(' ')).toBe(2)
      }
      expect((await testApi(first.url).send(controlTunnel, { body: { action: 'start', host: 'http://x/some/path' } })).status).toBe(400)
    } finally {
      await closeClean(first)
      await closeClean(second)
      await relay.close()
    }
  })

  it('says what to do next when the tunnel cannot start', async () => {
    const unreachableTunnelHost = await startTestServer({ config: { tunnel: { host: 'http://127.0.0.1:9', startTimeoutMs: 3000 } } })
    try {
      const started = await runCli(['--server', unreachableTunnelHost.url, 'tunnel', 'start'])
      expect(started.code).toBe(1)
      expect(started.stderr).toContain('The tunnel failed:')
      expect(started.stderr).toContain("Check this machine's network connection")
      expect(started.stderr).toContain('--tunnel-host')
      expect(started.stderr).toContain('FOLIO_TUNNEL_HOST')
      expectLogged(unreachableTunnelHost, [
        'folio: [tunnel] Tunnel failed to start: Could not reach the tunnel server http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9',
      ])
    } finally {
      await closeClean(unreachableTunnelHost)
    }
  })
})
