import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type AddressInfo, isIP } from 'node:net'
import { toNodeHandler } from 'h3/node'
import { openStore, type FolioStore } from '../store/index.js'
import { createTunnelManager, type TunnelManager } from '../tunnel/tunnel-manager.js'
import { ApiKeys } from './api-keys.js'
import { createApp, createServerContext } from './app.js'
import { defaultConfig, type Mode, type ServerConfig } from './config.js'
import { markRemote } from './remote.js'

export interface ServeOptions {
  port: number
  host: string
  dataDir: string
  mode: Mode
  config?: Partial<ServerConfig>
  log?: (message: string, error?: unknown) => void
}

export interface RunningServer {
  url: string
  port: number
  store: FolioStore
  tunnel: TunnelManager
  /** The loopback address the tunnel forwards to: everything arriving there counts as remote. */
  tunnelTarget: string
  /** Stops accepting, lets in-flight requests (and their writes) finish, then closes the store. */
  close(): Promise<void>
}

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`Port ${port} is already in use. Stop the other server or start this one with --port ${port + 1}.`)
  }
}

/**
 * Plain node:http with h3's node handler. (listhen's http-shutdown crashes the process when a
 * connection is torn down early, e.g. a body refused for its size; node:http does not.)
 *
 * Two listeners share one app: the one people and programs on this machine use, and a private
 * loopback one that only the tunnel client forwards to. Everything arriving on the second is
 * remote: protected endpoints need the API key there, even in OSS.
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const log = options.log ?? ((message: string, error?: unknown) => console.error(message, error ?? ''))
  const store = await openStore({ dataDir: options.dataDir, log: (m) => log(m) })
  const config = defaultConfig({ ...options.config, mode: options.mode })
  // Listening on a name (serve --host folio.lan) makes that name one of the server's own.
  if (options.host && isIP(options.host) === 0) config.allowedHosts.push(options.host.toLowerCase())
  const keys = await new ApiKeys(store.settings, config.apiKey).load()

  // The tunnel manager needs the tunnel listener's port: it joins the context once that listens.
  const ctx = createServerContext({ store, config, keys, log })
  const routed = toNodeHandler(createApp(ctx))
  // Hot GETs answered from memory skip the router (see hot-cache.ts); the rest go through h3.
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (!ctx.hot.serve(req, res)) void routed(req, res)
  }
  const server = createServer(handle)
  const tunnelListener = createServer((req, res) => {
    markRemote(req)
    handle(req, res)
  })
  const inFlight = trackInFlight(server, tunnelListener)

  try {
    await listen(server, options.port, options.host)
    await listen(tunnelListener, 0, '127.0.0.1')
  } catch (error) {
    server.close()
    await store.close()
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(options.port)
    throw error
  }
  const tunnel = createTunnelManager({
    localPort: (tunnelListener.address() as AddressInfo).port,
    host: config.tunnel.host,
    startTimeoutMs: config.tunnel.startTimeoutMs,
    log: (m) => log(m),
  })
  ctx.tunnel = tunnel
  const { port } = server.address() as AddressInfo
  const shownHost = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`

  let closing: Promise<void> | undefined
  return {
    url,
    port,
    store,
    tunnel,
    tunnelTarget: `http://127.0.0.1:${(tunnelListener.address() as AddressInfo).port}`,
    close: () =>
      (closing ??= (async () => {
        await tunnel.stop().catch(() => {})
        const stopped = Promise.all([server, tunnelListener].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))))
        server.closeIdleConnections()
        tunnelListener.closeIdleConnections()
        await Promise.race([inFlight.drained(), sleep(15_000)])
        server.closeAllConnections()
        tunnelListener.closeAllConnections()
        await stopped
        await store.close()
      })()),
  }
}

/** Counts requests in progress on the listeners, so shutdown can wait for them. */
function trackInFlight(...servers: Server[]) {
  let count = 0
  let waiting: (() => void) | undefined
  for (const s of servers) {
    s.on('request', (_req, res: ServerResponse) => {
      count++
      res.once('close', () => {
        count--
        if (count === 0) waiting?.()
      })
    })
  }
  return {
    drained: () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => (waiting = resolve))),
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
