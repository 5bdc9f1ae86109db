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
    .option('--interval <seconds>', 'seconds between polls of the live view, for what has no live event (views)', parseInterval, 10)
    .option('--once', 'print one snapshot and exit (what happens anyway without a terminal)')
    .addHelpText(
      'after',
      `
The live view shows each folio, the selected one's share link (through the tunnel
when it runs, with a QR code for a phone), its latest comments and the recent
activity: reactions, comments and versions as they happen (live event streams),
views at each poll.

Keys in the live view:
  ↑/↓ or j/k   select a folio (its latest comments show below the list)
  tab (or c)   move between the folios and the selected folio's comments
  x or space   resolve the selected comment, or reopen a resolved one
  t            start the tunnel when it is stopped, stop it when it runs
  o or Enter   open the share page in the browser (drafts in preview; at the comment)
  r            refresh now
  q, Esc       quit (Ctrl+C too; Esc in the comments goes back to the folios)

Examples:
  $ folio status                              the live view of http://127.0.0.1:3000
  $ folio status --server http://nas:3000 --key "$FOLIO_API_KEY"
  $ folio status --json | jq '.folios[] | {title, views: .analytics.views}'
  $ folio status --once                       one text snapshot, e.g. in a log

Without a terminal (piped, in CI) or with --json it prints one snapshot and exits;
the exit code is 2 when the server cannot be reached, 1 when it refuses the key
(or needs one).`,
    )
    .action(lazyAction(() => import('../actions/status.js')))
}
