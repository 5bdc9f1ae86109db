/*
 * Which comment shows where (the rules of "What counts where", shared with the brief and the
 * dashboard):
 *   on the page  open, and anchored on the latest version: a pin, and listed under its file/slide
 *   outdated     open, but its element is gone from the latest version: listed, never a pin
 *   history      (behind a toggle) open comments of earlier versions, and resolved ones
 * Replies follow their thread. The page's own list (boot data, `comments` events) is what is on
 * the page; the rest comes from GET /comments (every comment a viewer may see), fetched again
 * shortly after each change, so the counts agree with the brief and the dashboard.
 */

import { isOpen, pinnedVersion } from '../../domain/comment-state.ts'

const REFRESH_AFTER_MS = 400
// GET /comments shares the viewer's rate limit with posting comments: a busy folio must not use
// it up, so at most one fetch every few seconds.
const REFRESH_EVERY_MS = 3000
const LIST_LIMIT = 500

export { isOpen }
/** The newest version the comment's element was found on. */
export const anchoredOn = pinnedVersion

/** Top-level comments with their replies, both oldest first. */
function threadsOf(comments, all) {
  return [...comments].sort(byTime).map((c) => ({
    comment: c,
    replies: all.filter((r) => r.parentId === c.id).sort(byTime),
  }))
}

const byTime = (a, b) => String(a.createdAt).localeCompare(String(b.createdAt)) || String(a.id).localeCompare(String(b.id))

/**
 * Everything the panel and the pins need, from the page's list (`state.comments`) and, once
 * fetched, every visible comment (`state.allComments`).
 */
export function commentSets(state) {
  const listed = state.comments.filter((c) => isOpen(c) && !c.outdated)
  const listedIds = new Set(listed.map((c) => c.id))
  const rest = (state.allComments || []).filter((c) => !listedIds.has(c.id))
  const known = [...listed, ...rest]
  const byId = new Map(known.map((c) => [c.id, c]))
  const knownIds = new Set(byId.keys())
  // What is on the page is the page's list, fresher than the full one after a change (a
  // comment of the latest version missing from it was resolved or deleted a moment ago).
  const onLatest = (c) => isOpen(c) && !c.outdated && anchoredOn(c) === state.latestVersionId
  const page = listed
  const stale = new Set(rest.filter((c) => !c.parentId && onLatest(c)).map((c) => c.id))
  const outdated = rest.filter((c) => isOpen(c) && c.outdated)
  const history = rest.filter((c) => !onLatest(c) && !(isOpen(c) && c.outdated))
  // A reply goes where its thread goes: the sets below hold top-level comments only.
  const topOf = (list) => list.filter((c) => !c.parentId || !knownIds.has(c.parentId))
  return {
    page: threadsOf(topOf(page), known),
    outdated: threadsOf(topOf(outdated), known),
    history: threadsOf(topOf(history), known),
    // Replies count while their thread is open (as the brief and the dashboard count them).
    openCount: known.filter(
      (c) => !stale.has(c.id) && !stale.has(c.parentId) && isOpen(c) && (!c.parentId || !knownIds.has(c.parentId) || isOpen(byId.get(c.parentId))),
    ).length,
    // "All comments resolved" rather than "No comments yet" once there have been some.
    everCommented: known.length > 0,
  }
}

/**
 * Keeps `state.allComments` true to what the page knows: the full list, fetched now and again a
 * moment after each change, with what the page learned since merged in at once (its own posts,
 * resolves and deletes, the live events). "All comments resolved" and the history must not wait
 * for the next fetch, and a fetch answered after a change may have been served before it: what
 * the page learned stays over any answer to a request sent before it was learned.
 */
export function createCommentHistory(view) {
  const { boot, state } = view
  let timer = null
  let running = null // the fetch under way
  let again = false
  let lastFetch = 0
  let told = 0 // counts what the page learned, to order it against the fetches sent
  const learned = new Map() // id → {comment (null: deleted), at}, until a fetch sent after it answers

  /** `list` with what the page learned over it; a deleted thread's replies go with it. */
  function withLearned(list) {
    const byId = new Map(list.map((c) => [c.id, c]))
    const gone = new Set()
    for (const [id, { comment }] of learned) {
      if (comment) byId.set(id, comment)
      else {
        byId.delete(id)
        gone.add(id)
      }
    }
    return [...byId.values()].filter((c) => !gone.has(c.parentId))
  }

  function note(entries) {
    for (const [id, comment] of entries) learned.set(id, { comment, at: ++told })
    state.allComments = withLearned(state.allComments || [])
  }

  /** Comments as the page was just told they are (a live event, a post, a resolve). */
  function learn(comments) {
    note(comments.filter((c) => typeof c?.id === 'string').map((c) => [c.id, c]))
  }

  /** Comments deleted from this page: gone, replies and all, whatever a late answer says. */
  function forget(ids) {
    note(ids.map((id) => [id, null]))
  }

  /** A change told while a fetch is under way asks again once it answered. */
  function fetchAll() {
    if (state.closed) return Promise.resolve()
    if (running) {
      again = true
      return running
    }
    clearTimeout(timer) // this fetch is the one a pending refresh would have made
    lastFetch = Date.now()
    const sent = told
    running = (async () => {
      try {
        const res = await fetch(`${boot.api}/comments?limit=${LIST_LIMIT}`, { credentials: 'same-origin', cache: 'no-store' })
        if (!res.ok) return
        const list = await res.json()
        if (!Array.isArray(list) || state.closed) return
        for (const [id, { at }] of learned) if (at <= sent) learned.delete(id) // the answer knows it
        state.allComments = withLearned(list)
        view.comments.render()
      } catch {
        // Offline for a moment: the next change asks again.
      } finally {
        running = null
        if (again) {
          again = false
          refresh()
        }
      }
    })()
    return running
  }

  /** Soon, once: several changes in a row cost one request. */
  function refresh() {
    clearTimeout(timer)
    timer = setTimeout(fetchAll, Math.max(REFRESH_AFTER_MS, lastFetch + REFRESH_EVERY_MS - Date.now()))
  }

  learn(state.comments) // the boot data: known before the first answer comes

  return {
    refresh,
    /** Fetches now, or waits for the fetch under way: resolves once it answered. */
    now: () => running || fetchAll(),
    learn,
    forget,
    stop: () => clearTimeout(timer),
  }
}
