/*
 * Who may resolve or delete a comment from the share page: the owner (their session, or their
 * preview) and the comment's author. An author is remembered in this browser only: the answer
 * that created the comment carries its author token once; it is kept in localStorage under the
 * folio and the comment, and sent back as X-Comment-Token. The server decides in the end (a
 * folio's commentModeration); the page only offers what it expects to be allowed.
 */

import { requestJson } from '../common/post-json.js'
import { anchoredOn } from './share-comment-sets.js'

const TOKEN_HEADER = 'X-Comment-Token'

export function createModeration(view) {
  const { boot, state } = view
  const owner = boot.owner === true || boot.preview === true
  const keyOf = (commentId) => `folio.comment-token:${boot.id}:${commentId}`

  function tokenOf(commentId) {
    try {
      return localStorage.getItem(keyOf(commentId))
    } catch {
      return null // storage disabled (privacy mode): this browser cannot prove authorship
    }
  }

  function remember(commentId, token) {
    if (typeof commentId !== 'string' || typeof token !== 'string') return
    try {
      localStorage.setItem(keyOf(commentId), token)
    } catch {
      /* see tokenOf */
    }
  }

  function forget(commentId) {
    try {
      localStorage.removeItem(keyOf(commentId))
    } catch {
      /* see tokenOf */
    }
  }

  const isAuthor = (comment) => Boolean(tokenOf(comment.id))
  const mayModerate = (comment) => owner || isAuthor(comment)

  async function send(comment, method, url, body) {
    const token = tokenOf(comment.id)
    try {
      const { res, data } = await requestJson(url, { method, body, headers: token ? { [TOKEN_HEADER]: token } : {} })
      if (res.ok) return data || {}
      if (res.status === 429) view.toast('Slow down a little')
      else if (res.status === 403) view.toast('Only the owner and the author of a comment can do that')
      else if (res.status === 404) view.toast('That comment is gone')
      else view.toast(data?.message || `That did not work (HTTP ${res.status})`)
    } catch {
      view.toast('Could not reach the server. Try again.')
    }
    view.history.refresh()
    return null
  }

  /** The thread's comments (a top-level one and its replies): resolving or deleting takes them all. */
  const threadOf = (id) => (c) => c.id === id || c.parentId === id

  async function setResolved(comment, resolved) {
    const data = await send(comment, 'PUT', `${boot.api}/comments`, { commentId: comment.id, resolved })
    if (!data) return
    const inThread = threadOf(comment.id)
    // The server did the same to its replies. Known at once, not at the next fetch: "All
    // comments resolved" and the resolved thread behind the toggle show now.
    const known = new Map([comment, ...(state.allComments || []), ...state.comments].map((c) => [c.id, c]))
    const thread = [...known.values()].filter(inThread).map((c) => ({ ...c, ...(c.id === comment.id ? data.comment : {}), resolved }))
    // The page's list holds the open comments on the page: a resolved thread leaves it at once,
    // a reopened one on the latest version comes back (its pin too) without waiting for the event.
    const top = thread.find((c) => c.id === comment.id)
    if (resolved) state.comments = state.comments.filter((c) => !inThread(c))
    else if (!top.parentId && !top.outdated && anchoredOn(top) === state.latestVersionId) {
      state.comments = [...state.comments.filter((c) => !inThread(c)), ...thread]
    }
    view.history.learn(thread)
    view.comments.render()
    view.history.refresh()
    view.toast(resolved ? 'Resolved' : 'Reopened')
  }

  async function remove(comment) {
    const data = await send(comment, 'DELETE', `${boot.api}/comments?commentId=${encodeURIComponent(comment.id)}`)
    if (!data) return
    forget(comment.id)
    // A thread's replies go with it.
    const gone = comment.parentId ? (c) => c.id === comment.id : threadOf(comment.id)
    state.comments = state.comments.filter((c) => !gone(c))
    view.history.forget([comment.id])
    view.comments.render()
    view.history.refresh()
    view.toast('Comment deleted')
  }

  return { owner, remember, isAuthor, mayModerate, setResolved, remove }
}
