import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from './helpers/cli.js'
import { recordingProxy } from './helpers/cli-proxy.js'
import { testApi } from './helpers/api.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'
import { createWorkspace } from './helpers/workspaces.js'

/** Keys, login profiles and what the CLI says when a key is missing or wrong. */

let open: TestServer // OSS, open API, a key made with folio keys rotate
let guarded: TestServer // FOLIO_API_KEY set: the sync endpoint needs the key
const GUARD_KEY = `folio_live_${'ab'.repeat(24)}`
let work: string

beforeAll(async () => {
  open = await startTestServer()
  guarded = await startTestServer({ config: { apiKey: GUARD_KEY } })
  work = await mkdtemp(join(tmpdir(), 'folio-cli-auth-'))
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
  await closeClean(open)
  await closeClean(guarded)
})

let configs = 0
const freshConfig = () => ({ FOLIO_CONFIG_DIR: join(work, `config-${++configs}`) })
const profileOf = async (env: { FOLIO_CONFIG_DIR: string }) => JSON.parse(await readFile(join(env.FOLIO_CONFIG_DIR, 'profile.json'), 'utf8'))

describe('folio keys', () => {
  it('shows the key a fresh server made, rotates and revokes it, then says how to make one', async () => {
    const env = freshConfig()
    const made = (await runCli(['--server', open.url, 'keys'], env)).stdout.trim()
    expect(made).toMatch(/^folio_live_[0-9a-f]{48}$/)
    const rotated = (await runCli(['--server', open.url, 'keys', 'rotate', '--json'], env)).json().apiKey
    expect(rotated).toMatch(/^folio_live_[0-9a-f]{48}$/)
    expect(rotated).not.toBe(made)
    expect((await runCli(['--server', open.url, 'keys'], env)).stdout.trim()).toBe(rotated)
    expect((await runCli(['--server', open.url, 'keys', 'revoke', '--json'], env)).json()).toMatchObject({ success: true })
    const none = await runCli(['--server', open.url, 'keys'], env)
    expect(none.code).toBe(1)
    expect(none.stderr).toBe(`folio: ${open.url} has no API key yet: make one with folio keys rotate.\n`)
  })

  it('puts the new key in the login profile of that server after a rotation, and takes it out on revoke', async () => {
    const env = freshConfig()
    const first = (await runCli(['--server', open.url, 'keys', 'rotate', '--json'], env)).json().apiKey
    expect((await runCli(['login', '--server', open.url, '--key', first], env)).code).toBe(0)
    // The profile's key is the one sent: rotating with it must not leave the profile with a dead key.
    const rotated = await runCli(['keys', 'rotate'], env)
    expect(rotated.code).toBe(0)
    const second = rotated.stdout.split('\n')[1] ?? ''
    expect(second).toMatch(/^folio_live_/)
    expect(rotated.stdout).toContain(`Saved it in ${join(env.FOLIO_CONFIG_DIR, 'profile.json')}`)
    expect(await profileOf(env)).toEqual({ server: open.url, key: second })
    expect((await runCli(['list', '--json'], env)).code).toBe(0)
    // A profile for another server is left alone.
    const other = freshConfig()
    await runCli(['login', '--server', 'http://127.0.0.1:9', '--key', 'folio_live_other', '--no-verify'], other)
    const third = (await runCli(['--server', open.url, '--key', second, 'keys', 'rotate', '--json'], other)).json()
    expect(third.profileUpdated).toBe(false)
    expect(await profileOf(other)).toEqual({ server: 'http://127.0.0.1:9', key: 'folio_live_other' })
    // Revoking through the profile's server takes the dead key out of that profile.
    await runCli(['login', '--server', open.url, '--key', third.apiKey], env)
    const revoked = await runCli(['keys', 'revoke', '--json'], env)
    expect(revoked.json()).toEqual({ success: true, profileUpdated: true })
    expect(await profileOf(env)).toEqual({ server: open.url })
  })
})

