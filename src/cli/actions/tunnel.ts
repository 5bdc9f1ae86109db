import type { Command } from 'commander'
import { ERRORS } from '../../api/errors.js'
import { controlTunnel, getTunnel } from '../../api/tunnel.js'
import { ApiClientError } from '../../client/index.js'
import { withContext } from '../context.js'
import { CliError, EXIT, UsageError } from '../errors.js'
import { normalizeServerUrl } from '../server-url.js'

/** What to try when the tunnel server cannot be reached or refuses us. */
const NEXT_STEPS =
  "Check this machine's network connection and retry with folio tunnel start; or use your own localtunnel server: folio tunnel start --tunnel-host https://your-server (or folio serve --tunnel-host, FOLIO_TUNNEL_HOST)."

/** --tunnel-host takes what --server takes: a URL, or host[:port] (server-url.ts adds the scheme). */
function tunnelRequest(action: string, options: TunnelOptions): { host?: string; subdomain?: string } {
  if (action !== 'start' && (options.tunnelHost !== undefined || options.subdomain !== undefined)) {
    throw new UsageError('--tunnel-host and --subdomain go with start: folio tunnel start --subdomain <name>.')
  }
  const subdomain = options.subdomain?.toLowerCase()
  if (subdomain !== undefined && !/^[a-z0-9-]{4,63}$/.test(subdomain)) throw new UsageError(`--subdomain is 4 to 63 letters, digits or hyphens, got ${JSON.stringify(options.subdomain)}.`)
  if (options.tunnelHost === undefined) return { subdomain }
  const host = normalizeServerUrl(options.tunnelHost)
  if (!('url' in host) || new URL(host.url).pathname !== '/') throw new UsageError(`--tunnel-host must be the URL of a localtunnel server, like https://localtunnel.me, got ${JSON.stringify(options.tunnelHost)}.`)
  return { host: host.url, subdomain }
}

export interface TunnelOptions {
  tunnelHost?: string
  subdomain?: string
}

export default (action: 'start' | 'stop' | 'status', options: TunnelOptions, command: Command) =>
  withContext(command, async (ctx) => {
    const request = tunnelRequest(action, options)
    const tunnelFailed = (error: unknown): never => {
      if (error instanceof ApiClientError && error.status === 403) throw new CliError(`${ctx.server} runs in Cloud mode: it has no tunnel (it is public already).`, EXIT.failed, error.error)
      if (error instanceof ApiClientError && error.error === ERRORS.tunnelFailed.error) throw new CliError(`The tunnel failed: ${error.detail ?? 'no reason given'}. ${NEXT_STEPS}`, EXIT.failed, error.error)
      throw error
    }
    if (action === 'start') {
      ctx.note('Starting the tunnel…')
      const result = await ctx.client.call(controlTunnel, { body: { action: 'start', ...request } }, 60_000).catch(tunnelFailed)
      ctx.print(result, () => `${result.message ? `${result.message} ` : ''}Public URL: ${result.url}`)
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
        ? `Tunnel: connected at ${status.url}`
        : `Tunnel: ${status.state}${status.lastError ? ` (last error: ${status.lastError})\n${NEXT_STEPS}` : ''}`,
    )
  })
