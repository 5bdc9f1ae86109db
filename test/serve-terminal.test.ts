import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { qrLines } from '../src/tui/qr.js'
import { BIN, lanAddresses } from './helpers/cli-process.js'
import { client } from './helpers/http.js'

/**
 * `folio serve` for a person at a terminal: the built CLI in a detached tmux session (like
 * tui-tmux.test.ts), read back with capture-pane. There, and only there, the banner carries a
 * QR code of the network address and colours.
 */
const run = promisify(execFile)
const TMUX = existsSync('/usr/bin/tmux') ? '/usr/bin/tmux' : 'tmux'
const id = `${process.pid}-${Math.random().toString(36).slice(2, 8)}`
const SOCKET = `folio-test-${id}`
const SESSION = `folio-serve-${id}`
const tmux = (...args: string[]) => run(TMUX, ['-f', '/dev/null', '-L', SOCKET, ...args])
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
const capture = async (...flags: string[]) => (await tmux('capture-pane', '-p', ...flags, '-t', SESSION)).stdout

async function screenWith(text: string, timeoutMs = 20_000): Promise<string> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const screen = await capture().catch(() => '')
    if (screen.includes(text)) return screen
    if (Date.now() > until) throw new Error(`no "${text}" on the screen:\n${screen}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('folio serve in a real terminal (tmux)', () => {
  let scratch: string

  beforeAll(async () => {
    await run(TMUX, ['-V']).catch(() => {
      throw new Error('tmux is not installed: apt-get install tmux (.ci/run installs it)')
    })
    scratch = await mkdtemp(join(tmpdir(), 'folio-serve-tmux-'))
  })
  afterAll(async () => {
    await tmux('kill-server').catch(() => {})
    await rm(scratch, { recursive: true, force: true })
  })

  it('shows a QR code of the network address, in colour, and stops on Ctrl+C', async () => {
    const exitFile = join(scratch, 'exit-code')
    const command = [
      `FOLIO_CONFIG_DIR=${quote(scratch)} FOLIO_API_KEY= SERVICE_API_KEY= FOLIO_LOG_LEVEL=`,
      `${quote(process.execPath)} ${quote(BIN)} serve --port 0 --host 0.0.0.0 --data ${quote(join(scratch, 'data'))};`,
      `echo $? > ${quote(exitFile)};`,
      'sleep 30', // the screen stays readable after the exit
    ].join(' ')
    // bash, not sh: Ctrl+C reaches the shell too, and bash goes on (to record the exit code) when
    // its child handled the signal and exited; dash would die with it.
    await tmux('new-session', '-d', '-s', SESSION, '-x', '120', '-y', '60', 'bash', '-c', command)

    const screen = await screenWith('Press Ctrl+C to stop.')
    const port = /folio is serving http:\/\/localhost:(\d+)/.exec(screen)![1]
    const networkUrl = `http://${lanAddresses()[0]}:${port}`
    expect(screen).toContain(`➜ Network:  ${networkUrl}`)
    expect(screen).toContain('folio: listening on 0.0.0.0')
    // The code a phone scans: the module rows of that URL's QR code, dark modules drawn (the
    // colours put them on bright white).
    for (const row of qrLines(networkUrl)) expect(screen).toContain(row.trimEnd())
    expect(await capture('-e')).toMatch(/\x1b\[[\d;]*m/)
    expect((await client(networkUrl).get('/api/files')).status).toBe(200)

    await tmux('send-keys', '-t', SESSION, 'C-c')
    const until = Date.now() + 20_000
    while (!existsSync(exitFile) && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
    expect((await readFile(exitFile, 'utf8')).trim()).toBe('0')
    expect(await capture()).toContain('Stopped.')
  })
})
