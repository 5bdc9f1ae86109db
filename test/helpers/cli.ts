import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { BIN } from './cli-process.js'

export interface CliResult {
  code: number
  stdout: string
  stderr: string
  json: () => any
}

/**
 * A config dir of the test file's own, so no real profile or sync record leaks in or out; it goes
 * when the file's tests are done (vitest loads this module afresh for each test file). Tests that
 * need a profile pass FOLIO_CONFIG_DIR themselves.
 */
const CONFIG_DIR = mkdtempSync(join(tmpdir(), 'folio-cli-config-'))
afterAll(() => rmSync(CONFIG_DIR, { recursive: true, force: true }))

/** What every CLI run starts from: no server, key or profile from the developer's shell. */
export const cliEnv = (env: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  FOLIO_URL: '',
  FOLIO_API_KEY: '',
  SERVICE_API_KEY: '',
  FOLIO_CONFIG_DIR: CONFIG_DIR,
  ...env,
})

/** How the CLI runs: in a folder (commands that read the folder they run in), as another user (uid/gid: tests of what that user may not read). */
export interface RunAs {
  cwd?: string
  uid?: number
  gid?: number
}

/** Runs the built CLI (as a user does) with a config dir of its own. */
export function runCli(args: string[], env: Record<string, string> = {}, as: RunAs = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: cliEnv(env), maxBuffer: 64 * 1024 * 1024, ...as }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: number }).code ?? 1) : 0
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr, json: () => JSON.parse(stdout) })
    })
  })
}

/** A long-running CLI command (sync --watch): its stdout lines as they come. */
export function spawnCli(args: string[], env: Record<string, string> = {}, as: RunAs = {}) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'], ...as })
  const lines: string[] = []
  let stderr = ''
  let buffer = ''
  child.stdout!.on('data', (chunk) => {
    buffer += chunk
    let nl: number
    while ((nl = buffer.indexOf('\n')) !== -1) {
      lines.push(buffer.slice(0, nl))
      buffer = buffer.slice(nl + 1)
    }
  })
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  return {
    child,
    lines,
    stderr: () => stderr,
    /** The exit code once the process ends (null when a signal ended it). */
    exited,
    /** Waits for a stdout line matching `test`, starting after `from` lines. */
    async waitForLine(test: (line: string) => boolean, timeoutMs = 15_000, from = 0): Promise<string> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = lines.slice(from).find(test)
        if (found) return found
        if (Date.now() > deadline) throw new Error(`no matching line in ${timeoutMs} ms; got:\n${lines.join('\n')}\nstderr:\n${stderr}`)
        if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}; got:\n${lines.join('\n')}\nstderr:\n${stderr}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    },
  }
}
