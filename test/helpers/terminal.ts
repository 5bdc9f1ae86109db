import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { startScriptTerminal } from './terminal-script.js'
import { startTmuxTerminal } from './terminal-tmux.js'

/**
 * A real terminal for tests: a pseudo-terminal with the command in it, read back as the screen a
 * person would see. Two backends behind one interface: tmux when the machine has it, else
 * util-linux's `script` (every Linux has it) with @xterm/headless turning the output into a
 * screen. FOLIO_TEST_TERMINAL=tmux or =script picks one.
 */
export type TerminalBackend = 'tmux' | 'script'

export interface TerminalOptions {
  cols: number
  rows: number
  /** Variables set (or, with undefined, removed) for the command, on top of this process's. */
  env?: Record<string, string | undefined>
  cwd?: string
}

export interface Terminal {
  readonly backend: TerminalBackend
  /** The command's process (the pty's session leader), for a signal a test sends it itself. */
  readonly pid: number
  /** Writes the bytes to the terminal's input in one write: the program reads them as one chunk. */
  send(bytes: string | Uint8Array): Promise<void>
  /** The screen as shown now: one line per row, blanks at the ends of lines and below the last text dropped. */
  screen(): Promise<string>
  /** Whether any text on the screen is drawn in a colour or a style (bold, inverse, …). */
  styled(): Promise<boolean>
  /** Changes the terminal's size; the kernel sends the program SIGWINCH, as when a window is resized. */
  resize(cols: number, rows: number): Promise<void>
  /** The command's exit code once it has ended (128 + n when signal n ended it), else null. */
  exitCode(): Promise<number | null>
  /** Ends the command if it still runs (SIGTERM, SIGKILL after 3 s) and frees the terminal. */
  stop(): Promise<void>
}

const run = promisify(execFile)

export async function terminalBackend(): Promise<TerminalBackend> {
  const wanted = process.env.FOLIO_TEST_TERMINAL
  if (wanted === 'tmux' || wanted === 'script') return wanted
  if (wanted) throw new Error(`FOLIO_TEST_TERMINAL=${wanted}: use tmux or script`)
  const hasTmux = await run('tmux', ['-V']).then(
    () => true,
    () => false,
  )
  return hasTmux ? 'tmux' : 'script'
}

/** Starts `command` (argv, no shell) in a terminal of the given size. */
export async function startTerminal(command: string[], options: TerminalOptions): Promise<Terminal> {
  const backend = await terminalBackend()
  const argv = withEnv(command, options.env ?? {})
  return backend === 'tmux' ? startTmuxTerminal(argv, options) : startScriptTerminal(argv, options)
}

/** Polls the screen until `test` holds; the error carries the last screen. */
export async function waitForScreen(terminal: Terminal, test: RegExp | ((screen: string) => boolean), what: string, timeoutMs = 20_000): Promise<string> {
  const holds = typeof test === 'function' ? test : (screen: string) => test.test(screen)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const screen = await terminal.screen()
    if (holds(screen)) return screen
    const code = await terminal.exitCode()
    if (code !== null) throw new Error(`the command ended (exit code ${code}) before ${what}; the screen was:\n${screen}`)
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen was:\n${screen}`)
    await delay(100)
  }
}

/** Waits for the command to end and returns its exit code. */
export async function waitForExit(terminal: Terminal, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const code = await terminal.exitCode()
    if (code !== null) return code
    if (Date.now() > deadline) throw new Error(`the command did not end; the screen was:\n${await terminal.screen()}`)
    await delay(100)
  }
}

/** The same shape from both backends: right-trimmed rows, no empty rows at the bottom. */
export function normalizeScreen(rows: string[]): string {
  const lines = rows.map((row) => row.trimEnd())
  while (lines.length > 0 && lines.at(-1) === '') lines.pop()
  return lines.join('\n')
}

/** SIGTERM, then SIGKILL if the process is still there after 3 s; resolves once it is gone. */
export async function endProcess(pid: number): Promise<void> {
  if (!processRunning(pid)) return
  process.kill(pid, 'SIGTERM')
  for (const deadline = Date.now() + 3000; Date.now() < deadline; await delay(50)) if (!processRunning(pid)) return
  process.kill(pid, 'SIGKILL')
  while (processRunning(pid)) await delay(20)
}

/**
 * Whether the process still runs. A zombie (ended, not yet reaped) counts as gone: where the
 * terminal's owner ends first, it is handed to pid 1, and not every container's pid 1 reaps.
 */
export function processRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** `env` sets the variables in both backends alike (tmux's server has its own environment). */
function withEnv(command: string[], env: Record<string, string | undefined>): string[] {
  const entries = Object.entries(env)
  if (entries.length === 0) return command
  const unset = entries.filter(([, value]) => value === undefined).flatMap(([name]) => ['-u', name])
  const set = entries.filter(([, value]) => value !== undefined).map(([name, value]) => `${name}=${value}`)
  return ['env', ...unset, ...set, ...command]
}