describe('folio login', () => {
  it('verifies the key before saving it, and saves it readable only by the user', async () => {
    const key = (await runCli(['--server', open.url, 'keys', 'rotate', '--json'], freshConfig())).json().apiKey
    const env = freshConfig()
    const wrong = await runCli(['login', '--server', open.url, '--key', 'folio_live_wrong'], env)
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain(`${open.url} refused this key`)
    expect(wrong.stderr).toContain('Nothing was saved')
    expect(await stat(join(env.FOLIO_CONFIG_DIR, 'profile.json')).catch(() => undefined)).toBeUndefined()

    const login = await runCli(['login', '--server', open.url, '--key', key, '--json'], env)
    expect(login.stderr).toBe('')
    expect(login.code).toBe(0)
    const { path } = login.json()
    expect(((await stat(path)).mode & 0o777).toString(8)).toBe('600')
    const list = await runCli(['list', '--json'], env)
    expect(list.code).toBe(0)
    expect(Array.isArray(list.json())).toBe(true)

    // --no-verify saves what it is given, unchecked.
    expect((await runCli(['login', '--server', open.url, '--key', 'folio_live_wrong', '--no-verify'], freshConfig())).code).toBe(0)
    const away = await runCli(['login', '--server', 'http://127.0.0.1:9'], freshConfig())
    expect(away.code).toBe(1)
    await runCli(['--server', open.url, '--key', key, 'keys', 'revoke'], freshConfig())
  })

  it('shows a key chosen with FOLIO_API_KEY only to whoever already holds it', async () => {
    const missing = await runCli(['--server', guarded.url, 'keys', 'show'], freshConfig())
    expect(missing.code).toBe(1)
    expect(missing.stdout).toBe('')
    expect(missing.stderr).toContain(`${guarded.url} needs an API key for this`)
    const held = await runCli(['--server', guarded.url, 'keys', 'show'], { ...freshConfig(), FOLIO_API_KEY: GUARD_KEY })
    expect(held.stdout.trim()).toBe(GUARD_KEY)
  })

  it('refuses a key for a server that has none', async () => {
    const fresh = await startTestServer()
    try {
      const result = await runCli(['login', '--server', fresh.url, '--key', 'folio_live_made_up'], freshConfig())
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('refused this key')
    } finally {
      await closeClean(fresh)
    }
  })

  it("sends the profile's key to the profile's server only", async () => {
    const env = freshConfig()
    await mkdir(env.FOLIO_CONFIG_DIR, { recursive: true })
    await writeFile(join(env.FOLIO_CONFIG_DIR, 'profile.json'), JSON.stringify({ server: guarded.url, key: GUARD_KEY }))
    const elsewhere = await recordingProxy(open.url)
    const itself = await recordingProxy(guarded.url)
    try {
      // Another server named by --server or FOLIO_URL: no key travels.
      expect((await runCli(['--server', elsewhere.url, 'list'], env)).code).toBe(0)
      expect((await runCli(['list'], { ...env, FOLIO_URL: elsewhere.url })).code).toBe(0)
      expect(elsewhere.requests.length).toBe(2)
      for (const request of elsewhere.requests) expect(request.headers.authorization).toBeUndefined()
      // Given explicitly, a key goes where it is told.
      await runCli(['--server', elsewhere.url, '--key', 'folio_live_given', 'list'], env)
      expect(elsewhere.requests.at(-1)!.headers.authorization).toBe('Bearer folio_live_given')
      // The profile's own server (here through a proxy of another origin, so: not sent either)…
      await runCli(['--server', itself.url, 'list'], env)
      expect(itself.requests.at(-1)!.headers.authorization).toBeUndefined()
      // …and the profile's own origin, spelled with a trailing slash: sent.
      const mine = await runCli(['--server', `${guarded.url}/`, 'sync', await testApi(guarded.url).create('Mine'), await emptyishFolder()], env)
      expect(mine.code).toBe(0)
    } finally {
      await elsewhere.close()
      await itself.close()
    }
  })
})

async function emptyishFolder(): Promise<string> {
  const dir = join(work, `site-${++configs}`)
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'index.html'), '<h1>mine</h1>')
  return dir
}

describe('a missing key and a wrong key', () => {
  it('are told apart, naming where the wrong key came from and which server refused it', async () => {
    const id = await testApi(guarded.url).create('Guarded')
    const dir = await emptyishFolder()
    const missing = await runCli(['--server', guarded.url, 'sync', id, dir], freshConfig())
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`${guarded.url} needs an API key for this`)
    const flag = await runCli(['--server', guarded.url, '--key', 'folio_live_nope', 'sync', id, dir], freshConfig())
    expect(flag.stderr).toContain(`The key from --key was refused by ${guarded.url}`)
    const fromEnv = await runCli(['--server', guarded.url, 'sync', id, dir], { ...freshConfig(), FOLIO_API_KEY: 'folio_live_nope' })
    expect(fromEnv.stderr).toContain(`The key from FOLIO_API_KEY was refused by ${guarded.url}`)
    const env = freshConfig()
    await runCli(['login', '--server', guarded.url, '--key', 'folio_live_stale', '--no-verify'], env)
    const fromProfile = await runCli(['sync', id, dir], env)
    expect(fromProfile.stderr).toContain(`The key from the login profile (${join(env.FOLIO_CONFIG_DIR, 'profile.json')}) was refused by ${guarded.url}`)
    // A profile for another server: its key stays home, and the message says why none was sent.
    const other = freshConfig()
    await runCli(['login', '--server', open.url, '--key', 'folio_live_for_open', '--no-verify'], other)
    const notSent = await runCli(['--server', guarded.url, 'sync', id, dir], other)
    expect(notSent.stderr).toContain(`${guarded.url} needs an API key for this`)
    expect(notSent.stderr).toContain(`belongs to ${open.url} and is only sent there`)
    const right = await runCli(['--server', guarded.url, '--key', GUARD_KEY, 'sync', id, dir, '--json'], freshConfig())
    expect(right.json()).toMatchObject({ changed: true })
  })
})

