import type { Command } from 'commander'
import { deleteComment, resolveComment } from '../../api/engagement.js'
import { ERRORS } from '../../api/errors.js'
import { ApiClientError } from '../../client/index.js'
import { openUrl } from '../../terminal/open-url.js'
import { oneLine } from '../../tui/format.js'
import type { Comment } from '../../domain/model.js'
import { listText, readComments, threads } from '../comment-lines.js'
import { type CliContext, shareUrl, withContext } from '../context.js'
import { confirm } from '../confirm.js'
import { CliError, EXIT, UsageError } from '../errors.js'

const ACTIONS = ['list', 'resolve', 'reopen', 'delete', 'restore'] as const
type Action = (typeof ACTIONS)[number]
const isAction = (word: string | undefined): word is Action => (ACTIONS as readonly string[]).includes(word ?? '')

export interface CommentsOptions {
  all?: boolean
  open?: boolean | string
  watch?: boolean
  hard?: boolean
  yes?: boolean
}

/**
 * folio comments [id] [action] [commentId]. In a linked folder the id may be left out, so a first
 * word that is an action is the action (a folio id is never one of those words).
 */
export default (first: string | undefined, second: string | undefined, third: string | undefined, options: CommentsOptions, command: Command) =>
  withContext(command, async (ctx) => {
    const [given, named, commentId] = isAction(first) && third === undefined ? [undefined, first, second] : [first, second, third]
    const action = named ?? 'list'
    if (!isAction(action)) throw new UsageError(`${action} is not something folio comments does: ${ACTIONS.join(', ')} (folio comments --help).`)
    const id = await ctx.folioId(given)
    checkOptions(id, action, commentId, options)
    if (action !== 'list') return moderate(ctx, id, action, commentId!, options)
    if (options.open !== undefined) await openSharePage(ctx, id, typeof options.open === 'string' ? options.open : undefined)
    if (options.watch) {
      const { watchComments } = await import('./comments-watch.js')
      return watchComments(ctx, id, { all: Boolean(options.all) })
    }
    if (options.open !== undefined) return
    const folio = await readComments(ctx.client, id)
    const list = threads(folio.comments, options.all ? 'all' : 'open')
    ctx.print(
      list.flatMap((t) => [t.root, ...t.replies]),
      () => listText(folio, list, Boolean(options.all)),
    )
  })

function checkOptions(id: string, action: Action, commentId: string | undefined, options: CommentsOptions): void {
  if (action === 'list' && commentId)
    throw new UsageError(
      `${commentId}: folio comments ${id} lists every comment; to act on one, name the action first (folio comments ${id} resolve ${commentId}).`,
    )
  if (action !== 'list' && !commentId)
    throw new UsageError(
      `folio comments ${id} ${action} needs the comment's id, e.g. folio comments ${id} ${action} c_1754550000000 (folio comments ${id} --all lists them).`,
    )
  if (action !== 'list' && (options.watch || options.all || options.open !== undefined))
    throw new UsageError(`--watch, --all and --open go with the list: folio comments ${id} --watch.`)
  if ((options.hard || options.yes) && action !== 'delete')
    throw new UsageError('--hard and --yes go with delete: folio comments <id> delete <commentId> --hard.')
}

async function openSharePage(ctx: CliContext, id: string, commentId: string | undefined): Promise<void> {
  // The owner's view (preview): opening it counts no view, and a draft or private folio shows too.
  const url = `${shareUrl(ctx, id)}?preview=1${commentId ? `#comment=${encodeURIComponent(commentId)}` : ''}`
  const opened = ctx.json ? false : await openUrl(url)
  // As folio open: exit 0 either way, the URL is the result and the browser a convenience.
  ctx.print({ url, opened }, () => (opened ? `Opened ${url}` : `No browser could be opened (set BROWSER to choose one). Open this URL yourself:\n${url}`))
}

/** What the owner is told after each step, with the way back where there is one. */
const DONE: Record<Exclude<Action, 'list'>, (what: string, id: string, commentId: string) => string> = {
  resolve: (what) => `Resolved ${what}.`,
  reopen: (what) => `Reopened ${what}.`,
  delete: (what, id, commentId) => `Deleted ${what}: viewers no longer see it. folio comments ${id} restore ${commentId} brings it back.`,
  restore: (what) => `Restored ${what}: viewers see it again.`,
}

async function moderate(ctx: CliContext, id: string, action: Exclude<Action, 'list'>, commentId: string, options: CommentsOptions): Promise<void> {
  try {
    if (action === 'delete' && options.hard) return await deleteForGood(ctx, id, commentId, Boolean(options.yes))
    const change = action === 'resolve' ? { resolved: true } : action === 'reopen' ? { resolved: false } : { deleted: action === 'delete' }
    const { comment } = await ctx.client.call(resolveComment, { params: { id }, body: { commentId, ...change } })
    ctx.print(comment, () => DONE[action](`${commentId} (${describe(comment)})`, id, commentId))
  } catch (error) {
    throw unknownComment(error, id, commentId)
  }
}

async function deleteForGood(ctx: CliContext, id: string, commentId: string, yes: boolean): Promise<void> {
  const { comments } = await readComments(ctx.client, id)
  const comment = comments.find((c) => c.id === commentId)
  if (!comment) throw noSuchComment(id, commentId)
  if (!yes) {
    const sure = await confirm(
      `Delete ${commentId} (${describe(comment)}) for good? This cannot be undone.`,
      `Nothing deleted: --hard removes ${commentId} for good, so confirm with --yes (or run it in a terminal to be asked).`,
    )
    if (!sure) {
      ctx.note(`Nothing deleted. folio comments ${id} delete ${commentId} (without --hard) hides it from viewers instead.`)
      return
    }
  }
  await ctx.client.call(deleteComment, { params: { id }, query: { commentId } })
  ctx.print({ success: true, commentId, removed: true }, () => `Deleted for good: ${commentId} (${describe(comment)})`)
}

const describe = (c: Comment) => `${oneLine(c.author || 'Guest', 20)}: “${oneLine(c.text, 50)}”`

const noSuchComment = (id: string, commentId: string) =>
  new CliError(
    `No comment ${commentId} on folio ${id} (deleted for good, or a typo?); folio comments ${id} --all lists them.`,
    EXIT.failed,
    ERRORS.commentNotFound.error,
  )

/** The server's "Comment not found" names no folio: say which comment, and where the ids are. */
function unknownComment(error: unknown, id: string, commentId: string): unknown {
  return error instanceof ApiClientError && error.status === 404 && error.error === ERRORS.commentNotFound.error ? noSuchComment(id, commentId) : error
}
