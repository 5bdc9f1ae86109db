import { z } from 'zod'
import { REACTION_EMOJI } from '../domain/reactions.js'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { Comment, CommentAnchor, FolioIdParams, named, Reactions } from './schemas.js'

const { tooManyRequests: limited } = ERRORS
/** Spec: a draft is visible only to its owner. To anyone else it is an unknown folio. */
const notFound = when(ERRORS.projectNotFound, 'No folio has this id, or it is a draft and the caller is not its owner')
const gated = when(
  ERRORS.accessKeyRequired,
  'The folio is private and this viewer has not proved its access key (or, to its owner without the preview, it is a draft)',
)
const percent = (axis: string) =>
  z
    .number({ error: `${axis} must be a number` })
    .min(0, { error: `${axis} must be between 0 and 100 (percent of the page)` })
    .max(100, { error: `${axis} must be between 0 and 100 (percent of the page)` })

/** How many comments the share page gets (GET /public, its boot data, live events): the newest open ones. */
export const PAGE_COMMENTS = 200
/** GET /comments: how many it answers unless asked for fewer, and the most it answers. */
export const LIST_COMMENTS_DEFAULT = 200
export const LIST_COMMENTS_MAX = 500

/** The header a comment's author sends to resolve or delete it where only owner and author may. */
export const COMMENT_TOKEN_HEADER = 'X-Comment-Token'

export const ListCommentsQuery = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int({ error: 'limit must be a whole number' })
    .min(1, { error: `limit must be between 1 and ${LIST_COMMENTS_MAX}` })
    .max(LIST_COMMENTS_MAX, { error: `limit must be between 1 and ${LIST_COMMENTS_MAX}` })
    .default(LIST_COMMENTS_DEFAULT)
    .describe(`How many of the newest comments to answer (default ${LIST_COMMENTS_DEFAULT}, at most ${LIST_COMMENTS_MAX})`),
  versionId: z.string().max(20).optional().describe('Only the comments made on this version (v1, v2, …)'),
})

export const listComments = defineContract({
  operationId: 'listComments',
  method: 'GET',
  path: '/api/files/{id}/comments',
  tag: 'Comments',
  summary: 'The newest comments of a folio',
  description: `The newest comments (${LIST_COMMENTS_DEFAULT} unless \`limit\` says fewer, at most ${LIST_COMMENTS_MAX}), resolved ones too, never deleted ones. The owner sees every comment, deleted ones marked, with GET /api/files/{id}.`,
  access: 'public',
  rateLimit: 'comments',
  params: FolioIdParams,
  query: ListCommentsQuery,
  response: { status: 200, description: 'Comments, oldest first', schema: z.array(Comment) },
  errors: [when(ERRORS.invalidQuery, 'limit is not a whole number from 1 to 500'), gated, notFound, limited],
})

const required = (field: string) =>
  z.string({ error: ERRORS.missingCommentParameters.error }).trim().min(1, { error: ERRORS.missingCommentParameters.error }).describe(field)

export const CreateCommentBody = named(
  'CreateCommentRequest',
  z
    .object({
      text: required('The comment').max(5000, { error: 'text must be at most 5,000 characters' }),
      versionId: required('Version the comment applies to (v1, v2, …)'),
      filename: required('File the comment targets'),
      author: z.string().trim().max(120).optional().describe('Defaults to the authenticated e-mail, else Guest'),
      x: percent('x').optional().describe('Horizontal position, percent 0–100 of the page; outside that range is refused'),
      y: percent('y').optional().describe('Vertical position, percent 0–100 of the page; outside that range is refused'),
      selector: z.string().max(2000, { error: 'selector must be at most 2,000 characters' }).optional(),
      elementHtml: z
        .string()
        .max(4000, { error: 'elementHtml must be at most 4,000 characters' })
        .optional()
        .describe('HTML of the element at comment time; the share page sends at most 2,000 characters of it'),
      anchor: CommentAnchor.optional(),
      link: z
        .string()
        .max(40)
        .optional()
        .describe("Extension: the recipient link the viewer opened the folio with (the share page's ?link=): counted on that link"),
      parentId: z
        .string({ error: 'parentId must be a string' })
        .max(40, { error: 'parentId must be at most 40 characters' })
        .optional()
        .describe(
          'Extension: answers this comment (c_…): a comment of this folio, not deleted and not itself a reply. Answering a resolved thread reopens nothing. A reply takes no anchor',
        ),
    })
    .refine((body) => body.parentId === undefined || !body.anchor, {
      path: ['anchor'],
      error: 'a reply has no anchor of its own, it shows under its parent. Send parentId or anchor, not both.',
    }),
)

