import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { normalizeServerUrl } from '../src/cli/server-url.js'
import { runCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

/** What every command shares: exit codes, errors as JSON with --json, server URLs without a scheme. (A fast --help is measured by npm run bench, section 8: a timed assertion here failed under load.) */
const s = useServer()
const cli = (args: string[], env: Record<string, string> = {}) => runCli(['--server', s.ts.url, ...args], env)

/** With --json a failure is one JSON document on stdout and nothing else, on stdout or stderr. */
function expectJsonFailure(result: Awaited<ReturnType<typeof runCli>>, code: number, error: string, message: RegExp | string) {
  expect(result.code).toBe(code)
  expect(result.stdout.trimEnd().split('\n')).toHaveLength(1)
  const body = result.json()
  expect(Object.keys(body).sort()).toEqual(['error', 'message'])
  expect(body.error).toBe(error)
  expect(body.message).toMatch(message)
  expect(result.stderr).toBe('')
}

describe('exit codes mean what they say', () => {
  it('2 for a command line that is wrong (nothing was tried), 1 for work that failed', async () => {
    for (const args of [['list', '--bogus'], ['lsit'], ['upload'], ['create'], ['tunnel', 'launch'], ['list', '--quiet', '--verbose'], []]) {
      const result = await runCli(args)
      expect(result.code, `folio ${args.join(' ')}: ${result.stderr}`).toBe(2)
    }
    // Options that do not go together, checked by the command itself: still the command line.
    expect((await cli(['create', 'x', '--html', 'a', '--dir', 'b'])).code).toBe(2)
    expect((await cli(['sync', 'abc', '.', '--dry-run', '--watch'])).code).toBe(2)
    expect((await runCli(['list'], { FOLIO_URL: 'ftp://example.com' })).code).toBe(2)
    // The work failed: a folio that is not there, a server that is not there.
    expect((await cli(['versions', 'nope1234'])).code).toBe(1)
    expect((await runCli(['list', '--server', 'http://127.0.0.1:9'])).code).toBe(1)
    // Asked for: help and the version are no failure.
    for (const args of [['--help'], ['help'], ['help', 'sync'], ['sync', '--help'], ['--version']]) expect((await runCli(args)).code).toBe(0)
  })

  it('are listed in folio --help', async () => {
    const { stdout } = await runCli(['--help'])
    expect(stdout).toMatch(/^Exit codes:\n {2}0 {4}done\n {2}1 {4}failed.*\n {2}2 {4}usage error.*\n {2}130 {2}interrupted/m)
  })
})

describe('with --json an error is JSON on stdout', () => {
  it('for usage mistakes commander finds', async () => {
    expectJsonFailure(await runCli(['list', '--bogus', '--json']), 2, 'usage', "unknown option '--bogus'")
    expectJsonFailure(await runCli(['--json', 'lsit']), 2, 'usage', /unknown command 'lsit'/)
    expectJsonFailure(await runCli(['upload', '--json']), 2, 'usage', /Name the image files/)
    expectJsonFailure(await runCli(['tunnel', 'launch', '--json']), 2, 'usage', /value 'launch' is invalid for argument 'action'/)
    // No command at all: the help goes to stderr, the error is still one JSON document.
    const bare = await runCli(['--json'])
    expect(bare.code).toBe(2)
    expect(bare.json()).toEqual({ error: 'usage', message: 'No command given: folio --help lists the commands.' })
    expect(bare.stderr).toContain('Usage: folio')
  })

  it('for what the server refused: its own error string, and our sentence with the next step', async () => {
    expectJsonFailure(
      await cli(['versions', 'nope1234', '--json']),
      1,
      'Project not found.',
      `No folio nope1234 on ${s.ts.url}; folio list shows the folios there.`,
    )
    const id = await s.api.create('Restore me')
    expectJsonFailure(await cli(['restore', id, 'v9', '--json']), 1, 'VERSION_NOT_FOUND', /v9 does not exist/)
  })

  it('for a server that cannot be reached, a bad server URL and a bad log level', async () => {
    expectJsonFailure(
      await runCli(['list', '--json', '--server', 'http://127.0.0.1:9']),
      1,
      'server_unreachable',
      /Cannot reach the folio server at http:\/\/127\.0\.0\.1:9/,
    )
    expectJsonFailure(await runCli(['list', '--json'], { FOLIO_URL: 'ftp://example.com' }), 2, 'usage', /FOLIO_URL must be an http\(s\) URL/)
    expectJsonFailure(await runCli(['list', '--json', '--server', s.ts.url], { FOLIO_LOG_LEVEL: 'loud' }), 2, 'usage', /FOLIO_LOG_LEVEL must be one of/)
  })

  it('whatever the log level: the error is the result', async () => {
    expectJsonFailure(
      await runCli(['list', '--json', '--server', 'http://127.0.0.1:9'], { FOLIO_LOG_LEVEL: 'silent' }),
      1,
      'server_unreachable',
      /Cannot reach/,
    )
  })

  it('while text mode keeps its one line on stderr and an empty stdout', async () => {
    const result = await cli(['versions', 'nope1234'])
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(`folio: No folio nope1234 on ${s.ts.url}; folio list shows the folios there.\n`)
  })
})

describe('--server without a scheme', () => {
  it('adds http:// for this machine and the local network, https:// for public names, in the flag, FOLIO_URL and login', async () => {
    const port = new URL(s.ts.url).port
    const id = await s.api.create('No scheme')
    for (const server of [`127.0.0.1:${port}`, `localhost:${port}`, `localhost:${port}/`]) {
      const listed = await runCli(['list', '--json', '--server', server])
      expect(listed.code, listed.stderr).toBe(0)
      expect(listed.json().map((f: { id: string }) => f.id)).toContain(id)
    }
    expect((await runCli(['list', '--json'], { FOLIO_URL: `localhost:${port}` })).code).toBe(0)
    // whoami says what it made of it.
    expect((await runCli(['whoami', '--json', '--server', `localhost:${port}`])).json().server).toBe(`http://localhost:${port}`)
    // folio login saves the URL it made.
    const config = { FOLIO_CONFIG_DIR: join(s.ts.dataDir, 'config') }
    const login = await runCli(['login', '--server', `localhost:${port}`, '--json'], config)
    expect(login.json()).toMatchObject({ server: `http://localhost:${port}` })
    expect((await runCli(['whoami', '--json'], config)).json()).toMatchObject({ server: `http://localhost:${port}`, serverSource: 'profile' })
  })

  it('picks the scheme by the name: http:// where the network is this one, https:// for a public name', () => {
    const made = (value: string) => (normalizeServerUrl(value) as { url: string }).url
    expect(made('localhost:3000')).toBe('http://localhost:3000')
    expect(made('192.168.1.20:3000')).toBe('http://192.168.1.20:3000')
    expect(made('[::1]:3000')).toBe('http://[::1]:3000')
    expect(made('nas:3000')).toBe('http://nas:3000')
    for (const name of ['box.local', 'box.lan', 'box.internal', 'box.home.arpa', 'app.localhost']) expect(made(name)).toBe(`http://${name}`)
    expect(made('folio.example.com')).toBe('https://folio.example.com')
    expect(made('folio.example.com:8443/')).toBe('https://folio.example.com:8443')
    expect(made('HTTP://Example.com/')).toBe('HTTP://Example.com')
    expect(normalizeServerUrl('ftp://example.com')).toEqual({ problem: 'scheme' })
    expect(normalizeServerUrl('exa mple.com')).toEqual({ problem: 'invalid' })
  })

  it('still refuses what is no http(s) server', async () => {
    for (const bad of ['ftp://example.com', 'http://[::1', 'local host:3000', 'http:/localhost']) {
      const result = await runCli(['list', '--server', bad])
      expect(result.code, bad).toBe(2)
      expect(result.stderr, bad).toMatch(/^folio: --server (must be an http\(s\) URL|is not a valid URL)/)
    }
  })
})
