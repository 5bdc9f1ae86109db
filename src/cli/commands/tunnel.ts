import { type Command, Argument } from 'commander'
import { controlTunnel, getTunnel } from '../../api/tunnel.js'
import { withContext } from '../context.js'

export function registerTunnel(program: Command): void {
  program
    .command('tunnel')
    .description('start or stop a public tunnel to the local server, or show its state')
    .addArgument(new Argument('[action]', 'what to do').choices(['start', 'stop', 'status']).default('status'))
    .addHelpText(
      'after',
      `
Examples:
  $ folio tunnel start         prints the public URL (share pages of published folios work there)
  $ folio tunnel status --json
  $ folio tunnel stop
Through the tunnel, everything but public share pages needs the API key (folio keys).
The serve process picks the tunnel server: folio serve --tunnel-host https://your-localtunnel-server`,
    )
    .action((action: 'start' | 'stop' | 'status', _options, command: Command) =>
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
      }),
    )
}
