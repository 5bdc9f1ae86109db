import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../../bin/folio.mjs', import.meta.url))

export interface ServerProcess {
  url: string
  child: ChildProcess
  output: () => string
  /** What it wrote to stderr: its log (warnings, unhandled errors). */
  stderr: () => string
}

/** Starts the built CLI's `folio serve` in a child process and waits for its ready line. */
export async function spawnServer(dataDir: string, extraArgs: string[] = [], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', dataDir, '--json', ...extraArgs], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => {
    out += d
    stderr += d
  })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 15_000)
    child.stdout!.on('data', () => {
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (line) {
        clearTimeout(timer)
        resolve(JSON.parse(line).url)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}: ${out}`))
    })
  })
  return { url, child, output: () => out, stderr: () => stderr }
}

export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGKILL')
  await exited
}
