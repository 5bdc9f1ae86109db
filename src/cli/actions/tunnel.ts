import type { Command } from 'commander'
import { controlTunnel, getTunnel } from '../../api/tunnel.js'
import { withContext } from '../context.js'

export default (action: 'start' | 'stop' | 'status', _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    if (action === 'start') {
      ctx.note('Starting the tunnel…')
      const result = await ctx.client.call(controlTunnel, { body: { action: 'start' } }, 60_000)
      ctx.print(result, () => `${result.message ? `${result.message} ` : ''}Public URL: ${result.url}`)
      return
    }
    if (action === 'stop') {
      const result = await ctx.client.call(controlTunnel, { body: { action: 'stop' } })
      ctx.print(result, () => 'Tunnel stopped.')
      return
    }
    const status = await ctx.client.call(getTunnel)
    ctx.print(status, () =>
      status.state === 'connected'
        ? `Tunnel: connected at ${status.url}`
        : `Tunnel: ${status.state}${status.lastError ? ` (last error: ${status.lastError})` : ''}`,
    )
  })
