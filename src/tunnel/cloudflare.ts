import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { findCloudflared } from './cloudflared-binary.js'
import { CLOUDFLARED_MISSING } from '../domain/tunnel-providers.js'
import type { TunnelConnection, TunnelConnector } from './providers.js'

export interface CloudflareOptions {
  /** The local port cloudflared forwards to: a listener of ours that trusts CF-Connecting-IP. */
  localPort: number
  /** How long a start waits for the quick tunnel's URL and first registered connection. */
  timeoutMs: number
  env?: NodeJS.ProcessEnv
}

/** The quick-tunnel banner: `|  https://some-words.trycloudflare.com  |` after "Your quick Tunnel has been created!". */
const BANNER_URL = /\|\s+(https?:\/\/[^\s|]+)\s+\|/
const REGISTERED = /Registered tunnel connection/
const STOP_GRACE_MS = 5_000

/** Thrown when no cloudflared is found: the CLI offers to download it (cloudflared-binary.ts). */
export class CloudflaredMissingError extends Error {
  constructor() {
    super(
      `${CLOUDFLARED_MISSING} on the server's machine: start again with the download allowed (about 40 MB, once; the dashboard's Download button, folio tunnel start --provider cloudflare --yes, or install: true in the API), or set FOLIO_CLOUDFLARED to the path of one you have.`,
    )
    this.name = 'CloudflaredMissingError'
  }
}

/**
 * Cloudflare quick tunnels: `cloudflared tunnel --url http://127.0.0.1:<port>` prints a random
 * https://*.trycloudflare.com URL and keeps the tunnel while it runs. No account, no reminder
 * page. The child is ours: it is stopped with the tunnel, killed if folio exits first, and its
 * death is a lost tunnel (the manager starts another; quick tunnels then get a new URL).
 */
export function cloudflareConnector(options: CloudflareOptions): TunnelConnector {
  return {
    provider: 'cloudflare',
    describe: 'Cloudflare (cloudflared)',
    connect: (signal) => connectOnce(options, signal),
  }
}

function connectOnce(options: CloudflareOptions, signal: AbortSignal): Promise<TunnelConnection> {
  const binary = findCloudflared(options.env)
  if (!binary) return Promise.reject(new CloudflaredMissingError())
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['tunnel', '--no-autoupdate', '--url', `http://127.0.0.1:${options.localPort}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
      env: options.env ?? process.env,
    })
    const killOnExit = () => child.kill('SIGKILL')
    process.once('exit', killOnExit)
    const recent: string[] = []
    const lostListeners: Array<(why: string) => void> = []
    let url = ''
    let registered = false
    let settled = false
    let closing = false
    const lastLine = () => (recent.length ? `: ${recent.at(-1)}` : '')
    const onLine = (line: string) => {
      recent.push(line.trim())
      if (recent.length > 5) recent.shift()
      url ||= BANNER_URL.exec(line)?.[1] ?? ''
      registered ||= REGISTERED.test(line)
      if (url && registered) finish(null)
    }
    for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', onLine)
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const close = async () => {
      closing = true
      process.off('exit', killOnExit)
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        const hard = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
        await exited
        clearTimeout(hard)
      }
    }
    const finish = (error: Error | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      if (error) {
        void close()
        return reject(error)
      }
      resolve({ url, onLost: (listener) => void lostListeners.push(listener), close })
    }
    const onAbort = () => finish(signal.reason as Error)
    const timer = setTimeout(
      () => finish(new Error(`cloudflared did not open a quick tunnel within ${options.timeoutMs / 1000} s${lastLine()}`)),
      options.timeoutMs,
    )
    signal.addEventListener('abort', onAbort, { once: true })
    child.once('error', (error) => finish(new Error(`Could not run cloudflared (${binary}): ${error.message}. Set FOLIO_CLOUDFLARED to a working one.`)))
    child.once('exit', (code, signalName) => {
      process.off('exit', killOnExit)
      const how = code === null ? `was killed (${signalName})` : `exited with code ${code}`
      if (!settled) return finish(new Error(`cloudflared ${how} before the tunnel was open${lastLine()}`))
      if (!closing) for (const listener of lostListeners) listener(`cloudflared ${how}${lastLine()}`)
    })
  })
}
