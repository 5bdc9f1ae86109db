import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, isIP } from 'node:net'
import { toNodeHandler } from 'h3/node'
import { createLogger, type Logger } from '../log/logger.js'
import { openStore, type FolioStore } from '../store/index.js'
import { createTunnels, type Tunnels } from '../tunnel/tunnels.js'
import { removeAdminFile, writeAdminFile } from './admin/admin-file.js'
import { ApiKeys } from './auth/api-keys.js'
import { createApp, createServerContext, logProblemsTo } from './app.js'
import type { ServerContext } from './context.js'
import { type ConfigOverrides, defaultConfig, type Mode, type ServerConfig } from './config.js'
import { listenMain, networkUrls } from './http/listener.js'
import { createMailer, mailNotice } from './mail/mailer.js'
import { cloudflareViewer, markViaTunnel } from './http/remote.js'
import { onRequestEnd } from './http/request-end.js'
import { type BodyTimeouts, closeIfLeftoverStalls, setBodyTimeouts } from './http/slow-body.js'
import { logRequests } from './http/request-log.js'

/** Settings key: the public URL of the last tunnel, to tell the author when a new one differs. */
const LAST_TUNNEL_URL = 'tunnel-last-url'

export { PortInUseError } from './http/listener.js'

export interface ServeOptions {
  port: number
  /** `port` is only the default: when it is taken, serve on a free one (folio serve without --port/PORT). */
  fallbackPort?: boolean
  host: string
  dataDir: string
  /** Keep the store in PostgreSQL (several instances may share it); dataDir then holds only this instance's own files. */
  database?: { url: string; poolSize?: number }
  mode: Mode
  config?: ConfigOverrides
  /** Warnings and errors always; one line per request at debug level. Default: stderr at info. */
  logger?: Logger
}

export interface RunningServer {
  url: string
  port: number
  /** The same server on this machine's network addresses (listening on 0.0.0.0, ::, or a LAN address); [] on loopback. */
  networkUrls: string[]
  store: FolioStore
  tunnel: Tunnels
  /** What the routes share (auth, shared state): for what plugs into a running server, and tests. */
  context: ServerContext
  /** The loopback address the tunnel forwards to: everything arriving there counts as remote. */
  tunnelTarget: string
  /** Stops accepting, lets in-flight requests (and their writes) finish, then closes the store. */
  close(): Promise<void>
}

