import type { Comment } from './model.js'
import { isDeleted, isOpen, isReply } from './comment-state.js'

/**
 * What changed on a folio since a version or a time, for an agent's loop of "address the
 * feedback, publish, check again": the threads with activity since then (new ones, open ones,
 * resolved ones), each with where it is pinned (file, slide, element) and its replies; and the
 * totals of reactions and views as they are now (those are counters, not a history).
 */
export interface FeedbackComment extends Pick<Comment, 'id' | 'author' | 'text' | 'createdAt' | 'versionId' | 'filename' | 'resolved'> {
  /** The slide the pin is on (from 0), when the page is a deck. */
  slide?: number
  /** The element the pin is on: the pin's selector, else the comment's own. */
  selector?: string
  elementHtml?: string
  replies: Array<Pick<FeedbackComment, 'id' | 'author' | 'text' | 'createdAt'>>
}

export interface FeedbackSince {
  since: string
  /** Threads started since then. */
  new: FeedbackComment[]
  /** Open threads started before then that got replies since. */
  active: FeedbackComment[]
  /** Resolved threads with activity since then. */
  resolved: FeedbackComment[]
  /** Open threads in all (new or not): what is left to address. */
  openCount: number
}

type Shape = Pick<
  Comment,
  'id' | 'author' | 'text' | 'createdAt' | 'versionId' | 'filename' | 'resolved' | 'selector' | 'elementHtml' | 'anchor' | 'parentId' | 'deletedAt'
>

export function feedbackSince<C extends Shape>(comments: C[], sinceMs: number, since: string): FeedbackSince {
  const live = comments.filter((c) => !isDeleted(c))
  const replies = new Map<string, C[]>()
  for (const c of live) if (isReply(c)) replies.set(c.parentId!, [...(replies.get(c.parentId!) ?? []), c])
  const after = (c: C) => Date.parse(c.createdAt) > sinceMs
  const report: FeedbackSince = { since, new: [], active: [], resolved: [], openCount: 0 }
  for (const top of live.filter((c) => !isReply(c))) {
    const thread = replies.get(top.id) ?? []
    if (isOpen(top)) report.openCount++
    const touched = after(top) || thread.some(after)
    if (!touched) continue
    const shown = shape(top, thread)
    if (top.resolved) report.resolved.push(shown)
    else if (after(top)) report.new.push(shown)
    else report.active.push(shown)
  }
  return report
}

function shape<C extends Shape>(c: C, thread: C[]): FeedbackComment {
  const selector = c.anchor?.selector ?? c.selector
  return {
    id: c.id,
    author: c.author,
    text: c.text,
    createdAt: c.createdAt,
    versionId: c.versionId,
    filename: c.filename,
    resolved: c.resolved,
    ...(c.anchor?.slide !== undefined ? { slide: c.anchor.slide } : {}),
    ...(selector ? { selector } : {}),
    ...(c.elementHtml ? { elementHtml: c.elementHtml } : {}),
    replies: thread.map((r) => ({ id: r.id, author: r.author, text: r.text, createdAt: r.createdAt })),
  }
}

/** `since`: a version id (its creation time) or an ISO time; undefined when it names neither. */
export function sinceTime(since: string, versions: Array<{ versionId: string; createdAt: string }>): number | undefined {
  const version = versions.find((v) => v.versionId === since)
  if (version) return Date.parse(version.createdAt)
  const time = Date.parse(since)
  return Number.isNaN(time) ? undefined : time
}
