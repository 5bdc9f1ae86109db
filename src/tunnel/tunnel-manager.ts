import type { EventEmitter } from 'node:events'
import { get as httpGet } from 'node:http'
import { get as httpsGet } from 'node:https'
import type { Socket } from 'node:net'
// @ts-expect-error -- localtunnel's Tunnel class ships without types; ClientTunnel below says what we use.
import TunnelClass from 'localtunnel/lib/Tunnel.js'

export type TunnelPhase = 'stopped' | 'starting' | 'connected' | 'reconnecting'
export interface TunnelState { state: TunnelPhase; url: string | null; lastError: string | null }
export interface TunnelManagerOptions {
  /** The local port the tunnel forwards to (a listener of ours dedicated to tunnel traffic). */
  localPort: number
  /** The localtunnel server, e.g. https://localtunnel.me (its default) or http://127.0.0.1:4321 in tests. */
  host?: string
  /** How long start() waits for the first connection before giving up (default 15_000). */
  startTimeoutMs?: number
  /** Back-off between reconnect attempts after the tunnel drops: first delay, doubling, capped (defaults 1_000 and 30_000). */
  retryDelayMs?: number
  maxRetryDelayMs?: number
  /** Problems (warn, the default) and news (info: connected). */
  log?: (message: string, level?: 'info' | 'warn') => void
}
/** What one start may ask for: another tunnel server than the default, a subdomain of its own. */
export interface TunnelRequest {
  host?: string
  /** Asked as GET {host}/{subdomain} instead of /?new; the server may give another one (a taken name). */
  subdomain?: string
}
export interface TunnelStarted {
  url: string
  alreadyRunning: boolean
  /** The tunnel server used. */
  host: string
  /** With a subdomain asked for: whether the server gave that one. */
  subdomainGranted?: boolean
}
export interface TunnelManager {
  /** Starts the tunnel (or returns the URL of the running one). Rejects with a clear Error on timeout/failure and then stays 'stopped'. Concurrent calls share one attempt. */
  start(request?: TunnelRequest): Promise<TunnelStarted>
  /** Stops it (idempotent); no reconnect happens after stop(). */
  stop(): Promise<void>
  status(): TunnelState
  /** Called on every state change; returns an unsubscribe function. */
  onChange(listener: (state: TunnelState) => void): () => void
}

/** What we use of localtunnel 2.0.2's lib/Tunnel.js, private `_init`/`_getInfo` included. */
interface ClientTunnel extends EventEmitter {
  url: string
  tunnelCluster: EventEmitter
  open(done: (error?: Error) => void): void
  close(): void
  _init(done: (error: Error | null, info?: unknown) => void): void
  _getInfo(body: unknown): unknown
}
const Tunnel = TunnelClass as new (options: { port: number; host: string }) => ClientTunnel

/** A connected tunnel: the client plus the sockets it holds open to the server right now. */
interface Live { tunnel: ClientTunnel; url: string; name: string; sockets: Set<Socket>; watchdog?: NodeJS.Timeout }