/**
 * The main listener comes from listhen (listener.ts: port finding, network addresses, graceful
 * close); h3's node handler answers. test/listhen-hostile.test.ts runs the hostile-body cases
 * (hang-ups mid-body, early 413s, cut pipelines, slowloris resets, sockets destroyed while
 * closing) through it: the http-shutdown crash once seen there does not happen.
 *
 * Two listeners share one app: the one people and programs use, and a private plain node:http
 * one on loopback that only the tunnel client forwards to. Everything arriving on the second is
 * remote: protected endpoints need the API key there, even in OSS.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const logger = options.logger ?? createLogger()
  const log = logProblemsTo(logger)
  const storeLog = logger.withTag('store')
  const settled = serverConfig(options, logger)
  const behaviour = {
    log: (m: string) => storeLog.info(m),
    warn: (m: string) => storeLog.warn(m),
    maxReanchored: settled.limits.commentsPerFolio,
    assetPointers: settled.mode === 'cloud',
    storageUsage: settled.mode === 'cloud',
  }
  const store = options.database
    ? await (await import('../store/pg/open-pg-store.js')).openPgStore({ ...behaviour, ...options.database, localDir: options.dataDir })
    : await openStore({ ...behaviour, dataDir: options.dataDir })
  const closeStoreOn = async (error: unknown): Promise<never> => {
    await store.close()
    throw error
  }
  if (settled.mode === 'cloud') {
    // plans.json: written with the defaults on the first Cloud start, then the operator's.
    await store.plans.load().catch(closeStoreOn)
    store.plans.watch()
  }
  const keys = await new ApiKeys(settled.mode === 'cloud' ? undefined : store.settings, settled.apiKey).load()

  const { limits } = settled
  const bodyTimeouts: BodyTimeouts = { idleMs: limits.bodyIdleMs, graceMs: limits.bodyGraceMs, minBytesPerSecond: limits.bodyMinBytesPerSecond }
  // The listeners come first, so that the context is built once knowing where it listens (links
  // in notifications name that address) and with its tunnel; a request in the moments between
  // waits for the app rather than finding half a server.
  const app = lateHandler()
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers['transfer-encoding'] || Number(req.headers['content-length']) > 0) {
      setBodyTimeouts(req, bodyTimeouts)
      res.once('finish', () => {
        if (!req.complete) closeIfLeftoverStalls(req, bodyTimeouts)
      })
    }
    app.handle(req, res)
  }
  const inFlight = new InFlight()
  const http = logger.withTag('http')
  // node's own limits, on both listeners: the headers in headersTimeout, the whole request within
  // requestTimeout (a ceiling; slow-body.ts judges bodies by their progress). Checked every
  // connectionsCheckingInterval: 30 s on the main listener (listhen makes it), finer here.
  const timeouts = { headersTimeout: limits.headersTimeoutMs, requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs) }
  // One listener per tunnel provider, on loopback, that only its tunnel forwards to: what arrives
  // there is remote, whatever its headers say. Only cloudflared's names the viewer
  // (CF-Connecting-IP, which Cloudflare's edge sets); localtunnel's passes the viewer's own headers.
  const tunnelListenerFor = (viewerOf: (req: IncomingMessage) => string | undefined) =>
    createServer(
      { ...timeouts, connectionsCheckingInterval: Math.min(30_000, Math.max(250, limits.headersTimeoutMs / 4)) },
      inFlight.track(
        logRequests(
          http,
          (req, res) => {
            markViaTunnel(req, viewerOf(req))
            handle(req, res)
          },
          'tunnel',
        ),
      ),
    )
  const tunnelListeners = { localtunnel: tunnelListenerFor(() => undefined), cloudflare: tunnelListenerFor(cloudflareViewer) }
  const main = await listenMain(inFlight.track(logRequests(http, handle)), options).catch(closeStoreOn)
  const closeListeners = async () => {
    await main.close()
    for (const listener of Object.values(tunnelListeners)) if (listener.listening) await new Promise((resolve) => listener.close(resolve))
  }
  const server = main.server as Server
  Object.assign(server, timeouts)
  const { port } = main.address
  const shownHost = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`
  const portOf = (listener: Server) => (listener.address() as AddressInfo).port

  let ctx: ServerContext
  let tunnel: Tunnels
  const adminToken = settled.mode === 'cloud' ? randomBytes(32).toString('hex') : undefined
  const mailLog = logger.withTag('mail')
  const mailer = createMailer({ smtpUrl: settled.smtpUrl, from: settled.mailFrom, info: (line) => mailLog.info(line) })
  try {
    for (const listener of Object.values(tunnelListeners)) await listen(listener, 0, '127.0.0.1')
    const tunnelLog = logger.withTag('tunnel')
    tunnel = createTunnels({
      ports: { localtunnel: portOf(tunnelListeners.localtunnel), cloudflare: portOf(tunnelListeners.cloudflare) },
      host: settled.tunnel.host,
      passwordUrl: settled.tunnel.passwordUrl,
      startTimeoutMs: settled.tunnel.startTimeoutMs,
      lastUrl: (await store.settings.get<{ url?: string }>(LAST_TUNNEL_URL))?.url ?? null,
      log: (m, level) => (level === 'info' ? tunnelLog.info(m) : tunnelLog.warn(m)),
    })
    // The URL links were last shared with, kept across restarts: a quick tunnel's next one differs.
    tunnel.onChange((state) => {
      if (state.url) void store.settings.set(LAST_TUNNEL_URL, { url: state.url }).catch(() => {})
    })
    if (settled.mode === 'cloud') mailLog.info(mailNotice(mailer))
    // Links sent elsewhere (chat notifications, e-mails) name the server as people reach it.
    const config = deepFreeze({ ...settled, listenUrl: url })
    ctx = createServerContext({ store, config, keys, log, mailer, adminToken, tunnel })
    await ctx.cloud?.load()
    await ctx.oauth.load()
  } catch (error) {
    app.fail()
    await closeListeners()
    return closeStoreOn(error)
  }
  const routed = toNodeHandler(createApp(ctx))
  // Hot GETs answered from memory skip the router (see hot-cache.ts); the rest go through h3.
  app.ready((req, res) => {
    if (!ctx.hot.serve(req, res, routed)) void routed(req, res)
  })

  // folio admin finds a running server's operator API here (and knows, by the data dir's lock,
  // that it must ask the server rather than open the store itself).
  if (adminToken) await writeAdminFile(options.dataDir, { url: adminUrl(options.host, port, url), token: adminToken, pid: process.pid })

  let closing: Promise<void> | undefined
  return {
    url,
    port,
    networkUrls: await networkUrls(main),
    store,
    tunnel,
    context: ctx,
    tunnelTarget: `http://127.0.0.1:${portOf(tunnelListeners.localtunnel)}`,
    close: () =>
      (closing ??= (async () => {
        await tunnel.stop().catch(() => {})
        // listhen's close: no new connections; idle ones close now, busy ones after their answer.
        const tunnelServers = Object.values(tunnelListeners)
        const stopped = Promise.all([main.close(), ...tunnelServers.map((listener) => new Promise<void>((resolve) => listener.close(() => resolve())))])
        for (const listener of tunnelServers) listener.closeIdleConnections()
        ctx.live.closeAll()
        ctx.notifier?.close()
        await Promise.race([inFlight.drained(), sleep(15_000)])
        server.closeAllConnections()
        for (const listener of tunnelServers) listener.closeAllConnections()
        await stopped
        if (adminToken) await removeAdminFile(options.dataDir, adminToken)
        await store.close()
        mailer.close()
      })()),
  }
}

/**
 * The server's configuration, settled before anything is built from it: a name the server
 * listens on (serve --host folio.lan) is one of its own, and Cloud drops FOLIO_API_KEY.
 */
