import { getFolio } from '../api/files.js'
import type { FolioClient } from '../client/index.js'
import type { Comment } from '../domain/model.js'
import { table } from '../terminal/format.js'
import { clockTime, oneLine } from '../tui/format.js'

/**
 * A comment as folio comments reads it: issue 9's optional fields (threads, anchors, re-anchoring)
 * as the share page, the server and the dashboard agreed on them; absent on older comments.
 */
export type InboxComment = Comment & {
  parentId?: string
  anchoredVersionId?: string
  outdated?: boolean
  anchor?: { slide?: number; hash?: string; quote?: string }
}

export const isOpen = (c: InboxComment) => !c.resolved && c.deletedAt === undefined

/** open, outdated, resolved, or who deleted it: the STATE column. */
export function stateOf(c: InboxComment): string {
  if (c.deletedAt !== undefined) return c.deletedBy === 'owner' ? 'deleted (you)' : `deleted (${c.deletedBy ?? 'viewer'})`
  if (c.resolved) return 'resolved'
  return c.outdated ? 'outdated' : 'open'
}

/** "v2 slide 3", "v1 pages/two.html #intro": the version, the file unless it is index.html, the slide or hash. */
export function placeOf(c: InboxComment): string {
  const slide = Number.isInteger(c.anchor?.slide) ? `slide ${c.anchor!.slide! + 1}` : c.anchor?.hash && c.anchor.hash.length > 1 ? c.anchor.hash : ''
  return [c.versionId, c.filename === 'index.html' ? '' : c.filename, slide].filter(Boolean).join(' ')
}

export interface Thread {
  root: InboxComment
  replies: InboxComment[]
}

/**
 * Comments as threads, the newest activity first (a new reply brings its thread up), replies
 * oldest first under their first comment. A thread is kept when any of its comments passes
 * `keep`; its first comment is always shown, its replies only when they pass.
 */
export function threads(comments: InboxComment[], keep: (c: InboxComment) => boolean): Thread[] {
  const byId = new Map(comments.map((c) => [c.id, c]))
  const rootOf = (c: InboxComment) => {
    const seen = new Set([c.id])
    let root = c
    while (root.parentId && byId.has(root.parentId) && !seen.has(root.parentId)) {
      root = byId.get(root.parentId)!
      seen.add(root.id)
    }
    return root
  }
  const found = new Map<string, Thread & { activeAt: string; kept: boolean }>()
  for (const c of comments) {
    const root = rootOf(c)
    let thread = found.get(root.id)
    if (!thread) found.set(root.id, (thread = { root, replies: [], activeAt: root.createdAt, kept: false }))
    if (keep(c)) thread.kept = true
    if (c === root) continue
    if (keep(c)) thread.replies.push(c)
    if (c.createdAt > thread.activeAt) thread.activeAt = c.createdAt
  }
  return [...found.values()]
    .filter((t) => t.kept)
    .sort((a, b) => (a.activeAt < b.activeAt ? 1 : a.activeAt > b.activeAt ? -1 : 0))
    .map(({ root, replies }) => ({ root, replies: replies.sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1)) }))
}

/** The table's rows: a thread's first comment, then its replies marked ↳. */
export function commentRows(list: Thread[]): string[][] {
  return list.flatMap(({ root, replies }) => [root, ...replies].map((c) => [
    `${c === root ? '' : '↳ '}${c.id}`,
    oneLine(c.author || 'Guest', 20),
    placeOf(c),
    stateOf(c),
    oneLine(c.text, 60),
  ]))
}

/** One line for a comment that just arrived (folio comments --watch). */
export function arrivalLine(c: InboxComment, byId: Map<string, InboxComment>, at = new Date()): string {
  const parent = c.parentId ? byId.get(c.parentId) : undefined
  const who = parent ? `${oneLine(c.author || 'Guest', 20)} replied to ${oneLine(parent.author || 'Guest', 20)}` : `${oneLine(c.author || 'Guest', 20)} on ${placeOf(c)}`
  return `${clockTime(at.toISOString())}  ${who}: ${oneLine(c.text, 100)}  (${c.id})`
}

/** The owner's view of every comment (GET /api/files/{id}: soft-deleted ones too). */
export async function readComments(client: FolioClient, id: string) {
  const folio = await client.call(getFolio, { params: { id }, query: { files: 'none' } })
  return { ...folio, comments: folio.comments as InboxComment[] }
}

/** The list as text: the table, or a sentence when there is nothing to show, and what --all would add. */
export function listText(folio: { title: string; comments: InboxComment[] }, list: Thread[], all: boolean): string {
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
