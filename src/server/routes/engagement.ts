import type { H3 } from 'h3'
import {
  createComment,
  deleteComment,
  getReactions,
  listComments,
  react,
  recordAnalytics,
  resolveComment,
  setReactions,
} from '../../api/engagement.js'
import { ERRORS } from '../../api/errors.js'
import { parseBeacon } from '../../domain/analytics.js'
import { versionNumber } from '../../domain/ids.js'
import { CommentNotFoundError } from '../../store/index.js'
import { readBodyBytes } from '../body.js'
import type { ServerContext } from '../context.js'
import { fail } from '../errors.js'
import { requireViewable } from '../folio-access.js'
import { mountRoute } from '../route.js'

const commentNotFound = (error: unknown): never => {
  if (error instanceof CommentNotFoundError) throw fail(ERRORS.commentNotFound, error.message)
  throw error
}

/** Comments, reactions and analytics: the viewer-facing engagement endpoints. */
export function registerEngagementRoutes(app: H3, ctx: ServerContext): void {
  const { engagement, folios } = ctx.store

  mountRoute(app, ctx, listComments, async ({ event, params }) => {
    await requireViewable(ctx, event, params.id)
    return engagement.comments(params.id)
  })

  mountRoute(app, ctx, createComment, async ({ event, params, body, principal }) => {
    const { meta } = await requireViewable(ctx, event, params.id)
    if (!meta.allowComments) throw fail(ERRORS.commentsDisabled)
    const n = versionNumber(body.versionId)
    const version = n !== undefined && n <= meta.head ? await folios.manifest(meta.id, n) : undefined
    if (!version) throw fail(ERRORS.invalidBody, `versionId: ${body.versionId} is not a version of this folio (latest is v${meta.head}).`)
    if (!Object.hasOwn(version.files, body.filename)) throw fail(ERRORS.invalidBody, `filename: ${body.filename} is not a file of ${body.versionId}.`)
    const comment = await engagement.addComment(meta.id, {
      ...body,
      author: body.author || principal?.email || 'Guest',
    })
    if (!comment) throw fail(ERRORS.projectNotFound)
    return { success: true, comment }
  })

  mountRoute(app, ctx, resolveComment, async ({ event, params, body }) => {
    await requireViewable(ctx, event, params.id)
    const comment = await engagement.setCommentResolved(params.id, body.commentId, body.resolved).catch(commentNotFound)
    if (!comment) throw fail(ERRORS.projectNotFound)
    return { success: true, comment }
  })

  mountRoute(app, ctx, deleteComment, async ({ event, params, query }) => {
    if (!query.commentId) throw fail(ERRORS.missingCommentId, 'Pass the comment to remove as ?commentId=c_…')
    await requireViewable(ctx, event, params.id)
    const done = await engagement.deleteComment(params.id, query.commentId).catch(commentNotFound)
    if (!done) throw fail(ERRORS.projectNotFound)
    return { success: true }
  })

  mountRoute(app, ctx, getReactions, async ({ event, params }) => {
    await requireViewable(ctx, event, params.id)
    return { success: true, reactions: await engagement.reactions(params.id) }
  })

  for (const contract of [react, setReactions]) {
    mountRoute(app, ctx, contract, async ({ event, params, body }) => {
      if (!body.reactions && !body.increments) throw fail(ERRORS.invalidReactions, 'Send {"reactions": {"👍": 3}} to set counts or {"increments": {"👍": 1}} to add.')
      await requireViewable(ctx, event, params.id)
      let reactions = body.reactions ? await engagement.mergeReactions(params.id, body.reactions) : undefined
      if (body.increments) reactions = await engagement.incrementReactions(params.id, body.increments)
      if (!reactions) throw fail(ERRORS.projectNotFound)
      return { success: true, reactions }
    })
  }

  mountRoute(app, ctx, recordAnalytics, async ({ event, params }) => {
    await requireViewable(ctx, event, params.id)
    // Spec: an empty or malformed body still answers success (as an empty beacon).
    let body: unknown
    try {
      body = JSON.parse((await readBodyBytes(event, 64 * 1024, () => fail(ERRORS.invalidBody))).toString('utf8'))
    } catch {
      body = undefined
    }
    if (!(await engagement.recordBeacon(params.id, parseBeacon(body)))) throw fail(ERRORS.projectNotFound)
    return { success: true }
  })
}
