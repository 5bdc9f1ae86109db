import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { toNodeHandler } from 'h3/node'
import { openStore, type FolioStore } from '../store/index.js'
import { createApp, createServerContext } from './app.js'
import { defaultConfig, type Mode, type ServerConfig } from './config.js'

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
 */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const log = options.log ?? ((message: string, error?: unknown) => console.error(message, error ?? ''))
  const store = await openStore({ dataDir: options.dataDir, log: (m) => log(m) })
  const config = defaultConfig({ ...options.config, mode: options.mode })
  const ctx = createServerContext({ store, config, log })
  const routed = toNodeHandler(createApp(ctx))
  // Hot GETs answered from memory skip the router (see hot-cache.ts); the rest go through h3.
  const server = createServer((req, res) => {
    if (!ctx.hot.serve(req, res)) void routed(req, res)
  })
  let inFlight = 0
  let drained: (() => void) | undefined
  server.on('request', (_req, res) => {
    inFlight++
    res.once('close', () => {
      inFlight--
      if (inFlight === 0) drained?.()
    })
  })
  try {
    await listen(server, options.port, options.host)
  } catch (error) {
    await store.close()
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(options.port)
    throw error
  }
  const { port } = server.address() as AddressInfo
  const shownHost = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`

  let closing: Promise<void> | undefined
  return {
    url,
    port,
    store,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        if (inFlight > 0) {
          await Promise.race([new Promise<void>((resolve) => (drained = resolve)), sleep(15_000)])
        }
        server.closeAllConnections()
        await stopped
        await store.close()
      })()),
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
