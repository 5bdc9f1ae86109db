import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listFolios } from '../src/api/files.js'
import { testApi } from './helpers/api.js'
import { runCli } from './helpers/cli.js'
import { type ServeRun, startServe } from './helpers/cli-process.js'
import { tinyPng } from './helpers/images.js'
import { makeDataDir, startTestServer, type TestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'

/** Levels, streams and the line format of the CLI's output (consola underneath). */
let ts: TestServer
let work: string
const dirs: string[] = []
const runs: ServeRun[] = []
beforeAll(async () => {
  ts = await startTestServer()
  work = await mkdtemp(join(tmpdir(), 'folio-cli-logging-'))
})
afterAll(async () => {
  for (const run of runs) await run.stop('SIGKILL')
  for (const dir of [work, ...dirs]) await rm(dir, { recursive: true, force: true })
  await closeClean(ts)
})

const REQUEST_LINE = /^\[http\] GET \/api\/files 200 \d+ ms$/m

/** folio serve with these flags and env, one request, then Ctrl+C: what it printed where. */
async function serveOnce(args: string[], env: Record<string, string> = {}) {
  const dataDir = await makeDataDir()
  dirs.push(dataDir)
  const run = await startServe(['--port', '0', '--data', dataDir, ...args], env)
  runs.push(run)
  expect((await testApi(run.url).send(listFolios)).status).toBe(200)
  const code = await run.stop()
  return { code, stdout: run.stdout(), stderr: run.stderr() }
}

describe('--json keeps stdout one JSON document', () => {
  it('while a warning goes to stderr as folio: …', async () => {
    const id = await testApi(ts.url).create('Pics')
    await writeFile(join(work, 'logo.png'), tinyPng())
    await writeFile(join(work, 'notes.txt'), 'text')
    const result = await runCli(['upload', id, join(work, 'logo.png'), join(work, 'notes.txt'), '--json', '--server', ts.url])
    expect(result.code).toBe(0)
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1)
    expect(JSON.parse(result.stdout)).toMatchObject({ paths: ['logo.png'], skipped: ['notes.txt'] })
    expect(result.stderr).toBe('folio: skipped 1 file(s) that are not images: notes.txt; use folio sync for those.\n')
  })

  it('with --verbose too: serve prints its JSON line on stdout, request lines on stderr', async () => {
    const { code, stdout, stderr } = await serveOnce(['--json', '--verbose'])
    expect(code).toBe(0)
    expect(stdout.trimEnd().split('\n')).toHaveLength(1)
    expect(Object.keys(JSON.parse(stdout)).sort()).toEqual(['dataDir', 'mode', 'networkUrls', 'pid', 'url'])
    expect(stderr).toMatch(REQUEST_LINE)
    // Notes stay silent with --json, even verbose.
    expect(stderr).not.toContain('Stopped.')
  })
})

describe('the log level', () => {
  it('is info by default: notes, no request lines', async () => {
    const { code, stdout, stderr } = await serveOnce([])
    expect(code).toBe(0)
    expect(stdout).toContain('Press Ctrl+C to stop.')
    expect(stderr).toBe('SIGINT: finishing in-flight requests…\nStopped.\n')
  })

  it('--verbose adds a line per request; so does FOLIO_LOG_LEVEL=debug, by name or number', async () => {
    for (const [args, env] of [
      [['--verbose'], {}],
      [[], { FOLIO_LOG_LEVEL: 'debug' }],
      [[], { FOLIO_LOG_LEVEL: '4' }],
    ] as const) {
      const { stderr } = await serveOnce([...args], env)
      expect(stderr).toMatch(REQUEST_LINE)
      expect(stderr).toContain('Stopped.')
    }
  })

  it('--quiet keeps results, warnings and errors; it beats FOLIO_LOG_LEVEL', async () => {
    const { code, stdout, stderr } = await serveOnce(['--quiet', '--host', 'localhost'], { FOLIO_LOG_LEVEL: 'trace' })
    expect(code).toBe(0)
    expect(stdout).toContain('folio is serving http://localhost:')
    expect(stderr).toBe('')
    const warned = await serveOnce(['--quiet', '--host', '0.0.0.0'])
    expect(warned.stderr).toMatch(/^folio: listening on 0\.0\.0\.0: /)
    expect(warned.stderr).not.toContain('Stopped.')
  })

  it('FOLIO_LOG_LEVEL=warn hides notes; silent hides errors too, not results', async () => {
    const typo = await runCli(['serv'])
    expect(typo.stderr).toContain("folio: unknown command 'serv'")
    expect(typo.stderr).toContain('See folio --help.')
    const quieter = await runCli(['serv'], { FOLIO_LOG_LEVEL: 'warn' })
    expect(quieter.code).not.toBe(0)
    expect(quieter.stderr).toContain("folio: unknown command 'serv'")
    expect(quieter.stderr).not.toContain('See folio --help.')

    const listed = await runCli(['list', '--json', '--server', ts.url], { FOLIO_LOG_LEVEL: 'silent' })
    expect(listed.code).toBe(0)
    expect(Array.isArray(listed.json())).toBe(true)
    const failed = await runCli(['list', '--server', 'http://127.0.0.1:9'], { FOLIO_LOG_LEVEL: 'silent' })
    expect(failed.code).toBe(1)
    expect(failed.stderr).toBe('')
  })

  it('refuses a FOLIO_LOG_LEVEL that is not a level, unless a flag decides', async () => {
    const bad = await runCli(['list', '--server', ts.url], { FOLIO_LOG_LEVEL: 'loud' })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('folio: FOLIO_LOG_LEVEL must be one of silent, error, warn, info, debug, trace (or a number), got "loud".\n')
    const flagged = await runCli(['list', '--json', '--quiet', '--server', ts.url], { FOLIO_LOG_LEVEL: 'loud' })
    expect(flagged.code).toBe(0)
  })

  it('--quiet and --verbose together are a mistake', async () => {
    const both = await runCli(['list', '--quiet', '--verbose', '--server', ts.url])
    expect(both.code).not.toBe(0)
    expect(both.stderr).toMatch(/^folio: option '-q, --quiet' cannot be used with option '--verbose'/)
  })
})
