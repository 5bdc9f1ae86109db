import { type Command, Option } from 'commander'
import { COMMENT_MODERATIONS, PROJECT_MODES } from '../../domain/model.js'
import { lazyAction } from '../lazy.js'
import { FOLIO_ID_HELP } from './folio-id.js'

/** folio publish, unpublish, set, rm: what a folio's owner changes without curl. */
export function registerManage(program: Command): void {
  program
    .command('publish')
    .description('publish a folio: viewers of its share page see it (private ones after their access key)')
    .argument('[id]', FOLIO_ID_HELP)
    .addHelpText(
      'after',
      "\nExamples:\n  $ folio publish kL9VtGLOsbNK\n  $ folio publish                     in a linked folder\n  $ folio publish kL9VtGLOsbNK --json  the server's answer: {success, project}",
    )
    .action(lazyAction(async () => ({ default: (await import('../actions/publish.js')).publish })))

  program
    .command('unpublish')
    .description('make a folio a draft again: only you see it (folio open previews it)')
    .argument('[id]', FOLIO_ID_HELP)
    .addHelpText('after', '\nExamples:\n  $ folio unpublish kL9VtGLOsbNK')
    .action(lazyAction(async () => ({ default: (await import('../actions/publish.js')).unpublish })))

  program
    .command('set')
    .description("change a folio's title, privacy, comments or mode: only the options given change")
    .argument('[id]', FOLIO_ID_HELP)
    .option('--title <title>', 'a new title')
    .option('--description <text>', 'a new line about it')
    .addOption(new Option('--private', 'viewers need an access key (a new random one unless --access-key; printed)').conflicts('public'))
    .addOption(new Option('--public', 'no access key needed any more').conflicts(['private', 'accessKey']))
    .option('--access-key <key>', 'the access key viewers type (makes the folio private; changes the key of a private one)')
    .addOption(new Option('--comments <state>', 'whether viewers may comment').choices(['on', 'off']))
    .addOption(new Option('--mode <mode>', 'what kind of folio').choices([...PROJECT_MODES]))
    .addOption(
      new Option('--moderation <who>', 'who may resolve and delete a comment besides you: anyone, or its author only').choices([...COMMENT_MODERATIONS]),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ folio set kL9VtGLOsbNK --title "Q3 review (final)"
  $ folio set kL9VtGLOsbNK --private                     prints the new access key
  $ folio set kL9VtGLOsbNK --access-key "blue whale"     private, with this key
  $ folio set kL9VtGLOsbNK --public --comments off
  $ folio set --mode document --moderation owner-and-author   in a linked folder
The folio's access key is --access-key (--key is the API key of every command).
--json prints the server's answer: {success, project}.`,
    )
    .action(lazyAction(() => import('../actions/set.js')))

  program
    .command('rm')
    .description('delete a folio with its versions, comments, reactions and analytics, for good')
    .argument('[id]', FOLIO_ID_HELP)
    .option('-y, --yes', 'do not ask first (needed when no terminal is there to ask in)')
    .addHelpText(
      'after',
      `
Examples:
  $ folio rm kL9VtGLOsbNK              asks first, naming what goes
  $ folio rm kL9VtGLOsbNK --yes --json  for scripts: {"success": true, "id": …, "deleted": true}
Without a terminal (a script, CI) it deletes nothing unless given --yes.`,
    )
    .action(lazyAction(() => import('../actions/rm.js')))
}
