import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'
import { FOLIO_ID_HELP } from './folio-id.js'

/** folio list, open, versions, restore: looking at folios and going back in their history. */
export function registerReadCommands(program: Command): void {
  program
    .command('list')
    .description('list the folios, most recently updated first')
    .addHelpText('after', '\nExamples:\n  $ folio list\n  $ folio list --json | jq -r ".[].id"')
    .action(lazyAction(() => import('../actions/list.js')))

  program
    .command('open')
    .description('open the share page of a folio in your browser')
    .argument('[id]', FOLIO_ID_HELP)
    .addHelpText(
      'after',
      '\nExamples:\n  $ folio open kL9VtGLOsbNK\n  $ folio open                         in a linked folder\n  $ BROWSER=firefox folio open kL9VtGLOsbNK\nWhen no browser can be started, it prints the URL to open yourself (exit code 0).',
    )
    .action(lazyAction(() => import('../actions/open.js')))

  program
    .command('versions')
    .description('list the versions of a folio, oldest first')
    .argument('[id]', FOLIO_ID_HELP)
    .addHelpText('after', '\nExamples:\n  $ folio versions kL9VtGLOsbNK\n  $ folio restore kL9VtGLOsbNK v2      bring v2 back as a new version')
    .action(lazyAction(() => import('../actions/versions.js')))

  program
    .command('restore')
    .description('restore an old version as a new version (history stays intact)')
    .usage('[options] [id] <versionId>')
    .argument('[id]', FOLIO_ID_HELP)
    .argument('[versionId]', 'the version to bring back, e.g. v2')
    .option('--pull', 'also write the restored files into the linked folder you run it in (folio pull)')
    .option('--no-pull', 'leave the linked folder as it is, without asking')
    .addHelpText(
      'after',
      "\nExamples:\n  $ folio restore kL9VtGLOsbNK v2\n  $ folio restore v2                   in a linked folder: asks whether to write v2's files into it\n  $ folio restore v2 --pull            the same, without asking (for scripts)\n\nIn a linked folder a terminal asks; without one, and without --pull or --no-pull, it says how\n(folio pull). A running folio sync --watch pulls the restored files on its own.",
    )
    .action(lazyAction(() => import('../actions/restore.js')))
}
