import { getFolio } from '../api/files.js'
import type { FolioClient } from '../client/index.js'
import { isOpen, isReply } from '../domain/comment-threads.js'
import type { Comment } from '../domain/model.js'
import { table } from '../terminal/format.js'
import { clockTime, oneLine } from '../tui/format.js'

/** open, outdated, resolved, or who deleted it: the STATE column. A reply has no place of its own, so it is never outdated. */
export function stateOf(c: Comment): string {
  if (c.deletedAt !== undefined) return c.deletedBy === 'owner' ? 'deleted (you)' : `deleted (${c.deletedBy ?? 'viewer'})`
  if (c.resolved) return 'resolved'
  return c.outdated && !isReply(c) ? 'outdated' : 'open'
}

/** "v2 slide 3", "v1 pages/two.html #intro": the version, the file unless it is index.html, the slide or hash. */
export function placeOf(c: Comment): string {
  const slide = Number.isInteger(c.anchor?.slide) ? `slide ${c.anchor!.slide! + 1}` : c.anchor?.hash && c.anchor.hash.length > 1 ? c.anchor.hash : ''
  return [c.versionId, c.filename === 'index.html' ? '' : c.filename, slide].filter(Boolean).join(' ')
}

export interface Thread {
  root: Comment
  replies: Comment[]
}

/**
 * Comments as threads, the newest activity first (a new reply brings its thread up), replies
 * oldest first under their first comment. `open`: only open threads with their open replies, as
 * the brief counts them (domain/comment-threads.ts); else every comment.
 */
export function threads(comments: Comment[], only: 'open' | 'all'): Thread[] {
  const byId = new Map(comments.map((c) => [c.id, c]))
  const keep = (c: Comment) => only === 'all' || isOpen(c)
  const found = new Map<string, Thread & { activeAt: string }>()
  // A reply whose parent is gone (removed for good) stands on its own.
  const rootOf = (c: Comment) => (c.parentId && byId.has(c.parentId) ? byId.get(c.parentId)! : c)
  for (const c of comments) {
    const root = rootOf(c)
    if (!keep(root) || !keep(c)) continue
    let thread = found.get(root.id)
    if (!thread) found.set(root.id, (thread = { root, replies: [], activeAt: root.createdAt }))
    if (c === root) continue
    thread.replies.push(c)
    if (c.createdAt > thread.activeAt) thread.activeAt = c.createdAt
  }
  return [...found.values()]
    .sort((a, b) => (a.activeAt < b.activeAt ? 1 : a.activeAt > b.activeAt ? -1 : 0))
    .map(({ root, replies }) => ({ root, replies: replies.sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1)) }))
}

/** The table's rows: a thread's first comment, then its replies marked ↳. */
export function commentRows(list: Thread[]): string[][] {
  return list.flatMap(({ root, replies }) =>
    [root, ...replies].map((c) => [`${c === root ? '' : '↳ '}${c.id}`, oneLine(c.author || 'Guest', 20), placeOf(c), stateOf(c), oneLine(c.text, 60)]),
  )
}

/** One line for a comment that just arrived (folio comments --watch). */
export function arrivalLine(c: Comment, byId: Map<string, Comment>, at = new Date()): string {
  const parent = c.parentId ? byId.get(c.parentId) : undefined
  const who = parent
    ? `${oneLine(c.author || 'Guest', 20)} replied to ${oneLine(parent.author || 'Guest', 20)}`
    : `${oneLine(c.author || 'Guest', 20)} on ${placeOf(c)}`
  return `${clockTime(at.toISOString())}  ${who}: ${oneLine(c.text, 100)}  (${c.id})`
}

/** The owner's view of every comment (GET /api/files/{id}: soft-deleted ones too). */
export const readComments = (client: FolioClient, id: string) => client.call(getFolio, { params: { id }, query: { files: 'none' } })

/** The list as text: the table, or a sentence when there is nothing to show, and what --all would add. */
export function listText(folio: { title: string; comments: Comment[] }, list: Thread[], all: boolean): string {
  const resolved = folio.comments.filter((c) => c.resolved && c.deletedAt === undefined).length
  const deleted = folio.comments.filter((c) => c.deletedAt !== undefined).length
  const hidden = all ? '' : [resolved && `${resolved} resolved`, deleted && `${deleted} deleted`].filter(Boolean).join(', ')
  const more = hidden ? `${hidden}: --all shows them` : ''
  if (list.length === 0) {
    if (folio.comments.length === 0) return `No comments on “${folio.title}” yet.`
    const start = deleted === 0 ? `All comments on “${folio.title}” are resolved` : `No open comments on “${folio.title}”`
    return `${start}${more ? ` (${more})` : ''}.`
  }
  return [table(['ID', 'AUTHOR', 'WHERE', 'STATE', 'COMMENT'], commentRows(list)), more && `(${more})`].filter(Boolean).join('\n')
}
