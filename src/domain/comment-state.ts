import type { Comment } from './model.js'

/**
 * What a comment is, by its fields alone: pure, so the share page and the dashboard (src/web)
 * import the very same rules the server uses, and the two can never drift apart.
 */

/** `c_<n>` → n; anything else (a foreign id, leading zeros, a huge number) → undefined. */
export function commentNumber(id: string): number | undefined {
  const m = /^c_([1-9][0-9]{0,15})$/.exec(id)
  const n = m ? Number(m[1]) : undefined
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined
}

export const isDeleted = (c: Pick<Comment, 'deletedAt'>) => c.deletedAt !== undefined && c.deletedAt !== null

export const isReply = (c: Pick<Comment, 'parentId'>) => c.parentId !== undefined && c.parentId !== null

/** The version a pin stands on: where re-anchoring last found its element, else where it was made. */
export const pinnedVersion = (c: Pick<Comment, 'versionId' | 'anchoredVersionId'>) => c.anchoredVersionId || c.versionId

export const isOpen = (c: Pick<Comment, 'resolved' | 'deletedAt'>) => !c.resolved && !isDeleted(c)

/** An open thread whose element is gone from the newest version: listed, not pinned. */
export const isOutdated = (c: Pick<Comment, 'resolved' | 'deletedAt' | 'outdated' | 'parentId'>) => isOpen(c) && c.outdated === true && !isReply(c)
