import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { BIN } from './cli-process.js'

export interface CliResult {
  code: number
  stdout: string
  stderr: string
  json: () => any
}

/** Runs the built CLI (as a user does) with a config dir of its own, so no real profile leaks in. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, FOLIO_URL: '', FOLIO_API_KEY: '', ...env } }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: number }).code ?? 1) : 0
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr, json: () => JSON.parse(stdout) })
    })
  })
}

/** A long-running CLI command (sync --watch): its stdout lines as they come. */
export function spawnCli(args: string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, FOLIO_URL: '', FOLIO_API_KEY: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
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
  return {
    child,
    lines,
    stderr: () => stderr,
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
