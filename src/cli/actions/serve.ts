import { packageVersion } from '../../version.js'
import { runtimeLabel } from '../../package-files.js'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { wantsColors } from '../../log/logger.js'
import { isAnyHost, isLoopbackHost } from '../../server/http/listener.js'
import { PortInUseError, type RunningServer, startServer } from '../../server/serve.js'
import type { GlobalOptions } from '../context.js'
import { CliError, UsageError } from '../errors.js'
import { logger, printResult } from '../logger.js'
import { openUrl } from '../../terminal/open-url.js'
import { PACKAGE_NAME } from '../../version.js'
import { DEFAULT_PORT, parsePort, portInUseMessage } from '../port.js'
import { POOL_SIZE_HINT, poolSizeOf } from '../pool-size.js'
import { serveBanner } from '../serve-banner.js'
import { serveNextSteps } from '../serve-next-steps.js'
import { describeDatabase } from '../../domain/database-url.js'
import { startTunnel, tunnelSettings } from '../../server/tunnel/tunnel-control.js'
import { isTunnelProvider, TUNNEL_PROVIDERS, tunnelPasswordLine } from '../../domain/tunnel-providers.js'
import { ensureCloudflared } from '../cloudflared-setup.js'

interface ServeFlags {
  port?: number
  host: string
  data?: string
  database?: string
  poolSize?: number
  mode: 'oss' | 'cloud'
  tunnel?: boolean
  tunnelHost?: string
  open?: boolean
  trustProxy?: boolean
}

