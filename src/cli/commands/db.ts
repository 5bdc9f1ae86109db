import { type Command, Argument } from 'commander'
import { lazyAction } from '../lazy.js'

export function registerDb(program: Command): void {
  program
    .command('db')
    .description("apply or show a PostgreSQL database's schema migrations")
    .addArgument(new Argument('<action>', 'what to do').choices(['migrate', 'status']))
    .option('--database <url>', 'postgres://user:password@host:5432/database (default: $FOLIO_DATABASE_URL)')
    .addHelpText(
      'after',
      `
Examples:
  $ folio db status --database postgres://folio:secret@db.example.com/folio
  $ FOLIO_DATABASE_URL=postgres://… folio db migrate
  $ folio db status --json       {"current": true, "applied": […], "pending": […], …}
migrate applies what is pending, one step at a time, under a lock: running it from several
machines at once is safe. status changes nothing. Serving from PostgreSQL is not available yet:
folio serve keeps its data in a data dir.`,
    )
    .action(lazyAction(() => import('../actions/db.js')))
}
