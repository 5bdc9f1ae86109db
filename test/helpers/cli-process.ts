import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { networkInterfaces } from 'node:os'
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

export interface ServeRun {
  child: ChildProcess
  /** The server's URL, from the banner's first line or the --json line. */
  url: string
  stdout: () => string
  stderr: () => string
  /** Sends the signal (SIGINT by default) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** `folio serve <args>` with stdout and stderr kept apart; resolves once it says where it serves. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeRun> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`folio serve did not start:\n${stdout}\n${stderr}`)), 15_000)
    child.stdout!.on('data', () => {
      const found =
        /^folio is serving (\S+)\n/m.exec(stdout)?.[1] ?? (stdout.startsWith('{') && stdout.includes('\n') ? JSON.parse(stdout.split('\n')[0]!).url : undefined)
      if (found) {
        clearTimeout(timer)
        resolve(found)
      }
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`folio serve exited with ${code}:\n${stdout}\n${stderr}`))
    })
  })
  return {
    child,
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** What folio serve (listhen) lists for 0.0.0.0: this machine's IPv4 addresses but loopback and link-local. */
export const lanAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === 'IPv4' && a.mac !== '00:00:00:00:00:00' && !a.address.startsWith('169.254.'))
    .map((a) => a!.address)
    .sort()

export interface BannerRun {
  url: string
  /** Everything the banner printed (stdout up to "Press Ctrl+C to stop."). */
  banner: string
  stderr: () => string
  /** Sends SIGINT and resolves with the exit code. */
  stop(): Promise<number | null>
}

/**
 * A `folio serve` child started by the caller (a README line through sh, the built CLI), once its
 * whole banner is out: its Next: lines come after the address, so waiting for the address alone
 * could read half of them.
 */
export async function untilBanner(child: ChildProcess, name: string): Promise<BannerRun> {
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  const exited = once(child, 'exit').then(([code]) => code as number | null)
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => /^Press Ctrl\+C to stop\.$/m.test(stdout) && resolve())
    void exited.then((code) => reject(new Error(`${name} exited with ${code}:\n${stdout}\n${stderr}`)))
  })
  return {
    url: /^folio is serving (\S+)$/m.exec(stdout)![1]!,
    banner: stdout,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT')
      return exited
    },
  }
}
