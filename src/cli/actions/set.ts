import type { Command } from 'commander'
import { updateFolio } from '../../api/files.js'
import { newAccessKey, weakAccessKeyWarning } from '../../domain/access-keys.js'
import type { CommentModeration, ProjectMode } from '../../domain/model.js'
import { withContext } from '../context.js'
import { UsageError } from '../errors.js'

/** The options commands/manage.ts defines for folio set, as commander hands them over. */
export interface SetOptions {
  title?: string
  description?: string
  private?: boolean
  public?: boolean
  accessKey?: string
  comments?: 'on' | 'off'
  mode?: ProjectMode
  moderation?: CommentModeration
}

/** The update body: only what the options name, so nothing else of the folio changes. */
function changes(options: SetOptions) {
  const makePrivate = Boolean(options.private || options.accessKey !== undefined)
  return {
    ...(options.title !== undefined ? { title: options.title } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    // A folio made private without a key chosen gets a new random one, printed below.
    ...(makePrivate ? { isPrivate: true, accessKey: options.accessKey ?? newAccessKey() } : {}),
    ...(options.public ? { isPrivate: false } : {}),
    ...(options.comments ? { allowComments: options.comments === 'on' } : {}),
    ...(options.mode ? { projectMode: options.mode } : {}),
    ...(options.moderation ? { commentModeration: options.moderation } : {}),
  }
}

export default (given: string | undefined, options: SetOptions, command: Command) =>
  withContext(command, async (ctx) => {
    const body = changes(options)
    if (Object.keys(body).length === 0) {
      throw new UsageError(
        'Nothing to change: give --title, --description, --private, --public, --access-key, --comments, --mode or --moderation (folio set --help).',
      )
    }
    if (options.accessKey === '') throw new UsageError('--access-key cannot be empty; --public takes the key away.')
    const id = await ctx.folioId(given)
    const answer = await ctx.client.call(updateFolio, { params: { id }, body })
    const { project } = answer
    const said = [
      body.title !== undefined && `title “${project.title}”`,
      body.description !== undefined && 'description',
      body.isPrivate === true && 'private',
      body.isPrivate === false && 'public (no access key)',
      body.allowComments !== undefined && `comments ${project.allowComments ? 'on' : 'off'}`,
      body.projectMode && `mode ${project.projectMode}`,
      body.commentModeration && `moderation ${project.commentModeration}`,
    ].filter(Boolean)
    // A key chosen by hand works whatever it is; a weak one is said so (stderr, and in the JSON).
    const warning = options.accessKey !== undefined ? weakAccessKeyWarning(options.accessKey) : undefined
    ctx.print(warning ? { ...answer, warning } : answer, () =>
      [`Updated ${id}: ${said.join(', ')}`, body.accessKey ? `Access key: ${body.accessKey}` : ''].filter(Boolean).join('\n'),
    )
    if (warning) ctx.warn(warning)
  })