export default async (options: ServeFlags, command: Command) => {
  // --json is global: with it, one line {url, publicUrl, dataDir, mode, pid, networkUrls} when ready.
  const json = Boolean(command.optsWithGlobals<GlobalOptions>().json)
  const log = logger()
  const note = (message: string) => {
    if (!json) log.info(message)
  }
  const chosenPort = options.port ?? (process.env.PORT ? parsePort(process.env.PORT) : undefined)
  const dataDir = resolve(options.data ?? process.env.FOLIO_DATA ?? '.folio')
  // || : an empty FOLIO_DATABASE_URL is unset, as for every folio variable.
  const databaseUrl = options.database || process.env.FOLIO_DATABASE_URL || undefined
  if (databaseUrl && !/^postgres(ql)?:$/.test(URL.parse(databaseUrl)?.protocol ?? '')) {
    throw new UsageError('The database URL is not a postgres:// URL: give --database postgres://user:password@host:5432/database (or FOLIO_DATABASE_URL).')
  }
  const poolSize = options.poolSize ?? (process.env.FOLIO_POOL_SIZE ? parsePoolSize(process.env.FOLIO_POOL_SIZE) : undefined)
  // Listening for signals before anything says "ready": until a listener exists, a SIGINT kills
  // node on the spot, and a script may send one as soon as it reads the ready line.
  const stopSignal = firstStopSignal()
  let server: RunningServer
  try {
    server = await startServer({
      port: chosenPort ?? DEFAULT_PORT,
      fallbackPort: chosenPort === undefined,
      host: options.host,
      dataDir,
      ...(databaseUrl ? { database: { url: databaseUrl, poolSize } } : {}),
      mode: options.mode,
      config: {
        ...(options.tunnelHost ? { tunnel: { host: options.tunnelHost, startTimeoutMs: 15_000 } } : {}),
        ...(options.trustProxy ? { trustProxy: true } : {}),
      },
      logger: log,
    })
  } catch (error) {
    stopSignal.dispose()
    // The server's message suggests the next port without knowing whether it is free: probe it.
    if (error instanceof PortInUseError) throw new CliError(await portInUseMessage(error.port, options.host))
    throw new CliError((error as Error).message)
  }
  if (chosenPort === undefined && server.port !== DEFAULT_PORT)
    log.warn(`port ${DEFAULT_PORT} is in use, so this server listens on ${server.port} (choose one with --port).`)
  const loopback = isLoopbackHost(options.host)
  if (!loopback) {
    log.warn(`listening on ${options.host}: other machines can reach this server. Network addresses need the API key (folio keys show prints it).`)
  }
  let publicUrl: string | undefined
  let tunnelLines: string[] = []
  if (options.tunnel) {
    try {
      const started = await startServeTunnel(server, note)
      publicUrl = started.url
      tunnelLines = [tunnelPasswordLine(started.wall?.password), started.wall?.notice ?? ''].filter(Boolean)
    } catch (error) {
      log.warn(`the tunnel did not start (${(error as Error).message}); the server runs locally. Retry with folio tunnel start.`)
    }
  }
  const { url, networkUrls } = server
  if (json) {
    printResult(
      JSON.stringify({
        url,
        publicUrl,
        dataDir,
        ...(databaseUrl ? { database: describeDatabase(databaseUrl) } : {}),
        mode: options.mode,
        pid: process.pid,
        networkUrls,
      }),
    )
  } else {
    // The CLI's commands talk to http://127.0.0.1:$PORT (or 3000) unless told otherwise.
    const onDefaultServer = server.port === Number(process.env.PORT || DEFAULT_PORT) && (options.host === '127.0.0.1' || isAnyHost(options.host))
    // Started with npx (npx folio-cli serve), the shell has no folio command: the step says npx too.
    const folio = process.env.npm_lifecycle_event === 'npx' ? `npx ${PACKAGE_NAME}` : 'folio'
    const next = serveNextSteps({ url, mode: options.mode, dataDir, onDefaultServer, folio })
    const interactive = Boolean(process.stdout.isTTY)
    const data = databaseUrl ? `PostgreSQL ${describeDatabase(databaseUrl)}` : dataDir
    printResult(
      serveBanner(
        {
          url,
          networkUrls,
          loopback,
          publicUrl,
          publicNotes: tunnelLines,
          dataDir: data,
          mode: options.mode,
          next,
          version: `${packageVersion()} (${runtimeLabel()})`,
        },
        { colors: wantsColors(process.stdout), qr: interactive },
      ),
    )
  }
  if (options.open && !(await openUrl(url))) log.warn(`no browser could be opened (set BROWSER to choose one); the dashboard is at ${url}`)
  note(`${await stopSignal.received}: finishing in-flight requests…`)
  await server.close().catch((error: unknown) => log.error(`error while stopping: ${(error as Error).message}`))
  note('Stopped.')
}

/**
 * folio serve --tunnel: the provider FOLIO_TUNNEL_PROVIDER names, else the one last used; for
 * Cloudflare, cloudflared is checked (and offered) first, here at the terminal.
 */
async function startServeTunnel(server: RunningServer, note: (message: string) => void) {
  const named = process.env.FOLIO_TUNNEL_PROVIDER || undefined
  if (named !== undefined && !isTunnelProvider(named))
    throw new UsageError(`FOLIO_TUNNEL_PROVIDER is one of ${TUNNEL_PROVIDERS.join(', ')}, got ${JSON.stringify(named)}.`)
  const provider = named ?? (await tunnelSettings(server.context)).provider
  if (provider === 'cloudflare') await ensureCloudflared({ note })
  return startTunnel(server.context, { provider })
}

function parsePoolSize(value: string): number {
  const n = poolSizeOf(value)
  if (n === undefined) throw new CliError(`FOLIO_POOL_SIZE=${value}: give ${POOL_SIZE_HINT}`)
  return n
}

/** The first SIGINT or SIGTERM, as a promise; a second one ends the process the usual way. */
function firstStopSignal() {
  let stop: (signal: string) => void = () => {}
  const dispose = () => {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
  const received = new Promise<string>((resolve) => {
    stop = (signal) => {
      dispose()
      resolve(signal)
    }
  })
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  return { received, dispose }
}