describe('folio whoami', () => {
  it('names the server, where the key comes from, whether the server takes it, and the mode', async () => {
    const key = (await runCli(['--server', guarded.url, '--key', GUARD_KEY, 'keys', 'show'], freshConfig())).stdout.trim()
    const accepted = await runCli(['--server', guarded.url, 'whoami', '--json'], { ...freshConfig(), FOLIO_API_KEY: key })
    expect(accepted.code).toBe(0)
    expect(accepted.json()).toEqual({ server: guarded.url, serverSource: 'flag', keySource: 'environment', key: 'accepted', mode: 'oss', workspace: null })
    const text = await runCli(['--server', guarded.url, 'whoami'], { ...freshConfig(), FOLIO_API_KEY: key })
    expect(text.stdout).toBe(`Server:    ${guarded.url} (--server)\nKey:       from FOLIO_API_KEY\nAccess:    accepted\nMode:      OSS (self-hosted)\n`)

    const refused = await runCli(['--server', guarded.url, '--key', 'folio_live_nope', 'whoami', '--json'], freshConfig())
    expect(refused.code).toBe(0)
    expect(refused.json()).toMatchObject({ keySource: 'flag', key: 'refused', keyRefusedBecause: expect.stringContaining("not the server's current key") })
    // No key: the local OSS server is open to this machine.
    const none = await runCli(['whoami'], { ...freshConfig(), FOLIO_URL: open.url })
    expect(none.stdout).toContain(`Server:    ${open.url} (FOLIO_URL)`)
    expect(none.stdout).toContain('Key:       none\n')
    expect(none.stdout).toContain('Access:    no key needed from this machine (OSS)')
    // The login profile: its key, and where the profile lives.
    const env = freshConfig()
    await runCli(['login', '--server', guarded.url, '--key', GUARD_KEY], env)
    const profiled = await runCli(['whoami'], env)
    expect(profiled.stdout).toContain(`Server:    ${guarded.url} (the server in the login profile (${join(env.FOLIO_CONFIG_DIR, 'profile.json')}))`)
    expect(profiled.stdout).toContain(`Key:       from the login profile (${join(env.FOLIO_CONFIG_DIR, 'profile.json')})`)
    expect(profiled.stdout).toContain('Access:    accepted')
  })

  it('tells a Cloud server, and the workspace of the key', async () => {
    const cloud = await startTestServer({ mode: 'cloud' })
    try {
      const { apiKey, id } = await createWorkspace(cloud, { name: 'Acme' })
      const result = await runCli(['--server', cloud.url, '--key', apiKey, 'whoami'], freshConfig())
      expect(result.code).toBe(0)
      expect(result.stdout).toContain(`Mode:      Cloud\nWorkspace: Acme (${id}), plan free`)
      const none = await runCli(['--server', cloud.url, 'whoami', '--json'], freshConfig())
      expect(none.json()).toMatchObject({ key: 'needed', mode: 'cloud', workspace: null })
    } finally {
      await closeClean(cloud)
    }
  })

  it('fails with exit code 1 when the server cannot be reached', async () => {
    const away = await runCli(['--server', 'http://127.0.0.1:9', 'whoami', '--json'], freshConfig())
    expect(away.code).toBe(1)
    expect(away.json()).toMatchObject({ error: 'server_unreachable' })
  })
})

describe('folio logout', () => {
  it("forgets the profile's key for the server in use, and only for it", async () => {
    const env = freshConfig()
    await runCli(['login', '--server', guarded.url, '--key', GUARD_KEY], env)
    const other = await runCli(['logout', '--server', open.url], env)
    expect(other.code).toBe(0)
    expect(other.stdout).toContain(
      `No key saved for ${open.url}: the login profile (${join(env.FOLIO_CONFIG_DIR, 'profile.json')}) holds one for ${guarded.url} only`,
    )
    expect(await profileOf(env)).toEqual({ server: guarded.url, key: GUARD_KEY })

    const out = await runCli(['logout', '--json'], env)
    expect(out.json()).toEqual({ server: guarded.url, forgotten: true, path: join(env.FOLIO_CONFIG_DIR, 'profile.json') })
    expect(await profileOf(env)).toEqual({ server: guarded.url })
    expect(((await stat(join(env.FOLIO_CONFIG_DIR, 'profile.json'))).mode & 0o777).toString(8)).toBe('600')
    // The server stays the default; the next command sends no key, and the server wants one.
    const id = await testApi(guarded.url).create('After logout')
    const after = await runCli(['sync', id, await emptyishFolder()], env)
    expect(after.code).toBe(1)
    expect(after.stderr).toContain(`${guarded.url} needs an API key for this`)
    expect((await runCli(['logout'], env)).stdout).toBe(`No key saved for ${guarded.url}: nothing to forget.\n`)
  })
})
