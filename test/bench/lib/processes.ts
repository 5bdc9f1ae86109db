import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/**
 * Servers under test run in child processes so that the server gets one core and autocannon
 * (in the bench process) the other. Every child is tracked here, so a failing run can still
 * kill them all.
 */
export interface ServerChild {
  name: string
  url: string
  pid: number
  /** Last lines the child wrote to stderr: the folio server logs its errors there. */
  stderr(): string
  stop(): Promise<void>
}

const running = new Set<ChildProcess>()

/** Synchronous on purpose: also called from process 'exit', where nothing async runs. */
export function killAllNow(): void {
  for (const child of running) killGroup(child, 'SIGKILL')
  running.clear()
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child)))
}

/** Children are group leaders (detached), so a wrapper's own children die with it. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    try {
      child.kill(signal)
    } catch {
      // already gone
    }
  }
}

/** SIGTERM lets folio finish in-flight writes; SIGKILL after a grace period all the same. */
async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    running.delete(child)
    return
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  killGroup(child, 'SIGTERM')
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
  running.delete(child)
}

interface SpawnOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
}

function spawnTracked(name: string, command: string, args: string[], options: SpawnOptions) {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  running.add(child)
  let errTail = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => {
    errTail = (errTail + chunk).slice(-8000)
  })
  child.once('exit', () => running.delete(child))
  const exitedEarly = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`${name} exited (${signal ?? code}) before it was ready:\n${errTail}`)))
    child.once('error', (error) => reject(new Error(`${name} could not start: ${error.message}`)))
  })
  exitedEarly.catch(() => {})
  const handle = (url: string, pid: number): ServerChild => ({
    name,
    url,
    pid,
    stderr: () => errTail,
    stop: () => stopChild(child),
  })
  return { child, exitedEarly, handle }
}

/**
 * Starts a server that prints one JSON line {url, pid} when it is ready (folio serve --json,
 * and our raw server).
 */
export async function startJsonLineServer(name: string, command: string, args: string[], options: SpawnOptions = {}): Promise<ServerChild> {
  const { child, exitedEarly, handle } = spawnTracked(name, command, args, options)
  const ready = new Promise<{ url: string; pid: number }>((resolve) => {
    let buffer = ''
    child.stdout!.setEncoding('utf8')
    const onData = (chunk: string) => {
      buffer += chunk
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        try {
          const parsed = JSON.parse(line) as { url?: string; pid?: number }
          if (parsed.url && parsed.pid) {
            // Keep draining stdout so the child never blocks on a full pipe.
            child.stdout!.off('data', onData)
            child.stdout!.resume()
            resolve({ url: parsed.url, pid: parsed.pid })
            return
          }
        } catch {
          // not the ready line
        }
      }
    }
    child.stdout!.on('data', onData)
  })
  const { url, pid } = await withTimeout(Promise.race([ready, exitedEarly]), options.timeoutMs ?? 20_000, `${name} did not print its ready line`)
  return handle(url, pid)
}

/** Starts a server that prints nothing machine-readable (json-server): polls `probeUrl` until it answers. */
export async function startPolledServer(name: string, command: string, args: string[], probeUrl: string, options: SpawnOptions = {}): Promise<ServerChild> {
  const { child, exitedEarly, handle } = spawnTracked(name, command, args, options)
  child.stdout!.resume()
  const deadline = Date.now() + (options.timeoutMs ?? 20_000)
  const poll = async () => {
    for (;;) {
      try {
        const response = await fetch(probeUrl)
        await response.arrayBuffer()
        if (response.ok) return
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${name} did not answer ${probeUrl} in time`)
      await sleep(100)
    }
  }
  await Promise.race([poll(), exitedEarly])
  return handle(new URL(probeUrl).origin, child.pid!)
}

/** Resident memory of a process, from /proc (Linux). */
export function rssBytes(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? NaN) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

/** CPU time (user + system) a process has used so far, from /proc/<pid>/stat (Linux). */
export function cpuSeconds(pid: number): number {
  // Fields after the ")" that closes the command name: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}

/** USER_HZ: 100 on every Linux the bench will meet (getconf CLK_TCK). */
const CLOCK_TICKS = 100

/** A port free right now, for servers that cannot be told to pick one (json-server). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} (after ${ms} ms)`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
