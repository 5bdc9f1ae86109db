import { z } from 'zod'
import { REACTION_EMOJI } from '../domain/reactions.js'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { Comment, FolioIdParams, named, Reactions } from './schemas.js'

const { accessKeyRequired: gated, projectNotFound: notFound, tooManyRequests: limited } = ERRORS
const percent = (axis: string) =>
  z
    .number({ error: `${axis} must be a number` })
    .min(0, { error: `${axis} must be between 0 and 100 (percent of the page)` })
    .max(100, { error: `${axis} must be between 0 and 100 (percent of the page)` })

export const listComments = defineContract({
  operationId: 'listComments',
  method: 'GET',
  path: '/api/files/{id}/comments',
  tag: 'Comments',
  summary: 'All comments of a folio',
  access: 'public',
  rateLimit: 'comments',
  params: FolioIdParams,
  response: { status: 200, description: 'Comments, oldest first', schema: z.array(Comment) },
  errors: [gated, notFound, limited],
})

const required = (field: string) => z.string({ error: ERRORS.missingCommentParameters.error }).trim().min(1, { error: ERRORS.missingCommentParameters.error }).describe(field)

export const CreateCommentBody = named(
  'CreateCommentRequest',
  z.object({
    text: required('The comment').max(5000, { error: 'text must be at most 5,000 characters' }),
    versionId: required('Version the comment applies to (v1, v2, …)'),
    filename: required('File the comment targets'),
    author: z.string().trim().max(120).optional().describe('Defaults to the authenticated e-mail, else Guest'),
    x: percent('x').optional().describe('Horizontal position, percent 0–100 of the page; outside that range is refused'),
    y: percent('y').optional().describe('Vertical position, percent 0–100 of the page; outside that range is refused'),
    selector: z.string().max(2000).optional(),
    elementHtml: z.string().max(20_000).optional(),
  }),
)

const CommentResult = named('CommentResult', z.object({ success: z.literal(true), comment: Comment }))

export const createComment = defineContract({
  operationId: 'createComment',
  method: 'POST',
  path: '/api/files/{id}/comments',
  tag: 'Comments',
  summary: 'Pin a comment on the page',
  access: 'public',
  rateLimit: 'comments',
  params: FolioIdParams,
  body: CreateCommentBody,
  bodyShapeError: ERRORS.missingCommentParameters,
  response: { status: 200, description: 'The new comment (unresolved)', schema: CommentResult },
  errors: [
    ERRORS.missingCommentParameters,
    when(ERRORS.invalidBody, 'A field has the wrong type, x/y is outside 0–100, or versionId/filename names nothing in this folio'),
    ERRORS.commentsDisabled,
    gated,
    notFound,
    limited,
  ],
})

export const ResolveCommentBody = named(
  'ResolveCommentRequest',
  z.object({
    commentId: z.string({ error: ERRORS.missingCommentParameters.error }).min(1, { error: ERRORS.missingCommentParameters.error }),
    resolved: z.boolean({ error: 'resolved must be true or false' }),
  }),
)

export const resolveComment = defineContract({
  operationId: 'resolveComment',
  method: 'PUT',
  path: '/api/files/{id}/comments',
  tag: 'Comments',
  summary: 'Resolve or reopen a comment',
  access: 'public',
  rateLimit: 'comments',
  params: FolioIdParams,
  body: ResolveCommentBody,
  bodyShapeError: ERRORS.missingCommentParameters,
  response: { status: 200, description: 'The comment after the change', schema: CommentResult },
  errors: [
    when(ERRORS.missingCommentParameters, 'commentId is missing'),
    when(ERRORS.invalidBody, 'resolved is not a boolean'),
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
  access: 'public',
  rateLimit: 'comments',
  params: FolioIdParams,
  query: z.object({ commentId: z.string().optional().describe('The comment to remove') }),
  response: { status: 200, description: 'Removed', schema: z.object({ success: z.literal(true) }) },
  errors: [
    ERRORS.missingCommentId,
    gated,
    notFound,
    ERRORS.commentNotFound,
    limited,
  ],
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
      .describe(`Counts to set (spec rules: only ${REACTION_EMOJI.join(' ')}, negatives ignored, fractions floored, other emoji kept)`),
    increments: z
      .record(z.string(), z.unknown(), { error: ERRORS.invalidReactions.error })
      .optional()
      .describe('Amounts to add atomically, e.g. {"👍": 1}: what a viewer clicking a reaction sends'),
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
  description: 'An empty or malformed body still answers success. Answered once the update is on disk.',
  access: 'public',
  rateLimit: 'analytics',
  params: FolioIdParams,
  rawBody: { contentType: 'application/json', description: 'A beacon (text/plain from navigator.sendBeacon works too)', schema: BeaconBody },
  response: { status: 200, description: 'Recorded', schema: z.object({ success: z.literal(true) }) },
  errors: [gated, notFound, limited],
})
