import { z } from 'zod'
import { defineContract } from './contract.js'
import { ERRORS, when } from './errors.js'
import { Comment, CommentModeration, FolioIdParams, FolioStatus, named, Reactions } from './schemas.js'

export const PublicFolio = named(
  'PublicFolio',
  z
    .object({
      id: z.string(),
      title: z.string(),
      description: z.string(),
      isPrivate: z.boolean(),
      allowComments: z.boolean(),
      commentModeration: CommentModeration.optional(),
      presentationModeOnly: z.boolean(),
      hasAccessKey: z.boolean().describe('The key itself is never exposed'),
      status: FolioStatus,
      draft: z.boolean(),
      latestVersionId: z.string(),
      activeFileList: z.array(z.string()).describe('Files of the latest version; empty until the viewer may see the folio'),
      comments: z
        .array(Comment)
        .describe('The newest 200 unresolved comments of the latest version, without elementHtml; empty until the viewer may see the folio'),
      reactions: Reactions,
    })
    .describe(
      'What a viewer may know about a folio. A private folio shows its files and comments only after the access key was proved (POST). A draft is its owner’s: to anyone else it is not found.',
    ),
)

/** Spec: a draft is visible only to its owner. To anyone else it is an unknown folio. */
const draftOrUnknown = when(ERRORS.projectNotFound, 'No folio has this id, or it is a draft and the caller is not its owner')

export const getPublicFolio = defineContract({
  operationId: 'getPublicFolio',
  method: 'GET',
  path: '/api/files/{id}/public',
  tag: 'Sharing',
  summary: 'Public metadata for the share page',
  access: 'public',
  rateLimit: 'public',
  params: FolioIdParams,
  response: { status: 200, description: 'The public view of the folio', schema: PublicFolio },
  errors: [draftOrUnknown, ERRORS.tooManyRequests],
})

export const VerifyAccessKeyBody = named('VerifyAccessKeyRequest', z.object({ accessKey: z.string() }))

export const verifyAccessKey = defineContract({
  operationId: 'verifyAccessKey',
  method: 'POST',
  path: '/api/files/{id}/public',
  tag: 'Sharing',
  summary: 'Prove the access key of a private folio',
  description:
    'Always 200 {success}; a wrong key (or any other failure: an unknown folio, or a draft to anyone but its owner) is success false. The comparison is exact and case-sensitive after trimming, in constant time. On success a short-lived, signed, HttpOnly cookie scoped to this folio lets the browser view it.',
  access: 'public',
  rateLimit: 'public',
  params: FolioIdParams,
  rawBody: { contentType: 'application/json', description: '{"accessKey": "…"}', schema: VerifyAccessKeyBody },
  response: { status: 200, description: 'Whether the key is right', schema: z.object({ success: z.boolean() }) },
  errors: [ERRORS.tooManyRequests],
})

/** Why the server closes a share page's live stream: sent as the `revoked` event just before. */
export const REVOKED_REASONS = ['draft', 'private', 'key-changed', 'deleted'] as const
export type RevokedReason = (typeof REVOKED_REASONS)[number]

export const folioEvents = defineContract({
  operationId: 'folioEvents',
  method: 'GET',
  path: '/api/files/{id}/events',
  tag: 'Sharing',
  summary: 'Live updates for an open share page (Server-Sent Events)',
  description:
    "Events: version {latestVersionId, activeFileList}; comments {comments} (the comments on the page: unresolved, on the latest version — anchored ones once re-anchored to it — with their replies; sent after a new version once its pins are re-anchored); reactions {reactions}; meta {status, title, allowComments, commentModeration, presentationModeOnly, isPrivate}; deleted {}; revoked {reason: 'draft' | 'private' | 'key-changed' | 'deleted'}, sent just before the server closes the stream because this viewer may no longer see the folio (a deletion sends deleted too; so does a folio made a draft, to anyone but its owner, for whom a draft is not there); to the owner only (the workspace credential or the owner's preview): view {at, type: 'started' | 'ended', text, linkName?, device, summary?} as a view starts and ends. A comment line every 25 s keeps proxies from closing the stream.",
  access: 'public',
  rateLimit: 'events',
  params: FolioIdParams,
  response: { status: 200, description: 'An event stream', contentType: 'text/event-stream' },
  errors: [ERRORS.accessKeyRequired, draftOrUnknown, ERRORS.tooManyRequests],
})
