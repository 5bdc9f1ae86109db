import { createHash, randomBytes } from 'node:crypto'
import { commentNumber, isDeleted } from './comment-state.js'
import type { Comment, CommentModeration } from './model.js'

export { commentNumber, isDeleted }

/**
 * A comment as the store keeps it: the API's Comment plus what only the server reads (the hash
 * of its author's token). The store treats the rest as opaque, so new optional fields (anchors,
 * threads) need no change there.
 */
export type StoredComment = Comment & { authorTokenHash?: string }

/**
 * The next comment id, `c_<timestamp>` (spec), from the folio's high-water mark: the highest
 * number it ever gave, kept even when that comment is deleted. Ids only grow, so a retried
 * DELETE or resolve can never reach a newer comment that took a deleted one's id.
 */
export function nextCommentNumber(highWater: number, now = Date.now()): number {
  return Math.max(now, highWater + 1)
}

/** What the owner sees: everything but the token hash (soft-deleted comments carry deletedAt). */
export function ownerComment(stored: StoredComment): Comment {
  const { authorTokenHash: _hash, ...comment } = stored
  return comment
}

/** What a viewer sees of a comment that is not deleted. */
export function publicComment(stored: StoredComment): Comment {
  const { authorTokenHash: _hash, deletedAt: _at, deletedBy: _by, ...comment } = stored
  return comment
}

/**
 * What the share page shows of a comment (GET /public, the boot data, live events): no
 * elementHtml, which the page never displays and which is the largest field.
 */
export function pageComment(stored: StoredComment): Comment {
  const { elementHtml: _html, ...comment } = publicComment(stored)
  return comment
}

/** Who asks to resolve, delete or restore a comment. */
export interface CommentActor {
  /** The folio's owner: the workspace credential, or the open local API. */
  owner: boolean
  /** sha256 of the author token the request carried, if any. */
  tokenHash?: string
}

export function isAuthor(comment: StoredComment, actor: CommentActor): boolean {
  return actor.tokenHash !== undefined && comment.authorTokenHash !== undefined && equalHashes(comment.authorTokenHash, actor.tokenHash)
}

/** Whether the folio's moderation setting lets this actor resolve or delete this comment. */
export function mayModerate(comment: StoredComment, actor: CommentActor, moderation: CommentModeration): boolean {
  return moderation === 'anyone' || actor.owner || isAuthor(comment, actor)
}

/** What a request asks of a comment: PUT's resolve and owner-only delete/restore, or DELETE. */
export type CommentRequest = { kind: 'change'; resolved?: boolean; deleted?: boolean } | { kind: 'delete' }

/** A comment after a request (undefined: removed for good), or why it was refused. */
export type Moderated = { comment: StoredComment | undefined } | { refused: 'hidden' | 'forbidden'; reason: string }

/**
 * The rules of resolving, deleting and restoring. Viewers see no soft-deleted comment, so for
 * them it does not exist. Only the owner deletes for good or restores; anyone else's delete
 * hides the comment (the owner sees it and can undo that). With 'owner-and-author', only the
 * owner and the comment's author may resolve or delete it.
 */
export function moderate(comment: StoredComment, request: CommentRequest, actor: CommentActor, moderation: CommentModeration, now = new Date()): Moderated {
  if (isDeleted(comment) && !actor.owner) return { refused: 'hidden', reason: 'deleted' }
  if (request.kind === 'change' && request.deleted !== undefined && !actor.owner) {
    return { refused: 'forbidden', reason: "Only the folio's owner can delete or restore a comment with PUT (viewers use DELETE)." }
  }
  if (!mayModerate(comment, actor, moderation)) {
    return {
      refused: 'forbidden',
      reason: "On this folio only its owner and each comment's author may resolve or delete comments: send the comment's author token in X-Comment-Token.",
    }
  }
  if (request.kind === 'delete') {
    if (actor.owner) return { comment: undefined }
    return { comment: { ...comment, deletedAt: now.toISOString(), deletedBy: isAuthor(comment, actor) ? 'author' : 'viewer' } }
  }
  let next: StoredComment = request.resolved === undefined ? comment : { ...comment, resolved: request.resolved }
  if (request.deleted === true) next = { ...next, deletedAt: now.toISOString(), deletedBy: 'owner' }
  if (request.deleted === false) {
    const { deletedAt: _at, deletedBy: _by, ...restored } = next
    next = restored
  }
  return { comment: next }
}

/** Both are hex digests of one length: compare every character, so timing tells nothing. */
function equalHashes(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

/**
 * The secret that makes a viewer the author of a comment: answered once when the comment is
 * made, kept only as its hash. 192 random bits: guessing one is hopeless.
 */
export function newAuthorToken(): { token: string; hash: string } {
  const token = `ct_${randomBytes(24).toString('base64url')}`
  return { token, hash: hashAuthorToken(token) }
}

export function hashAuthorToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
