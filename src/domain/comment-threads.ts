import { commentNumber, isOpen, isReply, pinnedVersion } from './comment-state.js'
import type { Comment } from './model.js'

/**
 * What counts where (issue 9), the one definition every view uses: the share page, GET /public,
 * the brief, the owner's inbox and `folio comments`.
 *
 *   open       not resolved, not deleted; a reply also needs its thread (its parent) open
 *   on the page  open, top-level, not outdated, and pinned on the latest version
 *   outdated   open and marked outdated (its element is gone from the newest version)
 *   earlier    open, neither of the above: pinned on an older version (a spec-only x/y comment
 *              stays on the version it was made on)
 * Replies have no place of their own: they follow their parent.
 */

type Shape = Pick<Comment, 'id' | 'resolved' | 'versionId' | 'deletedAt' | 'parentId' | 'anchoredVersionId' | 'outdated'>

export { isOpen, isReply, pinnedVersion }

/** A thread that is shown on the page of the latest version (its open replies go with it). */
export function isOnPage(latestVersionId: string) {
  return (c: Shape) => !isReply(c) && isOpen(c) && c.outdated !== true && pinnedVersion(c) === latestVersionId
}

export interface Thread<C> {
  comment: C
  replies: C[]
}

export interface FeedbackGroups<C> {
  onPage: Array<Thread<C>>
  outdated: Array<Thread<C>>
  earlier: Array<Thread<C>>
}

/** Open threads by where they stand, each with its open replies (oldest first). */
export function groupFeedback<C extends Shape>(comments: C[], latestVersionId: string): FeedbackGroups<C> {
  const replies = new Map<string, C[]>()
  for (const c of comments) {
    if (c.parentId === undefined || !isOpen(c)) continue
    let list = replies.get(c.parentId)
    if (!list) replies.set(c.parentId, (list = []))
    list.push(c)
  }
  const groups: FeedbackGroups<C> = { onPage: [], outdated: [], earlier: [] }
  const onPage = isOnPage(latestVersionId)
  for (const c of comments) {
    if (isReply(c) || !isOpen(c)) continue
    const thread = { comment: c, replies: replies.get(c.id) ?? [] }
    if (onPage(c)) groups.onPage.push(thread)
    else if (c.outdated === true) groups.outdated.push(thread)
    else groups.earlier.push(thread)
  }
  return groups
}

/** Open comments, replies included: the number the brief, the dashboard and the inbox show. */
export function openCount<C>(groups: FeedbackGroups<C>): number {
  let n = 0
  for (const list of [groups.onPage, groups.outdated, groups.earlier]) for (const t of list) n += 1 + t.replies.length
  return n
}

/**
 * Picks threads reading newest first (segments are read only as far back as needed): the newest
 * `limit` comments in all, each thread's top-level comment accepted by `top`, its replies by
 * `reply`. A reply comes after its parent, so it waits until its parent is read; one whose parent
 * is refused (resolved, deleted, another version) or never read goes with it. Oldest first.
 */
export function newestThreads<C extends Shape>(options: { limit: number; top: (c: C) => boolean; reply: (c: C) => boolean }) {
  const waiting = new Map<string, C[]>()
  const picked: C[] = []
  return {
    /** false: enough picked, stop reading. */
    visit(c: C): boolean {
      if (picked.length >= options.limit) return false
      if (c.parentId !== undefined) {
        if (!options.reply(c)) return true
        let list = waiting.get(c.parentId)
        if (!list) waiting.set(c.parentId, (list = []))
        list.push(c)
        return true
      }
      const replies = waiting.get(c.id)
      waiting.delete(c.id)
      if (options.top(c)) {
        picked.push(c)
        // Replies were read newest first: keep the oldest ones when the limit cuts a thread.
        for (const r of (replies ?? []).reverse()) if (picked.length < options.limit) picked.push(r)
      }
      return picked.length < options.limit
    },
    result(): C[] {
      return picked.sort((a, b) => (commentNumber(a.id) ?? 0) - (commentNumber(b.id) ?? 0))
    },
  }
}
