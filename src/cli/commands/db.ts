import { type Command, Argument } from 'commander'
import { lazyAction } from '../lazy.js'

export function registerDb(program: Command): void {
  program
    .command('db')
    .description('the PostgreSQL store: apply or show its schema migrations, move a data dir into it or out of it')
    .addArgument(new Argument('<action>', 'what to do').choices(['migrate', 'status', 'import', 'export']))
    .addArgument(new Argument('[dir]', 'import: the data dir to read; export: the data dir to write (new or empty)'))
    .option('--database <url>', 'postgres://user:password@host:5432/database (default: $FOLIO_DATABASE_URL)')
    .addHelpText(
      'after',
      `
Examples:
  $ folio db status --database postgres://folio:secret@db.example.com/folio
  $ FOLIO_DATABASE_URL=postgres://… folio db migrate
  $ folio db import ./.folio          every folio, version, comment and count of a data dir
  $ folio db export ./backup-dir      the database's store as a data dir folio serve --data opens
  $ folio db status --json            {"current": true, "applied": […], "pending": […], …}

migrate applies what is pending, one step at a time, under a lock: running it from several
machines at once is safe. status changes nothing. import and export copy every item and read
each back to verify it; if one stops half-way (Ctrl+C, a lost connection), run it again: it
skips what is already there and finishes. Until it has finished, no server starts on the
target. Stop the server using the data dir first (import holds its lock), and import into a
database no server is using yet.
Serve from the database with: folio serve --database postgres://…`,
    )
    .action(lazyAction(() => import('../actions/db.js')))
}
