import { once } from 'node:events'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { testApi } from './helpers/api.js'
import { runCli } from './helpers/cli.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'

// Issue 26: localhost, 127.0.0.1 and the machine's own addresses on one port are one server for
// links, logins and keys; a linked folder names its server when nothing else does.
let guarded: TestServer // needs its key: a command that works proves the key went there
let open: TestServer
const KEY = `folio_live_${'cd'.repeat(24)}`
let work: string
let dirs = 0

beforeAll(async () => {
  guarded = await startTestServer({ config: { apiKey: KEY } })
  open = await startTestServer()
  work = await mkdtemp(join(tmpdir(), 'folio-server-names-'))
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
  await closeClean(guarded)
  await closeClean(open)
})

const portOf = (url: string) => new URL(url).port
const freshConfig = () => ({ FOLIO_CONFIG_DIR: join(work, `config-${++dirs}`) })

/** A folder with a page, linked (as folio create --dir or folio sync would) to `id` on `server`. */
async function linkedFolder(server: string, id: string): Promise<string> {
  const dir = join(work, `site-${++dirs}`)
  await mkdir(join(dir, '.folio'), { recursive: true })
  await writeFile(join(dir, 'index.html'), `<h1>site ${dirs}</h1>`)
  await writeFile(join(dir, '.folio', 'link.json'), JSON.stringify({ server, id }))
  return dir
}

describe('a linked folder and a login that name one server differently', () => {
  it('works with a folder linked through 127.0.0.1 and a login saved as localhost (README’s form)', async () => {
    const port = portOf(guarded.url)
    const id = await testApi(guarded.url, { key: KEY }).create('Linked by address')
    const dir = await linkedFolder(`http://127.0.0.1:${port}`, id)
    const env = freshConfig()
    const login = await runCli(['login', '--server', `localhost:${port}`, '--key', KEY], env, { cwd: dir })
    expect(login.code, login.stderr).toBe(0)
    expect(JSON.parse(await readFile(join(env.FOLIO_CONFIG_DIR, 'profile.json'), 'utf8'))).toEqual({ server: `http://localhost:${port}`, key: KEY })

    const synced = await runCli(['sync', '--json'], env, { cwd: dir })
    expect(synced.code, synced.stderr).toBe(0)
    expect(synced.json()).toMatchObject({ versionId: 'v2' })
    const versions = await runCli(['versions', '--json'], env, { cwd: dir })
    expect(versions.code, versions.stderr).toBe(0)
    expect(versions.json().map((v: { versionId: string }) => v.versionId)).toEqual(['v1', 'v2'])
    expect((await runCli(['whoami', '--json'], env, { cwd: dir })).json()).toMatchObject({
      server: `http://localhost:${port}`,
      serverSource: 'profile',
      key: 'accepted',
    })
  })

  it('and the other way round: linked as localhost, logged in as 127.0.0.1', async () => {
    const port = portOf(guarded.url)
    const id = await testApi(guarded.url, { key: KEY }).create('Linked by name')
    const dir = await linkedFolder(`http://localhost:${port}`, id)
    const env = freshConfig()
    expect((await runCli(['login', '--server', `127.0.0.1:${port}`, '--key', KEY], env)).code).toBe(0)
    const synced = await runCli(['sync', '--json'], env, { cwd: dir })
    expect(synced.code, synced.stderr).toBe(0)
    expect(synced.json()).toMatchObject({ versionId: 'v2' })
    const published = await runCli(['publish', '--json'], env, { cwd: dir })
    expect(published.code, published.stderr).toBe(0)
    expect((await testApi(guarded.url, { key: KEY }).send(getFolio, { params: { id } })).body.status).toBe('published')
  })

  it('still refuses a link to another port than the login’s server', async () => {
    const id = await testApi(open.url).create('Elsewhere')
    const dir = await linkedFolder(open.url, id)
    const env = freshConfig()
    expect((await runCli(['login', '--server', `localhost:${portOf(guarded.url)}`, '--key', KEY], env)).code).toBe(0)
    const refused = await runCli(['versions'], env, { cwd: dir })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`This folder is linked to folio ${id} on ${open.url}`)
  })
})

describe('a linked folder without a login or FOLIO_URL', () => {
  it("sends the commands to the link's server (not the default :3000), and says where it came from", async () => {
    expect(portOf(open.url)).not.toBe('3000')
    const id = await testApi(open.url).create('Follows the link')
    const dir = await linkedFolder(open.url, id)
    const below = join(dir, 'css')
    await mkdir(below)
    const versions = await runCli(['versions', '--json'], freshConfig(), { cwd: below })
    expect(versions.code, versions.stderr).toBe(0)
    expect(versions.json().map((v: { versionId: string }) => v.versionId)).toEqual(['v1'])
    const synced = await runCli(['sync', '--json'], freshConfig(), { cwd: dir })
    expect(synced.code, synced.stderr).toBe(0)
    expect(synced.json()).toMatchObject({ versionId: 'v2' })
    const whoami = await runCli(['whoami'], freshConfig(), { cwd: dir })
    expect(whoami.stdout).toContain(`Server:    ${open.url} (the linked folder's server (${join(dir, '.folio', 'link.json')}))`)
    expect((await runCli(['whoami', '--json'], freshConfig(), { cwd: dir })).json()).toMatchObject({ server: open.url, serverSource: 'link' })
  })

  it('sends FOLIO_API_KEY there when the link names this machine, by any of its names', async () => {
    const id = await testApi(guarded.url, { key: KEY }).create('Keyed link')
    const dir = await linkedFolder(`http://localhost:${portOf(guarded.url)}`, id)
    const synced = await runCli(['sync', '--json'], { ...freshConfig(), FOLIO_API_KEY: KEY }, { cwd: dir })
    expect(synced.code, synced.stderr).toBe(0)
    expect(synced.json()).toMatchObject({ versionId: 'v2' })
  })
})

