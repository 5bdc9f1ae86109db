import type { Command } from 'commander'
import { lazyAction } from '../lazy.js'
import { FOLIO_ID_HELP } from './folio-id.js'

export function registerComments(program: Command): void {
  program
    .command('comments')
    .description("a folio's comments: list them, resolve, reopen, delete or restore one, or follow new ones live")
    .argument('[id]', FOLIO_ID_HELP)
    .argument('[action]', 'what to do with a comment: list (default), resolve, reopen, delete or restore')
    .argument('[commentId]', 'the comment (c_…) to resolve, reopen, delete or restore')
    .option('--all', 'list resolved and deleted comments too (default: open ones)')
    .option('--open [commentId]', "open the share page in your browser (the owner's view), at a comment if given")
    .option('--watch', 'after the list, print each new comment as it arrives (Ctrl+C to stop)')
    .option('--hard', 'delete: remove the comment for good instead of hiding it from viewers')
    .option('-y, --yes', 'delete --hard: do not ask first')
    .addHelpText(
      'after',
      `
Examples:
  $ folio comments kL9VtGLOsbNK                        open comments, threads newest first
  $ folio comments kL9VtGLOsbNK --all --json           every comment, as JSON
  $ folio comments kL9VtGLOsbNK resolve c_1754550000000
  $ folio comments kL9VtGLOsbNK reopen c_1754550000000
  $ folio comments kL9VtGLOsbNK delete c_1754550000000    viewers no longer see it; restore undoes it
  $ folio comments kL9VtGLOsbNK restore c_1754550000000   also for what a viewer deleted
  $ folio comments kL9VtGLOsbNK delete c_1754550000000 --hard --yes   gone for good
  $ folio comments kL9VtGLOsbNK --watch                new comments as they arrive
  $ folio comments kL9VtGLOsbNK --open c_1754550000000 the share page at that comment
  $ folio comments resolve c_1754550000000             in a linked folder, the id left out

STATE is open, outdated (its element is gone from the latest version: listed, not pinned),
resolved, or deleted (by whom). Resolving a thread's first comment resolves its replies.
Replies are marked ↳ under the comment they answer. --json prints the comments as an array
(with --watch: one JSON line per new comment).`,
    )
    .action(lazyAction(() => import('../actions/comments.js')))
}
