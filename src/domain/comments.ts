import type { Comment } from './model.js'

/**
 * Next comment id, `c_<timestamp>` (spec). Ids only grow: two comments in the same millisecond
 * (or after the clock stepped back) get consecutive numbers, so ids stay unique in a folio.
 */
export function nextCommentId(existing: readonly Comment[], now = Date.now()): string {
  let latest = 0
  for (const c of existing) {
    const n = Number(c.id.slice(2))
    if (c.id.startsWith('c_') && Number.isFinite(n) && n > latest) latest = n
  }
  return `c_${Math.max(now, latest + 1)}`
}

/** What the share page shows: the unresolved comments of the latest version. */
export function openCommentsOf(comments: readonly Comment[], latestVersionId: string): Comment[] {
  return comments.filter((c) => !c.resolved && c.versionId === latestVersionId)
}