const CommentResult = named('CommentResult', z.object({ success: z.literal(true), comment: Comment }))
const CreatedComment = named(
  'CreatedCommentResult',
  z.object({
    success: z.literal(true),
    comment: Comment,
    authorToken: z
      .string()
      .describe(
        `Proves its author: send it as ${COMMENT_TOKEN_HEADER} to resolve or delete this comment where only the owner and authors may. Given once, kept only as a hash`,
      ),
  }),
)

const tokenHeader = { [COMMENT_TOKEN_HEADER]: "The comment's author token, from the answer that created it: proves its author" }
const tokenNote = `Send the comment's author token (from its creation) as ${COMMENT_TOKEN_HEADER}: on a folio whose commentModeration is owner-and-author only the owner and the author may do this.`

export const createComment = defineContract({
  operationId: 'createComment',
  method: 'POST',
  path: '/api/files/{id}/comments',
  tag: 'Comments',
  summary: 'Pin a comment on the page',
  description:
    'A folio holds at most FOLIO_MAX_COMMENTS comments (default 1,000) taking at most FOLIO_MAX_COMMENT_BYTES (default 4 MB); past that the owner must delete some.',
  access: 'public',
  rateLimit: 'comments',
  params: FolioIdParams,
  body: CreateCommentBody,
  bodyShapeError: ERRORS.missingCommentParameters,
  response: { status: 200, description: 'The new comment (unresolved) and its author token', schema: CreatedComment },
  errors: [
    ERRORS.missingCommentParameters,
    when(
      ERRORS.invalidBody,
      'A field has the wrong type or is too long, x/y or an anchor offset is outside 0–100, versionId/filename names nothing in this folio, parentId names no comment that can be answered, or a reply carries an anchor',
    ),
    ERRORS.commentsDisabled,
    ERRORS.commentLimitReached,
    gated,
    notFound,
    limited,
  ],
})

export const ResolveCommentBody = named(
  'ResolveCommentRequest',
  z
    .object({
      commentId: z.string({ error: ERRORS.missingCommentParameters.error }).min(1, { error: ERRORS.missingCommentParameters.error }),
      resolved: z.boolean({ error: 'resolved must be true or false' }).optional(),
      deleted: z
        .boolean({ error: 'deleted must be true or false' })
        .optional()
        .describe('Owner only: true hides the comment from viewers (undoable), false restores a deleted one'),
    })
    .refine((body) => body.resolved !== undefined || body.deleted !== undefined, { error: 'resolved must be true or false', path: ['resolved'] }),
)

const forbidden = when(ERRORS.forbidden, 'commentModeration is owner-and-author and the caller is neither the owner nor the author, or a viewer sent deleted')

export const resolveComment = defineContract({
  operationId: 'resolveComment',
  method: 'PUT',
  path: '/api/files/{id}/comments',
  tag: 'Comments',
  summary: 'Resolve or reopen a comment; the owner also deletes or restores one',
  headers: tokenHeader,
  description: `${tokenNote} A comment someone other than the owner deleted is gone for viewers (404) and only the owner can restore it.`,
  access: 'public',
  rateLimit: 'comments',
  params: FolioIdParams,
  body: ResolveCommentBody,
  bodyShapeError: ERRORS.missingCommentParameters,
  response: { status: 200, description: 'The comment after the change', schema: CommentResult },
  errors: [
    when(ERRORS.missingCommentParameters, 'commentId is missing'),
    when(ERRORS.invalidBody, 'resolved (or deleted) is not a boolean, or neither is given'),
    forbidden,
    gated,
    notFound,
    ERRORS.commentNotFound,
    limited,
  ],
})

