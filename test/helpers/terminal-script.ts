import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { constants, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import xterm from '@xterm/headless'
import { delay, endProcess, normalizeScreen, type Terminal, type TerminalOptions } from './terminal.js'

const run = promisify(execFile)
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * The command in a pseudo-terminal made by util-linux's `script` (no log: /dev/null; -e: its exit
 * code is the command's), with @xterm/headless as the terminal that draws what it prints.
 * script's own input and output are pipes, so the pty's size is ours to set: a shell line sets
 * it with stty before exec'ing the command, after noting the pty's name and its pid in a file;
 * resizing is then `stty -F <pty>` from outside, and the kernel sends SIGWINCH to the program.
 */
export async function startScriptTerminal(argv: string[], options: TerminalOptions): Promise<Terminal> {
  const scratch = await mkdtemp(join(tmpdir(), 'folio-script-'))
  const info = join(scratch, 'pty')
  const line = `stty cols ${options.cols} rows ${options.rows} && echo "$(tty) $$" > ${quote(info)} && exec ${argv.map(quote).join(' ')}`
  const child = spawn('script', ['-q', '-e', '-c', line, '/dev/null'], {
    cwd: options.cwd,
    // script runs the line with $SHELL -c: make that a POSIX shell whatever the user's is.
    // TERM names the terminal that draws the screen, as tmux sets its own.
    env: { ...process.env, SHELL: '/bin/sh', TERM: 'xterm-256color' },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let exitCode: number | null = null
  let stderr = ''
  const exited = new Promise<void>((resolve) =>
    child.once('close', (code, signal) => {
      exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0)
      resolve()
    }),
  )
  child.once('error', (error) => (stderr += `${error.message}\n`))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  // Writing after the command ended fails; send() reports that, the stream must not crash the run.
  child.stdin.on('error', () => {})

  const term = new xterm.Terminal({ cols: options.cols, rows: options.rows, allowProposedApi: true })
  child.stdout.on('data', (chunk: Buffer) => term.write(chunk))
  // The terminal's answers to the program's queries (cursor position, device attributes).
  term.onData((data) => child.stdin.write(data))
  term.onBinary((data) => child.stdin.write(Buffer.from(data, 'binary')))

  const screen = async () => {
    await new Promise<void>((resolve) => term.write('', resolve))
    const buffer = term.buffer.active
    const rows: string[] = []
    // Cropped to the width: after a narrowing resize xterm keeps the cells beyond it (for a later
    // widening), which no terminal shows.
    for (let y = 0; y < term.rows; y++) rows.push(buffer.getLine(buffer.baseY + y)?.translateToString(true, 0, term.cols) ?? '')
    return normalizeScreen(rows)
  }

  const styled = async () => {
    await new Promise<void>((resolve) => term.write('', resolve))
    const buffer = term.buffer.active
    const cell = buffer.getNullCell()
    for (let y = 0; y < term.rows; y++) {
      const line = buffer.getLine(buffer.baseY + y)
      for (let x = 0; line && x < term.cols; x++) {
        line.getCell(x, cell)
        if (!cell.isFgDefault() || !cell.isBgDefault() || cell.isBold() || cell.isInverse() || cell.isDim()) return true
      }
    }
    return false
  }

  const [pty, pid] = await readInfo()
  return {
    backend: 'script',
    pid,
    async send(bytes) {
      if (exitCode !== null) throw new Error(`the command has ended (exit code ${exitCode}); cannot send to it`)
      await new Promise<void>((resolve, reject) => child.stdin.write(bytes, (error) => (error ? reject(error) : resolve())))
    },
    screen,
    styled,
    async resize(cols, rows) {
      // The screen first, so what the program draws for the new size lands on a screen of that size.
      term.resize(cols, rows)
      await run('stty', ['-F', pty, 'cols', String(cols), 'rows', String(rows)])
    },
    async exitCode() {
      return exitCode
    },
    async stop() {
      if (exitCode === null) await endProcess(pid)
      // script ends once the command has; it is killed only if it somehow does not.
      if (exitCode === null) await Promise.race([exited, delay(3000)])
      if (exitCode === null) child.kill('SIGKILL')
      await exited
      term.dispose()
      await rm(scratch, { recursive: true, force: true })
    },
  }

  async function readInfo(): Promise<[string, number]> {
    const deadline = Date.now() + 10_000
    for (;;) {
      const text = existsSync(info) ? await readFile(info, 'utf8') : ''
      const match = /^(\/dev\/\S+) (\d+)\n$/.exec(text)
      if (match) return [match[1]!, Number(match[2])]
      if (exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL')
        await exited
        throw new Error(`script did not start the command (exit code ${exitCode}): ${stderr}${await screen()}`)
      }
      await delay(20)
    }
  }
}
