import { type Command, Argument } from 'commander'
import { lazyAction } from '../lazy.js'

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
    .action(lazyAction(() => import('../actions/tunnel.js')))
}
