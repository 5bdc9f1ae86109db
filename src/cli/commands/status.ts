import { type Command, InvalidArgumentError } from 'commander'
import { lazyAction } from '../lazy.js'

function parseInterval(value: string): number {
  const seconds = Number(value)
  if (!Number.isFinite(seconds) || seconds < 0.5 || seconds > 3600) throw new InvalidArgumentError('the interval is a number of seconds from 0.5 to 3600')
  return seconds
}

/** folio status: a live terminal view (Ink, loaded only here), or one snapshot for scripts. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('live view of the server, the tunnel (with a QR code) and every folio: views, reactions, comments')
    .option('--interval <seconds>', 'seconds between refreshes of the live view', parseInterval, 2)
    .option('--once', 'print one snapshot and exit (what happens anyway without a terminal)')
    .addHelpText(
      'after',
      `
Keys in the live view:
  ↑/↓ or j/k   select a folio (its latest comments show below the list)
  t            start the tunnel when it is stopped, stop it when it runs
  o or Enter   open the selected folio's share page in the browser (drafts in preview)
  r            refresh now
  q, Esc       quit (Ctrl+C too)

Examples:
  $ folio status                              the live view of http://127.0.0.1:3000
  $ folio status --server http://nas:3000 --key "$FOLIO_API_KEY"
  $ folio status --json | jq '.folios[] | {title, views: .analytics.views}'
  $ folio status --once                       one text snapshot, e.g. in a log

Without a terminal (piped, in CI) or with --json it prints one snapshot and exits;
the exit code is 2 when the server cannot be reached.`,
    )
    .action(lazyAction(() => import('../actions/status.js')))
}
