import type { H3, H3Event } from 'h3'
import {
  COMMENT_TOKEN_HEADER,
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
import { parseBeacon, viewOnly } from '../../domain/analytics.js'
import { asksNotToTrack, isCrawler } from '../../domain/bots.js'
import { analyticsSummary } from '../../domain/analytics-view.js'
import { nudgeViewEnded } from './view-nudges.js'
import { type CommentActor, type CommentRequest, hashAuthorToken, newAuthorToken } from '../../domain/comments.js'
import { versionNumber } from '../../domain/ids.js'
import { mimeForPath } from '../../domain/image-sniff.js'
import type { BlobRef, CommentAnchor, FolioMeta } from '../../domain/model.js'
import { CommentForbiddenError, CommentLimitError, CommentNotFoundError, InvalidReplyError } from '../../store/index.js'
import { REANCHOR_MAX_FILE_BYTES } from '../../store/repositories/comment-anchors.js'
import { isTooSlow, readBodyBytes } from '../http/body.js'
import { commentAuthor } from './comment-author.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { isOwner, isOwnersOwnView, requireViewable } from '../auth/folio-access.js'
import { mountRoute, type RouteDeps } from '../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type EngagementRoutesDeps = RouteDeps & Pick<ServerContext, 'cloud' | 'log' | 'mailer' | 'notifier' | 'store' | 'viewerAccess'>

const commentErrors = (error: unknown): never => {
  if (error instanceof CommentNotFoundError) throw fail(ERRORS.commentNotFound, error.message)
  if (error instanceof CommentForbiddenError) throw fail(ERRORS.forbidden, error.message)
  if (error instanceof InvalidReplyError) throw fail(ERRORS.invalidBody, error.message)
  if (error instanceof CommentLimitError) {
    throw fail(
      ERRORS.commentLimitReached,
      `${error.message}. Its owner can delete comments that are done with (a DELETE by the owner removes them for good) or raise ${error.limit === 'comments' ? 'FOLIO_MAX_COMMENTS' : 'FOLIO_MAX_COMMENT_BYTES'} on the server.`,
    )
  }
  throw error
}

/** Who asks: the owner, or a viewer who may hold a comment's author token. */
function actorOf(ctx: EngagementRoutesDeps, event: H3Event, meta: FolioMeta): CommentActor {
  const token = event.req.headers.get(COMMENT_TOKEN_HEADER)?.trim()
  // Tokens are ct_ + 32 characters: anything far longer is not one (and is not worth hashing).
  return { owner: isOwner(ctx, event, meta), tokenHash: token && token.length <= 256 ? hashAuthorToken(token) : undefined }
}

/**
 * A comment that names its element by the spec's `selector` alone (the API, MCP) gets the anchor
 * a click in the share page would have made (domain/anchor-from-selector.ts), read from the
 * version's page: pinned on its element at every width and followed across versions.
 */
async function anchorOfSelector(
  ctx: EngagementRoutesDeps,
  id: string,
  ref: BlobRef,
  body: { filename: string; selector?: string; elementHtml?: string; parentId?: string },
): Promise<CommentAnchor | undefined> {
  // Only pages have elements; a reply shows under its parent; a page past this size is not parsed
  // on a request (re-anchoring skips such pages too).
  if (!body.selector || body.parentId !== undefined || !mimeForPath(body.filename, ref.m).startsWith('text/html') || ref.s > REANCHOR_MAX_FILE_BYTES)
    return undefined
  const html = (await ctx.store.folios.content(id, ref.h)).toString('utf8')
  const { anchorFromSelector } = await import('../../domain/anchor-from-selector.js')
  return anchorFromSelector(html, body.selector, body.elementHtml)
}

/** Comments, reactions and analytics: the viewer-facing engagement endpoints. */
export function registerEngagementRoutes(app: H3, ctx: EngagementRoutesDeps): void {
  const { engagement, folios } = ctx.store
  // The share page as people reach the server, for what is sent elsewhere (mail, chat).
  const shareLink = (event: H3Event, id: string) => `${ctx.config.publicUrl ?? ctx.config.listenUrl ?? event.url.origin}/share/${id}`

  // The comment endpoints let the owner in on drafts and private folios (its agents list and answer there).
  const ownerToo = { owner: true }
  mountRoute(app, ctx, listComments, async ({ event, params, query }) => {
    await requireViewable(ctx, event, params.id, ERRORS.projectNotFound, ownerToo)
    return engagement.publicComments(params.id, { limit: query.limit, versionId: query.versionId })
  })

  mountRoute(app, ctx, createComment, async ({ event, params, body, principal }) => {
    const { meta } = await requireViewable(ctx, event, params.id, ERRORS.projectNotFound, ownerToo)
    if (!meta.allowComments) throw fail(ERRORS.commentsDisabled)
    const n = versionNumber(body.versionId)
    const version = n !== undefined && n <= meta.head ? await folios.manifest(meta.id, n) : undefined
    if (!version) throw fail(ERRORS.invalidBody, `versionId: ${body.versionId} is not a version of this folio (latest is v${meta.head}).`)
    if (!Object.hasOwn(version.files, body.filename)) throw fail(ERRORS.invalidBody, `filename: ${body.filename} is not a file of ${body.versionId}.`)
    const anchor = body.anchor ?? (await anchorOfSelector(ctx, meta.id, version.files[body.filename]!, body))
    const { token, hash } = newAuthorToken()
    const { commentsPerFolio, commentBytesPerFolio } = ctx.config.limits
    // The recipient link is counted on the link (below), not kept in the comment.
    const { link, ...fields } = body
    const comment = await engagement
      .addComment(
        meta.id,
        { ...fields, ...(anchor ? { anchor } : {}), author: commentAuthor(ctx, principal, body.author), authorTokenHash: hash },
        { maxComments: commentsPerFolio, maxBytes: commentBytesPerFolio },
      )
      .catch(commentErrors)
    if (!comment) throw fail(ERRORS.projectNotFound)
    // A pin made on a page open since before the latest version: bring it to that version.
    if (comment.anchor && n !== meta.head) engagement.reanchor(meta.id)
    // Cloud: collaborators hear of it by e-mail, after the answer (never failing it).
    void ctx.cloud?.notifyComment({ meta, comment, shareUrl: shareLink(event, meta.id) })
    // Cloud: the workspace's chat integrations hear of it in the background (never awaited).
    ctx.notifier?.commentAdded(meta, comment)
    if (link) await engagement.countLinkComment(meta.id, link)
    return { success: true, comment, authorToken: token }
  })

  const moderate = async (event: H3Event, id: string, commentId: string, request: CommentRequest) => {
    const { meta } = await requireViewable(ctx, event, id, ERRORS.projectNotFound, ownerToo)
    const outcome = await engagement
      .moderateComment(meta.id, commentId, request, actorOf(ctx, event, meta), meta.commentModeration ?? 'anyone')
      .catch(commentErrors)
    if (!outcome) throw fail(ERRORS.projectNotFound)
    return outcome
  }

  mountRoute(app, ctx, resolveComment, async ({ event, params, body }) => {
    const outcome = await moderate(event, params.id, body.commentId, { kind: 'change', resolved: body.resolved, deleted: body.deleted })
    if (!('comment' in outcome)) throw fail(ERRORS.commentNotFound)
    return { success: true, comment: outcome.comment }
  })

  mountRoute(app, ctx, deleteComment, async ({ event, params, query }) => {
    if (!query.commentId) throw fail(ERRORS.missingCommentId, 'Pass the comment to remove as ?commentId=c_…')
    await moderate(event, params.id, query.commentId, { kind: 'delete' })
    return { success: true }
  })

  mountRoute(app, ctx, getReactions, async ({ event, params }) => {
    await requireViewable(ctx, event, params.id)
    return { success: true, reactions: await engagement.reactions(params.id) }
  })

  for (const contract of [react, setReactions]) {
    mountRoute(app, ctx, contract, async ({ event, params, body }) => {
      if (!body.reactions && !body.increments)
        throw fail(ERRORS.invalidReactions, 'Send {"reactions": {"👍": 3}} to set counts or {"increments": {"👍": 1}} to add.')
      const { meta, grant } = await requireViewable(ctx, event, params.id)
      // The owner's own clicks (their preview, a request with the key) do not count; setting
      // counts is the owner's to do, so that still applies.
      const add = isOwnersOwnView(grant) ? undefined : body.increments
      const reactions =
        add || body.reactions
          ? await engagement.react(meta.id, { set: body.reactions, add, owner: isOwner(ctx, event, meta) })
          : await engagement.reactions(meta.id)
      if (!reactions) throw fail(ERRORS.projectNotFound)
      return { success: true, reactions }
    })
  }

  mountRoute(app, ctx, recordAnalytics, async ({ event, params }) => {
    const { grant, meta } = await requireViewable(ctx, event, params.id)
    // Spec: an empty or malformed body still answers success (as an empty beacon).
    let body: unknown
    try {
      body = JSON.parse((await readBodyBytes(event, 64 * 1024, () => fail(ERRORS.invalidBody))).toString('utf8'))
    } catch (error) {
      // A body that stalls is not a malformed beacon: it holds a socket, and gets its 408.
      if (isTooSlow(error)) throw error
      body = undefined
    }
    // The owner looking at their own folio is not a view, and a bot's page counted already as a
    // botView when it fetched the share page: answered alike, nothing recorded.
    if (isOwnersOwnView(grant) || isCrawler(event.req.headers.get('user-agent'))) return { success: true }
    const beacon = parseBeacon(body)
    // Global Privacy Control or Do Not Track: the view counts, nothing else about it is kept.
    const recorded = await engagement.recordBeacon(params.id, asksNotToTrack(event.req.headers) ? viewOnly(beacon) : beacon)
    if (!recorded.found) throw fail(ERRORS.projectNotFound)
    const ended = beacon.end && recorded.counted ? recorded.doc && analyticsSummary(recorded.doc).lastView : undefined
    if (ended?.type === 'ended') nudgeViewEnded(ctx, meta, ended.text, shareLink(event, meta.id))
    return { success: true }
  })
}
