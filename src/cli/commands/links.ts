import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'
import { FOLIO_ID_HELP } from './folio-id.js'

export function registerLinks(program: Command): void {
  program
    .command('links')
    .description('links for one recipient each: who opened the folio, how far they read; make, list or revoke them')
    .argument('[id]', FOLIO_ID_HELP)
    .argument('[action]', 'list (default), add or revoke')
    .argument('[nameOrLinkId]', 'add: who it is for ("Dana at Acme"); revoke: the link id')
    .option('--expires <when>', 'add: the link stops working then: a date-time (2026-12-31T18:00Z) or a span from now (7d, 12h)')
    .option('--max-views <n>', 'add: the link opens for this many views, then says it expired')
    .addHelpText(
      'after',
      `
Examples:
  $ folio links kL9VtGLOsbNK                               each link: status, views, time, URL
  $ folio links kL9VtGLOsbNK add "Dana at Acme"            prints the URL to send Dana
  $ folio links kL9VtGLOsbNK add "Board" --expires 7d --max-views 5
  $ folio links kL9VtGLOsbNK revoke 3q2-Xc9Lk0aQ1wE8bT7yUg  that link stops; the others and the main link do not
  $ folio links add "Dana at Acme"                         in a linked folder, the id left out

Views, time per slide and the "read 9 of 12 slides" summaries of a link's viewers count on that
link (folio status and the dashboard show them). A private folio still asks for its access key.
--json prints the links (or the new or revoked link) as JSON.`,
    )
    .action(lazyAction(() => import('../actions/links.js')))
}
