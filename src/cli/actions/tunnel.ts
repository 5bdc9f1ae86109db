import type { Command } from 'commander'
import { ERRORS } from '../../api/errors.js'
import { controlTunnel, getTunnel } from '../../api/tunnel.js'
import { ApiClientError } from '../../client/index.js'
import { isLoopbackUrl } from '../../tui/share-links.js'
import { CLOUDFLARED_MISSING, isTunnelProvider, TUNNEL_PROVIDERS, type TunnelProviderName, tunnelPasswordLine } from '../../domain/tunnel-providers.js'
import { ensureCloudflared } from '../cloudflared-setup.js'
import { withContext } from '../context.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import { normalizeServerUrl } from '../server-url.js'

/** What to try when the tunnel cannot start. */
const NEXT_STEPS =
  "Check this machine's network connection and retry with folio tunnel start; or try another provider (folio tunnel start --provider cloudflare), or your own localtunnel server (--tunnel-host https://your-server, or FOLIO_TUNNEL_HOST)."

export interface TunnelOptions {
  tunnelHost?: string
  subdomain?: string
  provider?: string
  url?: string
  yes?: boolean
}

type StartBody = { action: 'start'; provider?: TunnelProviderName; host?: string; subdomain?: string; install?: boolean }

/** --provider (else FOLIO_TUNNEL_PROVIDER, else what the server remembers); --tunnel-host takes what --server takes. */
function startRequest(action: string, options: TunnelOptions): Omit<StartBody, 'action'> {
  const named = options.provider ?? (process.env.FOLIO_TUNNEL_PROVIDER || undefined)
  if (action !== 'start') {
    if (options.tunnelHost !== undefined || options.subdomain !== undefined || options.provider !== undefined || options.url !== undefined) {
      throw new UsageError('--provider, --url, --tunnel-host and --subdomain go with start: folio tunnel start --provider cloudflare.')
    }
    return {}
  }
  if (named !== undefined && !isTunnelProvider(named)) {
    throw new UsageError(`${options.provider ? '--provider' : 'FOLIO_TUNNEL_PROVIDER'} is one of ${TUNNEL_PROVIDERS.join(', ')}, got ${JSON.stringify(named)}.`)
  }
  const provider = options.url !== undefined ? (named ?? 'custom') : named
  if (options.url !== undefined && provider !== 'custom')
    throw new UsageError('--url is the public URL of your own tunnel or proxy: it goes with --provider custom.')
  if ((options.tunnelHost !== undefined || options.subdomain !== undefined) && provider !== undefined && provider !== 'localtunnel') {
    throw new UsageError('--tunnel-host and --subdomain are for localtunnel: folio tunnel start --provider localtunnel --subdomain <name>.')
  }
  const subdomain = options.subdomain?.toLowerCase()
  if (subdomain !== undefined && !/^[a-z0-9-]{4,63}$/.test(subdomain))
    throw new UsageError(`--subdomain is 4 to 63 letters, digits or hyphens, got ${JSON.stringify(options.subdomain)}.`)
  const request = { ...(provider ? { provider } : {}), ...(subdomain ? { subdomain } : {}) }
  if (options.tunnelHost === undefined) return request
  const host = normalizeServerUrl(options.tunnelHost)
  if (!('url' in host) || new URL(host.url).pathname !== '/')
    throw new UsageError(`--tunnel-host must be the URL of a localtunnel server, like https://localtunnel.me, got ${JSON.stringify(options.tunnelHost)}.`)
  return { ...request, provider: 'localtunnel', host: host.url }
}

/** The lines a person reads about a running tunnel: URL, provider, and what viewers meet first. */
function describeTunnel(t: {
  url?: string | null
  provider?: string
  viewerPassword?: string | null
  viewerNotice?: string | null
  previousUrl?: string | null
}): string {
  return [
    `Public URL: ${t.url} (${t.provider})`,
    t.previousUrl ? `The URL changed: links shared with ${t.previousUrl} no longer work; share the new one.` : '',
    tunnelPasswordLine(t.viewerPassword),
    t.viewerNotice ?? '',
  ]
    .filter(Boolean)
    .join('\n')
}

export default (action: 'start' | 'stop' | 'status', options: TunnelOptions, command: Command) =>
  withContext(command, async (ctx) => {
    const request = startRequest(action, options)
    const tunnelFailed = (error: unknown): never => {
      if (error instanceof ApiClientError && error.status === 403)
        throw new CliError(`${ctx.server} runs in Cloud mode: it has no tunnel (it is public already).`, EXIT.failed, error.error)
      if (error instanceof ApiClientError && error.error === ERRORS.tunnelFailed.error)
        throw new CliError(`The tunnel failed: ${error.detail ?? 'no reason given'}. ${NEXT_STEPS}`, EXIT.failed, error.error)
      throw error
    }
    if (action === 'start') {
      if (options.url !== undefined) {
        await ctx.client.call(controlTunnel, { body: { action: 'save_custom', customTunnelUrl: options.url } })
      }
      const body: StartBody = { action: 'start', ...request }
      // cloudflared runs where the server runs: a server elsewhere downloads it itself when told
      // to (--yes); for one on this machine it is fetched here, with a progress bar, once the
      // server says it has none.
      if (request.provider === 'cloudflare' && options.yes && !isLoopbackUrl(ctx.server)) body.install = true
      ctx.note(`Starting the tunnel${request.provider ? ` (${request.provider})` : ''}…`)
      const start = () => ctx.client.call(controlTunnel, { body }, 90_000)
      const result = await start()
        .catch(async (error: unknown) => {
          if (!(error instanceof ApiClientError && error.detail?.startsWith(CLOUDFLARED_MISSING) && isLoopbackUrl(ctx.server))) throw error
          await ensureCloudflared({ yes: options.yes, note: ctx.note })
          return start()
        })
        .catch(tunnelFailed)
      ctx.print(result, () => `${result.message ? `${result.message}\n` : ''}${describeTunnel(result)}`)
      return
    }
    if (action === 'stop') {
      const result = await ctx.client.call(controlTunnel, { body: { action: 'stop' } }).catch(tunnelFailed)
      ctx.print(result, () => 'Tunnel stopped.')
      return
    }
    const status = await ctx.client.call(getTunnel).catch(tunnelFailed)
    ctx.print(status, () =>
      status.state === 'connected'
        ? `Tunnel: connected\n${describeTunnel(status)}`
        : `Tunnel: ${status.state} (provider ${status.provider})${status.lastError ? ` (last error: ${status.lastError})\n${NEXT_STEPS}` : ''}`,
    )
  })
