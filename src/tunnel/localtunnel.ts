import type { EventEmitter } from 'node:events'
import { get as httpGet } from 'node:http'
import { get as httpsGet } from 'node:https'
import type { Socket } from 'node:net'
// @ts-expect-error -- localtunnel's Tunnel class ships without types; ClientTunnel below says what we use.
import TunnelClass from 'localtunnel/lib/Tunnel.js'
import { localtunnelWall } from './localtunnel-wall.js'
import { messageOf, type TunnelConnection, type TunnelConnector } from './providers.js'

export const DEFAULT_LOCALTUNNEL_HOST = 'https://localtunnel.me'

export interface LocaltunnelOptions {
  /** The local port the tunnel forwards to (a listener of ours for this provider). */
  localPort: number
  /** The localtunnel server, e.g. https://localtunnel.me or http://127.0.0.1:4321 in tests. */
  host: string
  /** Asked as GET {host}/{subdomain} instead of /?new; the server may give another one (a taken name). */
  subdomain?: string
  /** How long a connect waits for the first socket; half of it is the watchdog's period. */
  timeoutMs: number
  /** Where this server's reminder-page password is read, when it has that page (localtunnel-wall.ts). */
  passwordUrl?: string
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

export function localtunnelConnector(options: LocaltunnelOptions): TunnelConnector {
  const host = options.host.replace(/\/+$/, '')
  return {
    provider: 'localtunnel',
    describe: host,
    async connect(signal) {
      const connection = await connectOnce({ ...options, host }, signal)
      const wall = await localtunnelWall(host, options.passwordUrl, signal).catch(() => undefined)
      if (signal.aborted) {
        await connection.close()
        throw signal.reason
      }
      return wall ? { ...connection, wall } : connection
    },
  }
}

/**
 * One attempt: ask the server for a tunnel, then wait for the client's first socket to it. We
 * replace the client's `_init` (its GET /?new) because that one retries every second forever and
 * cannot be cancelled: a timed-out attempt would keep a timer and requests alive.
 */
function connectOnce(options: LocaltunnelOptions & { host: string }, signal: AbortSignal): Promise<TunnelConnection> {
  const { host, subdomain, timeoutMs } = options
  return new Promise((resolve, reject) => {
    const attempt = new AbortController()
    // No local_host: with it the client rewrites the Host header by turning the first chunk of
    // each connection into a string and back, which mangles binary request bodies (uploads).
    // Without it the client dials "localhost", which Node 20 tries as ::1 and 127.0.0.1 both.
    const tunnel = new Tunnel({ port: options.localPort, host })
    const sockets = new Set<Socket>()
    const lostListeners: Array<(why: string) => void> = []
    let watchdog: NodeJS.Timeout | undefined
    let closed = false
    let granted = ''
    let settled = false
    const close = async () => {
      if (closed) return
      closed = true
      clearInterval(watchdog)
      tunnel.close()
      for (const socket of sockets) socket.destroy()
    }
    const lost = (why: string) => {
      if (closed || !settled) return
      void close()
      for (const listener of lostListeners) listener(why)
    }
    const finish = (error: Error | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      tunnel.off('error', onRefused)
      if (error) {
        attempt.abort(error)
        void close()
        return reject(error)
      }
      // The client reconnects a socket to the server's tunnel port whenever one closes; a refused
      // reconnect ('error') means the server forgot us. It never reports a server that went
      // silent, so a tunnel without a single open socket for a while (half a timeout, twice) is lost too.
      tunnel.on('error', (e: Error) => lost(e.message))
      tunnel.on('close', () => lost('the tunnel client closed'))
      let empty = false
      watchdog = setInterval(() => {
        if (sockets.size > 0) empty = false
        else if (empty) lost(`every connection to ${host} closed and none could be reopened`)
        else empty = true
      }, timeoutMs / 2)
      watchdog.unref()
      resolve({
        url: tunnel.url,
        ...(subdomain ? { subdomainGranted: granted === subdomain } : {}),
        onLost: (listener) => void lostListeners.push(listener),
        close,
      })
    }
    const onAbort = () => finish(signal.reason as Error)
    const onRefused = (error: Error) => finish(new Error(`The tunnel server ${host} refused the tunnel connection: ${error.message}`))
    const timer = setTimeout(() => finish(new Error(`The tunnel server ${host} did not open a tunnel within ${timeoutMs / 1000} s.`)), timeoutMs)
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
}

/**
 * GET {host}/?new (or {host}/{subdomain}), the way the client does it, but abortable and failing
 * fast. node:http with no agent: one connection that ends with the request (fetch's pool
 * reconnected after an abort).
 */
function requestTunnel(host: string, subdomain: string | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
  const get = host.startsWith('https:') ? httpsGet : httpGet
  return new Promise((resolve, reject) => {
    const req = get(
      `${host}/${subdomain ? encodeURIComponent(subdomain) : '?new'}`,
      { agent: false, signal, headers: { accept: 'application/json' } },
      (res) => {
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
      },
    )
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
