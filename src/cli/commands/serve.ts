import { type Command, InvalidArgumentError, Option } from 'commander'
import { lazyAction } from '../lazy.js'
import { parsePort } from '../port.js'
import { POOL_SIZE_HINT, poolSizeOf } from '../pool-size.js'

function parsePoolSize(value: string): number {
  const n = poolSizeOf(value)
  if (n === undefined) throw new InvalidArgumentError(POOL_SIZE_HINT)
  return n
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('start the folio server on a flat-file store (no database to install)')
    .option('-p, --port <port>', 'port to listen on; 0 picks a free one (default: $PORT, else 3000 or, when taken, a free one)', parsePort)
    .option('-H, --host <host>', 'interface or host name to listen on; 0.0.0.0 to reach it from other machines', '127.0.0.1')
    .option('-d, --data <dir>', "data folder (default: $FOLIO_DATA or ./.folio); with --database, only this instance's own files")
    .option(
      '--database <url>',
      'keep everything in PostgreSQL instead, postgres://user:password@host:5432/database: run several instances on it (default: $FOLIO_DATABASE_URL)',
    )
    .option('--pool-size <n>', 'with --database: connections this instance may hold (default: $FOLIO_POOL_SIZE, else 10; it takes 2 more)', parsePoolSize)
    .addOption(new Option('-m, --mode <mode>', 'oss: open local API; cloud: workspaces, keys and quotas').choices(['oss', 'cloud']).default('oss'))
    .option('--tunnel', 'also open a public tunnel at start (folio tunnel start|stop later)')
    .option('--tunnel-host <url>', 'your own localtunnel server (default: $FOLIO_TUNNEL_HOST, else localtunnel.me)')
    .option('--open', 'open the dashboard in the browser ($BROWSER, else the system default) once serving')
    .option('--trust-proxy', 'your own proxy or tunnel server appends X-Forwarded-For: its last hop names the client (default: $FOLIO_TRUST_PROXY)')
    .addHelpText(
      'after',
      `
Examples:
  $ folio serve                          http://127.0.0.1:3000, data in ./.folio
  $ folio serve --port 0 --json          a free port; prints {"url": …} for scripts
  $ folio serve --host 0.0.0.0 --open    reachable from this network (a QR code for phones)
  $ folio serve --verbose                a line per request (no keys, no query strings)
  $ PORT=8080 FOLIO_DATA=~/folios folio serve
  $ folio serve --database postgres://folio:secret@db.internal/folio --host 0.0.0.0
                                         one of several instances behind a load balancer
  $ curl -X POST localhost:3000/api/files -H 'content-type: application/json' -d '{"title":"Hello","initialHtml":"<h1>Hi</h1>"}'

Who may call it: the API is open to this machine's programs and the server's own pages. Other
sites' pages, requests through the tunnel and host names it does not know need the key (folio keys
show). IP addresses and localhost always count as its own; add names with --host <name> or
FOLIO_ALLOWED_HOSTS=folio.lan,mybox (a guard against DNS rebinding). Network addresses need the
API key: folio keys show prints it.

X-Forwarded-For is ignored unless you pass --trust-proxy (FOLIO_TRUST_PROXY=1): only for a proxy or
tunnel server of yours that appends it (a localtunnel server does not). Then its last hop tells
viewers apart for rate limits and access-key budgets, and a request carrying one is not treated
as coming from this machine.

With --database every folio, version, comment, count, key and session is in PostgreSQL, and any
number of instances may serve the same database behind any HTTP load balancer (no sticky
sessions). Schema migrations apply on start; folio db import moves a data dir in.

Ctrl+C (SIGINT) or SIGTERM stops it after in-flight writes finish.`,
    )
    .action(lazyAction(() => import('../actions/serve.js')))
}