function serverConfig(options: ServeOptions, logger: Logger): ServerConfig {
  const config = defaultConfig({ ...options.config, mode: options.mode })
  const named = options.host && isIP(options.host) === 0 ? [options.host.toLowerCase()] : []
  const cloudKey = config.mode === 'cloud' && Boolean(config.apiKey)
  // One key for the whole server would be every workspace's: Cloud has a key per workspace.
  if (cloudKey) logger.warn('FOLIO_API_KEY is not used in Cloud mode: each workspace has its own key (folio admin workspace create makes one).')
  return { ...config, allowedHosts: [...config.allowedHosts, ...named], apiKey: cloudKey ? undefined : config.apiKey }
}

/**
 * Frozen all the way down through its plain objects and arrays: a route that tried to change the
 * configuration would throw. Class instances and functions it holds (parsed address ranges, the
 * tests' DNS stand-in) are left as they are: they are not ours to freeze.
 */
function deepFreeze<T>(value: T): T {
  if (Array.isArray(value) || (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)) {
    Object.freeze(value)
    for (const inner of Object.values(value as object)) deepFreeze(inner)
  }
  return value
}

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void

/** The listeners' handler before the app exists: requests wait for it (or get a 503 if it never comes). */
function lateHandler() {
  let handler: NodeHandler | undefined
  let failed = false
  const waiting: Array<[IncomingMessage, ServerResponse]> = []
  return {
    handle(req: IncomingMessage, res: ServerResponse) {
      if (handler) handler(req, res)
      else if (failed) res.writeHead(503, { 'content-type': 'text/plain' }).end('folio could not start.\n')
      else waiting.push([req, res])
    },
    ready(ready: NodeHandler) {
      handler = ready
      for (const [req, res] of waiting.splice(0)) ready(req, res)
    },
    fail() {
      failed = true
      for (const [, res] of waiting.splice(0)) res.writeHead(503, { 'content-type': 'text/plain' }).end('folio could not start.\n')
    },
  }
}

/** The operator's API answers loopback peers only: the address to reach it from this machine. */
function adminUrl(host: string, port: number, url: string): string {
  if (host === '::' || host === '::1') return `http://[::1]:${port}`
  if (host === '0.0.0.0' || host === 'localhost' || host.startsWith('127.')) return `http://127.0.0.1:${port}`
  return url
}

/** Counts requests in progress on the listeners, so shutdown can wait for them. */
class InFlight {
  #count = 0
  #waiting: (() => void) | undefined

  track(handle: (req: IncomingMessage, res: ServerResponse) => void) {
    return (req: IncomingMessage, res: ServerResponse) => {
      this.#count++
      onRequestEnd(req, res, () => {
        if (--this.#count === 0) this.#waiting?.()
      })
      handle(req, res)
    }
  }

  drained(): Promise<void> {
    return this.#count === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.#waiting = resolve))
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())