export const deleteComment = defineContract({
  operationId: 'deleteComment',
  method: 'DELETE',
  path: '/api/files/{id}/comments',
  tag: 'Comments',
  summary: 'Remove a comment',
  headers: tokenHeader,
  description: `The owner removes it for good. Anyone else hides it: viewers no longer see it, the owner still does (deletedAt) and can restore it. ${tokenNote}`,
  access: 'public',
  rateLimit: 'comments',
  params: FolioIdParams,
  query: z.object({ commentId: z.string().optional().describe('The comment to remove') }),
  response: { status: 200, description: 'Removed', schema: z.object({ success: z.literal(true) }) },
  errors: [ERRORS.missingCommentId, forbidden, gated, notFound, ERRORS.commentNotFound, limited],
})

const ReactionsResult = named('ReactionsResult', z.object({ success: z.literal(true), reactions: Reactions }))

export const getReactions = defineContract({
  operationId: 'getReactions',
  method: 'GET',
  path: '/api/files/{id}/reactions',
  tag: 'Reactions',
  summary: 'Reaction counts',
  access: 'public',
  rateLimit: 'reactions',
  params: FolioIdParams,
  response: { status: 200, description: 'The counts', schema: ReactionsResult },
  errors: [gated, notFound, limited],
})

export const ReactBody = named(
  'ReactRequest',
  z.object({
    reactions: z
      .record(z.string(), z.unknown(), { error: ERRORS.invalidReactions.error })
      .optional()
      .describe(
        `Counts to set (spec rules: only ${REACTION_EMOJI.join(' ')}, negatives ignored, fractions floored, other emoji kept). From anyone but the owner, each count moves one step towards the number sent: a request is one click`,
      ),
    increments: z
      .record(z.string(), z.unknown(), { error: ERRORS.invalidReactions.error })
      .optional()
      .describe(
        'Amounts to add atomically, e.g. {"👍": 1}: what a viewer clicking a reaction sends; {"👍": -1} takes the click back (a count never goes below 0). From anyone but the owner, one step per emoji. Extension: clicks carrying the owner\'s credential (the workspace key, or the grant of the owner\'s preview) are answered with the counts and not counted',
      ),
  }),
)

const reactContract = (method: 'POST' | 'PUT') =>
  defineContract({
    operationId: method === 'POST' ? 'react' : 'setReactions',
    method,
    path: '/api/files/{id}/reactions',
    tag: 'Reactions',
    summary: method === 'POST' ? 'React (set or add counts)' : 'Same as POST',
    access: 'public',
    rateLimit: 'reactions',
    params: FolioIdParams,
    body: ReactBody,
    bodyShapeError: ERRORS.invalidReactions,
    response: { status: 200, description: 'The merged full map', schema: ReactionsResult },
    errors: [ERRORS.invalidReactions, gated, notFound, limited],
  })
export const react = reactContract('POST')
export const setReactions = reactContract('PUT')

export const BeaconBody = named(
  'AnalyticsBeacon',
  z.object({
    sessionSeconds: z.number().optional().describe('Seconds to add to the total time (default 0; one beacon counts at most 600)'),
    isInitial: z.boolean().optional().describe('True on page load: counts a view'),
    device: z.string().optional().describe('mobile counts as mobile; anything else as desktop'),
  }),
)

export const recordAnalytics = defineContract({
  operationId: 'recordAnalytics',
  method: 'POST',
  path: '/api/files/{id}/analytics',
  tag: 'Analytics',
  summary: 'A viewer beacon',
  description:
    "An empty or malformed body still answers success. Answered once the update is on disk. Extension: a beacon carrying the owner's credential (the workspace key, or the grant of the owner's preview) is the owner looking at their own folio: answered success, not recorded.",

  access: 'public',
  rateLimit: 'analytics',
  params: FolioIdParams,
  rawBody: { contentType: 'application/json', description: 'A beacon (text/plain from navigator.sendBeacon works too)', schema: BeaconBody },
  response: { status: 200, description: 'Recorded', schema: z.object({ success: z.literal(true) }) },
  errors: [gated, notFound, limited],
})
