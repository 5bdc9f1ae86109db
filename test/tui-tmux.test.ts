import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, killHard, type ServerProcess, spawnServer } from './helpers/cli-process.js'
import { client } from './helpers/http.js'
import { makeDataDir } from './helpers/server.js'

/**
 * One real run of the live view in a real terminal: the built CLI (`npm test` builds it first)
 * inside a detached tmux session, read back with capture-pane. Needs tmux (CI installs it).
 */
const run = promisify(execFile)
const TMUX = existsSync('/usr/bin/tmux') ? '/usr/bin/tmux' : 'tmux'
const hasTmux = await run(TMUX, ['-V']).then(
  () => true,
  () => false,
)

const id = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`
// A server of our own (-L): nothing of the user's tmux is touched, and kill-server ends it all.
const SOCKET = `folio-test-${id}`
const SESSION = `folio-status-${id}`
const tmux = (...args: string[]) => run(TMUX, ['-f', '/dev/null', '-L', SOCKET, ...args])
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function sessionAlive(): Promise<boolean> {
  return tmux('has-session', '-t', SESSION).then(
    () => true,
    () => false,
  )
}

async function capture(): Promise<string> {
  return (await tmux('capture-pane', '-p', '-t', SESSION)).stdout
}

describe('folio status in a real terminal (tmux)', () => {
  let server: ServerProcess | undefined
  let dataDir: string
  let scratch: string

  beforeAll(async () => {
    if (!hasTmux) throw new Error('tmux is not installed: apt-get install tmux (.ci/run installs it)')
    dataDir = await makeDataDir()
    scratch = await mkdtemp(join(tmpdir(), 'folio-tmux-'))
    server = await spawnServer(dataDir)
  })

  afterAll(async () => {
    await tmux('kill-server').catch(() => {})
    if (server) await killHard(server.child)
    await rm(dataDir, { recursive: true, force: true })
    await rm(scratch, { recursive: true, force: true })
  })

  it('shows a folio with its views, then quits on q with exit code 0', async () => {
    const api = client(server!.url)
    const title = 'Tmux status deck'
    const folioId = await api.create(title, undefined, { status: 'published' })
    for (let i = 0; i < 3; i++) expect((await api.post(`/api/files/${folioId}/analytics`, { isInitial: true, device: i === 0 ? 'mobile' : 'desktop', sessionSeconds: 20 })).status).toBe(200)
    expect((await api.post(`/api/files/${folioId}/reactions`, { increments: { '🔥': 1 } })).status).toBe(200)

    const exitFile = join(scratch, 'exit-code')
    // No profile or key of the user's: FOLIO_CONFIG_DIR points at an empty folder.
    const command = [
      `FOLIO_CONFIG_DIR=${quote(scratch)} FOLIO_API_KEY= SERVICE_API_KEY=`,
      `${quote(process.execPath)} ${quote(BIN)} status --server ${quote(server!.url)};`,
      `echo $? > ${quote(exitFile)}`,
    ].join(' ')
    await tmux('new-session', '-d', '-s', SESSION, '-x', '120', '-y', '40', '/bin/sh', '-c', command)

    const row = new RegExp(`${title}\\s+published\\s+v1\\s+3\\s+20s\\s+1/2\\s`)
    let screen = ''
    const until = Date.now() + 20_000
    while (!row.test(screen)) {
      if (Date.now() > until) throw new Error(`the folio row never showed; the screen was:\n${screen}`)
      if (!(await sessionAlive())) throw new Error(`folio status ended early; the screen was:\n${screen}`)
      await delay(200)
      screen = await capture()
    }
    expect(screen).toContain('folio status')
    expect(screen).toContain(server!.url)
    expect(screen).toContain('Tunnel stopped')
    expect(screen).toContain('🔥 1')
    expect(screen).toContain(`Comments on “${title}”`)
    expect(screen).toContain('q quit')

    await tmux('send-keys', '-t', SESSION, 'q')
    const gone = Date.now() + 10_000
    while (await sessionAlive()) {
      if (Date.now() > gone) throw new Error(`folio status did not quit on q; the screen was:\n${await capture()}`)
      await delay(100)
    }
    expect((await readFile(exitFile, 'utf8')).trim()).toBe('0')
  })
})