export function createTunnelManager(options: TunnelManagerOptions): TunnelManager {
  const defaultHost = (options.host ?? 'https://localtunnel.me').replace(/\/+$/, '')
  // What the current generation asked for: reconnects ask the same server for the same name.
  let host = defaultHost
  let subdomain: string | undefined
  const startTimeoutMs = options.startTimeoutMs ?? 15_000
  const firstDelay = options.retryDelayMs ?? 1_000
  const maxDelay = options.maxRetryDelayMs ?? 30_000
  const log = options.log ?? (() => {})
  const listeners = new Set<(state: TunnelState) => void>()
  let state: TunnelState = { state: 'stopped', url: null, lastError: null }
  // Every start() and stop() begins a new generation; callbacks of an older one change nothing.
  let generation = 0
  let current: Live | null = null
  let pending: AbortController | null = null
  let starting: Promise<TunnelStarted> | null = null
  let retryTimer: NodeJS.Timeout | undefined

  const set = (patch: Partial<TunnelState>) => {
    const next = { ...state, ...patch }
    if (next.state === state.state && next.url === state.url && next.lastError === state.lastError) return
    state = next
    for (const listener of [...listeners]) {
      try {
        listener({ ...state })
      } catch (error) {
        log(`A tunnel state listener failed: ${messageOf(error)}`)
      }
    }
  }

  /**
   * One attempt: ask the server for a tunnel, then wait for the client's first socket to it.
   * We replace the client's `_init` (its GET /?new) because that one retries every second
   * forever and cannot be cancelled: a timed-out attempt would keep a timer and requests alive.
   */
  const connect = (signal: AbortSignal): Promise<Live> =>
    new Promise((resolve, reject) => {
      const attempt = new AbortController()
      // No local_host: with it the client rewrites the Host header by turning the first chunk of
      // each connection into a string and back, which mangles binary request bodies (uploads).
      // Without it the client dials "localhost", which Node 20 tries as ::1 and 127.0.0.1 both.
      const tunnel = new Tunnel({ port: options.localPort, host })
      const sockets = new Set<Socket>()
      let granted = ''
      let settled = false
      const finish = (error: Error | null) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        tunnel.off('error', onRefused)
        if (!error) return resolve({ tunnel, url: tunnel.url, name: granted, sockets })
        attempt.abort(error)
        teardown({ tunnel, url: '', name: '', sockets })
        reject(error)
      }
      const onAbort = () => finish(signal.reason as Error)
      const onRefused = (error: Error) => finish(new Error(`The tunnel server ${host} refused the tunnel connection: ${error.message}`))
      const timer = setTimeout(() => finish(new Error(`The tunnel server ${host} did not open a tunnel within ${startTimeoutMs / 1000} s.`)), startTimeoutMs)
      signal.addEventListener('abort', onAbort, { once: true })
      // Always listening: an 'error' event without a listener would crash the process.
      tunnel.on('error', () => {})
      tunnel.on('error', onRefused)
      tunnel._init = (done) =>
        void requestTunnel(host, subdomain, attempt.signal).then((body) => {
          granted = String(body.id ?? '')
          done(null, tunnel._getInfo(body))
        }, done)
      tunnel.open((error) => {
        if (error) return finish(error)
        tunnel.tunnelCluster.on('open', (socket: Socket) => {
          sockets.add(socket)
          socket.once('close', () => sockets.delete(socket))
          // The client turns keep-alive on with the OS delay (2 h on Linux); a dead peer should
          // not look connected that long.
          socket.setKeepAlive(true, 15_000)
          finish(null)
        })
      })
    })

  /** The tunnel is gone for good (or never came): its client stops and its sockets close. */
  const teardown = (live: Live) => {
    clearInterval(live.watchdog)
    live.tunnel.close()
    for (const socket of live.sockets) socket.destroy()
  }

  const adopt = (live: Live, epoch: number) => {
    current = live
    const lost = (why: string) => {
      if (epoch !== generation || current !== live) return
      current = null // first: teardown's close() emits 'close', which comes back here
      teardown(live)
      log(`Tunnel lost (${why}); reconnecting`)
      set({ state: 'reconnecting', url: null, lastError: why })
      retry(epoch, firstDelay)
    }
    // The client reconnects a socket to the server's tunnel port whenever one closes; a refused
    // reconnect ('error') means the server forgot us. It never reports a server that went silent,
    // so a tunnel without a single open socket for a while (half a start timeout, twice) is lost too.
    live.tunnel.on('error', (error: Error) => lost(error.message))
    live.tunnel.on('close', () => lost('the tunnel client closed'))
    let empty = false
    live.watchdog = setInterval(() => {
      if (live.sockets.size > 0) empty = false
      else if (empty) lost(`every connection to ${host} closed and none could be reopened`)
      else empty = true
    }, startTimeoutMs / 2)
    live.watchdog.unref()
    log(`Tunnel connected: ${live.url}`, 'info')
    set({ state: 'connected', url: live.url, lastError: null })
  }

  /** Reconnects after a drop, doubling the delay after each failure, until stop() or start(). */
  const retry = (epoch: number, delay: number) => {
    retryTimer = setTimeout(() => {
      const controller = (pending = new AbortController())
      connect(controller.signal).then(
        (live) => {
          if (pending === controller) pending = null
          if (epoch === generation) adopt(live, epoch)
          else teardown(live)
        },
        (error) => {
          if (pending === controller) pending = null
          if (epoch !== generation) return
          log(`Tunnel reconnect failed (${messageOf(error)}); next try in ${Math.min(delay * 2, maxDelay) / 1000} s`)
          set({ lastError: messageOf(error) })
          retry(epoch, Math.min(delay * 2, maxDelay))
        },
      )
    }, delay)
    // A background retry alone must not keep the process alive.
    retryTimer.unref()
  }

  /** Ends whatever runs (tunnel, attempt, back-off) and starts a new generation. */
  const cancelAll = (reason: string): number => {
    generation++
    starting = null
    clearTimeout(retryTimer)
    pending?.abort(new Error(reason))
    pending = null
    const live = current
    current = null
    if (live) teardown(live)
    return generation
  }

  /** One start() attempt; concurrent start() calls get this same promise. */
  const begin = async (request: TunnelRequest): Promise<TunnelStarted> => {
    // Also while 'reconnecting': the caller asked for a tunnel now, so try now, with their timeout.
    const epoch = cancelAll('superseded by start()')
    host = (request.host ?? defaultHost).replace(/\/+$/, '')
    subdomain = request.subdomain
    set({ state: 'starting', url: null })
    const controller = (pending = new AbortController())
    try {
      const live = await connect(controller.signal)
      if (epoch !== generation) {
        teardown(live)
        throw new Error('The tunnel was stopped before it connected.')
      }
      adopt(live, epoch)
      return { url: live.url, alreadyRunning: false, host, ...(subdomain ? { subdomainGranted: live.name === subdomain } : {}) }
    } catch (error) {
      if (epoch === generation) {
        log(`Tunnel failed to start: ${messageOf(error)}`)
        set({ state: 'stopped', url: null, lastError: messageOf(error) })
      }
      throw error
    } finally {
      if (pending === controller) pending = null
      if (epoch === generation) starting = null
    }
  }

  return {
    start(request = {}) {
      if (state.state === 'connected' && current) {
        const live = current
        return Promise.resolve({ url: live.url, alreadyRunning: true, host, ...(request.subdomain ? { subdomainGranted: live.name === request.subdomain } : {}) })
      }
      return (starting ??= begin(request))
    },
    async stop() {
      cancelAll('The tunnel was stopped before it connected.')
      set({ state: 'stopped', url: null })
    },
    status: () => ({ ...state }),
    onChange(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
  }
}

/**
 * GET {host}/?new (or {host}/{subdomain}), the way the client does it, but abortable and failing
 * fast. node:http with no agent: one connection that ends with the request (fetch's pool
 * reconnected after an abort).
 */
function requestTunnel(host: string, subdomain: string | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
  const get = host.startsWith('https:') ? httpsGet : httpGet
  return new Promise((resolve, reject) => {
    const req = get(`${host}/${subdomain ? encodeURIComponent(subdomain) : '?new'}`, { agent: false, signal, headers: { accept: 'application/json' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('error', reject)
      res.on('end', () => {
        const body = parseObject(text)
        if (res.statusCode === 200 && body && typeof body.port === 'number' && typeof body.url === 'string') return resolve(body)
        const why = typeof body?.message === 'string' ? `: ${body.message}` : ''
        reject(new Error(`The tunnel server ${host} did not grant a tunnel (HTTP ${res.statusCode}${why}).`))
      })
    })
    req.on('error', (error) => reject(signal.aborted ? signal.reason : new Error(`Could not reach the tunnel server ${host}: ${messageOf(error)}`)))
  })
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown> | null
  } catch {
    return null
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
