/*
 * What the dashboard counts and how it groups comments: the rules of src/domain/comment-threads.ts
 * (issue 9), which the share page, the brief and folio comments use too. "open" = not resolved
 * and not deleted (a reply also needs its thread open); "outdated" = open and its element was
 * not found in the newest version; "earlier" = open and pinned on an older version. Replies
 * have no place of their own: they follow their thread's first comment.
 */

import { isDeleted, isOpen, isOutdated, pinnedVersion } from '../../domain/comment-state.ts'

export { isDeleted, isOpen, isOutdated }

/** open | outdated | earlier (open, pinned on an older version) | resolved | deleted */
export function stateOf(c, latestVersionId) {
  if (isDeleted(c)) return 'deleted'
  if (c.resolved) return 'resolved'
  if (c.parentId) return 'open'
  if (c.outdated) return 'outdated'
  if (pinnedVersion(c) !== latestVersionId) return 'earlier'
  return 'open'
}

/** The card's numbers; "open" is the number the brief gives (replies in resolved threads are not waiting). */
export function counts(folio) {
  const comments = folio.comments || []
  const byId = new Map(comments.map((c) => [c.id, c]))
  const n = { open: 0, outdated: 0, resolved: 0, deleted: 0, all: 0 }
  for (const c of comments) {
    n.all++
    if (isDeleted(c)) n.deleted++
    else if (c.resolved) n.resolved++
    else {
      const parent = c.parentId ? byId.get(c.parentId) : undefined
      if (parent && !isOpen(parent)) continue
      n.open++
      if (isOutdated(c)) n.outdated++
    }
  }
  return n
}

/** The filters of the inbox, each with the comments it keeps. */
export const FILTERS = [
  ['open', 'Open', isOpen],
  ['outdated', 'Outdated', isOutdated],
  ['resolved', 'Resolved', (c) => c.resolved && !isDeleted(c)],
  ['deleted', 'Deleted', isDeleted],
  ['all', 'All', () => true],
]
export const filterTest = (name) => (FILTERS.find(([id]) => id === name) ?? FILTERS[0])[2]

/** The first comment of c's thread (a reply may answer a reply); a loop or a missing parent stops the walk. */
function rootOf(c, byId) {
  const seen = new Set([c.id])
  let root = c
  while (root.parentId && byId.has(root.parentId) && !seen.has(root.parentId)) {
    root = byId.get(root.parentId)
    seen.add(root.id)
  }
  return root
}

const newest = (a, b) => (Date.parse(b.activeAt) || 0) - (Date.parse(a.activeAt) || 0)

/**
 * Threads whose comments pass `keep`, with their replies oldest first, newest activity first
 * (a new reply brings its thread up). A thread is kept whole when any of its comments passes.
 */
export function threads(comments, keep = () => true) {
  const byId = new Map(comments.map((c) => [c.id, c]))
  const found = new Map()
  for (const c of comments) {
    const root = rootOf(c, byId)
    let thread = found.get(root.id)
    if (!thread) found.set(root.id, (thread = { root, replies: [], activeAt: root.createdAt, kept: false }))
    if (c !== root) {
      thread.replies.push(c)
      if (c.createdAt > thread.activeAt) thread.activeAt = c.createdAt
    }
    if (keep(c)) thread.kept = true
  }
  const list = [...found.values()].filter((t) => t.kept)
  for (const t of list) t.replies.sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1))
  return list.sort(newest)
}

/** Where a comment was made: its file and, for decks, its slide (or the hash the page had). */
export function placeOf(c) {
  const a = c.anchor || {}
  const slide = Number.isInteger(a.slide) ? a.slide : undefined
  const where = slide !== undefined ? `Slide ${slide + 1}` : typeof a.hash === 'string' && a.hash.length > 1 ? a.hash : ''
  return { key: `${c.filename}\n${where}`, file: c.filename, where, slide: slide ?? Infinity }
}

const fileOrder = (a, b) => (a === b ? 0 : a === 'index.html' ? -1 : b === 'index.html' ? 1 : a.localeCompare(b))

/** Threads grouped by page, then slide (a page's pins without a slide after its slides), threads newest first inside each. */
export function byPlace(threadList) {
  const pages = new Map()
  for (const t of threadList) {
    const place = placeOf(t.root)
    let page = pages.get(place.key)
    if (!page) pages.set(place.key, (page = { ...place, threads: [] }))
    page.threads.push(t)
  }
  return [...pages.values()].sort(
    (a, b) => fileOrder(a.file, b.file) || (a.slide === b.slide ? 0 : a.slide < b.slide ? -1 : 1) || a.where.localeCompare(b.where),
  )
}

/** The owner's view of the share page, opened at this comment (the share page looks for #comment=). */
export const commentLink = (folioId, commentId) => `/share/${encodeURIComponent(folioId)}?preview=1#comment=${encodeURIComponent(commentId)}`

export const DELETED_BY = { viewer: 'Deleted by a viewer', author: 'Deleted by its author', owner: 'Deleted by you' }
