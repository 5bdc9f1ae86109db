import type { Command } from 'commander'
import { ERRORS } from '../../api/errors.js'
import { controlTunnel, getTunnel } from '../../api/tunnel.js'
import { ApiClientError } from '../../client/index.js'
import { withContext } from '../context.js'
import { CliError, EXIT } from '../errors.js'

/** What to try when the tunnel server cannot be reached or refuses us. */
const NEXT_STEPS =
  "Check this machine's network connection and retry with folio tunnel start; or use your own localtunnel server: folio serve --tunnel-host https://your-server (or FOLIO_TUNNEL_HOST)."

export default (action: 'start' | 'stop' | 'status', _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const tunnelFailed = (error: unknown): never => {
      if (error instanceof ApiClientError && error.status === 403) throw new CliError(`${ctx.server} runs in Cloud mode: it has no tunnel (it is public already).`, EXIT.failed, error.error)
      if (error instanceof ApiClientError && error.error === ERRORS.tunnelFailed.error) throw new CliError(`The tunnel failed: ${error.detail ?? 'no reason given'}. ${NEXT_STEPS}`, EXIT.failed, error.error)
      throw error
    }
    if (action === 'start') {
      ctx.note('Starting the tunnel…')
      const result = await ctx.client.call(controlTunnel, { body: { action: 'start' } }, 60_000).catch(tunnelFailed)
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
