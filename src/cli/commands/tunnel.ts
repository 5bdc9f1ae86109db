import { type Command, Argument, Option } from 'commander'
import { TUNNEL_PROVIDERS } from '../../domain/tunnel-providers.js'
import { lazyAction } from '../lazy.js'

export function registerTunnel(program: Command): void {
  program
    .command('tunnel')
    .description('start or stop a public tunnel to the local server, or show its state')
    .addArgument(new Argument('[action]', 'what to do').choices(['start', 'stop', 'status']).default('status'))
    .addOption(
      new Option('--provider <name>', 'start: how (default: $FOLIO_TUNNEL_PROVIDER, else the last one used, else localtunnel)').choices([...TUNNEL_PROVIDERS]),
    )
    .option('--url <url>', 'start, custom provider: the public URL of your own tunnel or proxy to this server (saved)')
    .option('--tunnel-host <url>', 'start, localtunnel: the localtunnel server to use this time (default: the one folio serve was given)')
    .option('--subdomain <name>', 'start, localtunnel: ask for this subdomain (4–63 of a-z, 0-9, -); the server may give another when taken')
    .option('-y, --yes', 'start, cloudflare: download cloudflared without asking when it is missing')
    .addHelpText(
      'after',
      `
Examples:
  $ folio tunnel start                               the last provider used (localtunnel at first)
  $ folio tunnel start --provider cloudflare         a https://….trycloudflare.com URL, no reminder page
  $ folio tunnel start --provider custom --url https://deck.example.com
  $ folio tunnel start --subdomain q3-review         https://q3-review.loca.lt if free
  $ folio tunnel status --json
  $ folio tunnel stop

Providers:
  localtunnel  no account, nothing to install. The public server (localtunnel.me) shows browser
               viewers a reminder page that asks for a tunnel password once a week: folio prints
               it (this machine's public IP address). The URL changes on every start unless
               you ask for a --subdomain (if free).
  cloudflare   no account, no page in between, viewers told apart (per-viewer limits). Runs
               Cloudflare's cloudflared: the first start offers to download it (about 40 MB;
               --yes or FOLIO_INSTALL_CLOUDFLARED=1 in scripts; FOLIO_CLOUDFLARED names your own).
               The URL changes on every start.
  custom       your own URL (a reverse proxy, Tailscale Funnel, ngrok…) pointed at this server;
               folio starts nothing and uses it for share links and QR codes.

Through the tunnel, everything but public share pages needs the API key (folio keys). When a
restarted tunnel gets another URL, folio tunnel status, folio status and the dashboard say so.`,
    )
    .action(lazyAction(() => import('../actions/tunnel.js')))
}