/** A listener that records who sent which Authorization header, and answers an empty folio list. */
async function recorder(): Promise<{ url: string; port: string; seen: Array<{ host?: string; authorization?: string }>; server: Server }> {
  const seen: Array<{ host?: string; authorization?: string }> = []
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = req.headers
    seen.push({ host: headers.host, authorization: headers.authorization })
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = String((server.address() as AddressInfo).port)
  return { url: `http://127.0.0.1:${port}`, port, seen, server }
}

describe('where a saved key may go', () => {
  const alias = pathToFileURL(fileURLToPath(new URL('./helpers/dns-alias.mjs', import.meta.url))).href
  // evil.example reaches the recorder on this machine, as a DNS name that is not localhost may.
  const viaDns = {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${alias}`.trim(),
    FOLIO_TEST_DNS_ALIASES: JSON.stringify({ 'evil.example': '127.0.0.1' }),
  }

  it('goes to its server by another name, never to another port or a host that is not this machine', async () => {
    const home = await recorder()
    const elsewhere = await recorder()
    try {
      const env = { ...freshConfig(), ...viaDns }
      expect((await runCli(['login', '--server', `localhost:${home.port}`, '--key', 'folio_live_saved', '--no-verify'], env)).code).toBe(0)

      const list = async (server: string) => {
        const result = await runCli(['--server', server, 'list', '--json'], env)
        expect(result.code, result.stderr).toBe(0)
      }
      await list(`http://127.0.0.1:${home.port}`)
      expect(home.seen.at(-1)).toEqual({ host: `127.0.0.1:${home.port}`, authorization: 'Bearer folio_live_saved' })
      await list(`localhost:${home.port}`)
      expect(home.seen.at(-1)!.authorization).toBe('Bearer folio_live_saved')

      await list(`http://127.0.0.1:${elsewhere.port}`)
      await list(`http://localhost:${elsewhere.port}`)
      expect(elsewhere.seen).toHaveLength(2)
      for (const request of elsewhere.seen) expect(request.authorization).toBeUndefined()

      // Same port, but a host that is not this machine (it only resolves here).
      const before = home.seen.length
      await list(`http://evil.example:${home.port}`)
      const result = await runCli(['list', '--json'], { ...env, FOLIO_URL: `http://evil.example:${home.port}` })
      expect(result.code, result.stderr).toBe(0)
      expect(home.seen.slice(before)).toEqual([
        { host: `evil.example:${home.port}`, authorization: undefined },
        { host: `evil.example:${home.port}`, authorization: undefined },
      ])
    } finally {
      home.server.close()
      elsewhere.server.close()
    }
  })

  it('a folder linked to a host that is not this machine gets no key from FOLIO_API_KEY or --key', async () => {
    const far = await recorder()
    try {
      const dir = await linkedFolder(`http://evil.example:${far.port}`, 'k3x9q2')
      const env = { ...freshConfig(), ...viaDns }
      expect((await runCli(['list', '--json'], { ...env, FOLIO_API_KEY: 'folio_live_env' }, { cwd: dir })).code).toBe(0)
      expect((await runCli(['--key', 'folio_live_flag', 'list', '--json'], env, { cwd: dir })).code).toBe(0)
      expect(far.seen).toEqual([
        { host: `evil.example:${far.port}`, authorization: undefined },
        { host: `evil.example:${far.port}`, authorization: undefined },
      ])
      const whoami = await runCli(['whoami', '--json'], { ...env, FOLIO_API_KEY: 'folio_live_env' }, { cwd: dir })
      expect(whoami.json()).toMatchObject({ serverSource: 'link', keySource: 'none', keyWithheld: 'FOLIO_API_KEY' })
      // Login there asks for the server to be named before it saves a key for it.
      const login = await runCli(['login', '--key', 'folio_live_flag', '--no-verify'], env, { cwd: dir })
      expect(login.code).toBe(2)
      expect(login.stderr).toContain(`folio login --server http://evil.example:${far.port} --key <key>`)
      // Named by the user, the server gets the key.
      expect((await runCli(['--server', `http://evil.example:${far.port}`, '--key', 'folio_live_flag', 'list', '--json'], env, { cwd: dir })).code).toBe(0)
      expect(far.seen.at(-1)!.authorization).toBe('Bearer folio_live_flag')
    } finally {
      far.server.close()
    }
  })
})
