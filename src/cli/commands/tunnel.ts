import { type Command, Argument } from 'commander'
import { lazyAction } from '../lazy.js'

export function registerTunnel(program: Command): void {
  program
    .command('tunnel')
    .description('start or stop a public tunnel to the local server, or show its state')
    .addArgument(new Argument('[action]', 'what to do').choices(['start', 'stop', 'status']).default('status'))
    .option('--tunnel-host <url>', 'start: the localtunnel server to use this time (default: the one folio serve was given)')
    .option('--subdomain <name>', 'start: ask the tunnel server for this subdomain (4–63 of a-z, 0-9, -); it may give another when taken')
    .addHelpText(
      'after',
      `
Examples:
  $ folio tunnel start         prints the public URL (share pages of published folios work there)
  $ folio tunnel start --subdomain q3-review                  https://q3-review.loca.lt if free
  $ folio tunnel start --tunnel-host https://tunnel.example.com
  $ folio tunnel status --json
  $ folio tunnel stop
Through the tunnel, everything but public share pages needs the API key (folio keys).
Without --tunnel-host the serve process's tunnel server is used (folio serve --tunnel-host, or
FOLIO_TUNNEL_HOST, else localtunnel.me). A subdomain the server does not give is said, not an
error. To change the server or subdomain of a running tunnel, stop it first.`,
    )
    .action(lazyAction(() => import('../actions/tunnel.js')))
}
