/*
 * One thread in the comments panel: the comment (a button that shows its pin, when it has one),
 * its replies under it, and what this viewer may do: reply, resolve or reopen, delete (the owner
 * and the comment's author, share-moderation.js). One reply box serves the whole panel; it
 * survives the list being drawn again while someone types in it.
 */

import { postComment, rememberAuthor, storedAuthor } from './share-composer.js'
import { ago, h } from '../common/ui.js'

const CONFIRM_MS = 4000

export function createThreads(view) {
  const { state } = view
  const reply = buildReplyForm()
  let replyingTo = null // the thread's top-level comment

  function buildReplyForm() {
    const author = h('input', {
      class: 'reply-author',
      name: 'author',
      maxlength: '80',
      autocomplete: 'name',
      placeholder: 'Your name (optional)',
      'aria-label': 'Your name (optional)',
    })
    const text = h('textarea', {
      class: 'reply-text',
      name: 'text',
      rows: '2',
      required: true,
      maxlength: '5000',
      placeholder: 'Reply…',
      'aria-label': 'Reply',
    })
    const error = h('p', { class: 'form-error', role: 'alert' })
    const submit = h('button', { class: 'btn primary small', type: 'submit' }, 'Reply')
    const form = h(
      'form',
      {
        class: 'reply-form',
        'aria-label': 'Reply',
        onsubmit: (e) => {
          e.preventDefault()
          send()
        },
        onkeydown: (e) => {
          if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
            e.preventDefault()
            send()
          }
          if (e.key === 'Escape') {
            e.stopPropagation()
            closeReply()
          }
        },
      },
      author,
      text,
      error,
      h('div', { class: 'popover-actions' }, h('button', { class: 'btn small', type: 'button', onclick: () => closeReply() }, 'Cancel'), submit),
    )
    return { form, author, text, error, submit }
  }

  function openReply(comment) {
    replyingTo = comment
    reply.error.textContent = ''
    reply.author.value = reply.author.value || storedAuthor()
    view.comments.render()
    reply.text.focus()
  }

  function closeReply() {
    const wasOpen = replyingTo !== null
    replyingTo = null
    reply.text.value = ''
    reply.form.remove()
    if (wasOpen) view.comments.render()
  }

  async function send() {
    const parent = replyingTo
    const text = reply.text.value.trim()
    if (!parent) return
    if (!text) {
      reply.error.textContent = 'Write something first.'
      return
    }
    const author = reply.author.value.trim()
    rememberAuthor(author)
    const body = { text, versionId: state.latestVersionId, filename: parent.filename, parentId: parent.id }
    if (author) body.author = author
    reply.submit.disabled = true
    const { comment, error } = await postComment(view, body)
    reply.submit.disabled = false
    if (comment) {
      closeReply()
      view.toast('Reply posted')
    } else {
      reply.error.textContent = error
    }
  }

  /* ---------- drawing a thread ---------- */

  function head(comment, num, badges) {
    return h(
      'span',
      { class: 'comment-head', 'aria-hidden': 'true' },
      num ? h('span', { class: 'num' }, String(num)) : null,
      ...badges,
      h('span', { class: 'author' }, comment.author || 'Guest'),
      h('time', { datetime: comment.createdAt, 'data-ago': comment.createdAt }, ago(comment.createdAt)),
    )
  }

  /** A button that asks to be pressed twice: deleting cannot be taken back by a viewer. */
  function deleteButton(comment) {
    let armed = null
    const button = h(
      'button',
      {
        class: 'link-button danger',
        type: 'button',
        onclick: () => {
          if (armed) {
            clearTimeout(armed)
            view.moderation.remove(comment)
            return
          }
          button.textContent = 'Really delete?'
          armed = setTimeout(() => {
            armed = null
            button.textContent = 'Delete'
          }, CONFIRM_MS)
        },
      },
      'Delete',
    )
    return button
  }

  function actions(comment, { canReply }) {
    const list = []
    if (canReply) list.push(h('button', { class: 'link-button', type: 'button', onclick: () => openReply(comment) }, 'Reply'))
    if (view.moderation.mayModerate(comment)) {
      list.push(
        h(
          'button',
          {
            class: 'link-button',
            type: 'button',
            onclick: () => view.moderation.setResolved(comment, !comment.resolved),
          },
          comment.resolved ? 'Reopen' : 'Resolve',
        ),
      )
      list.push(deleteButton(comment))
    }
    return list.length ? h('div', { class: 'thread-actions' }, ...list) : null
  }

  function badgesOf(comment, kind) {
    const badges = []
    if (kind === 'other-file') badges.push(h('span', { class: 'file' }, comment.filename))
    if (kind === 'outdated') badges.push(h('span', { class: 'tag warn' }, 'Outdated'))
    if (kind === 'history') badges.push(h('span', { class: 'tag' }, comment.anchoredVersionId || comment.versionId))
    if (comment.resolved) badges.push(h('span', { class: 'tag done' }, 'Resolved'))
    return badges
  }

  /**
   * A thread as a list item. kind: 'pin' (on the page, with pin number `num`), 'other-file',
   * 'outdated' or 'history'. Only a thread on the page can be clicked to show its pin.
   */
  function render({ comment, replies }, { num, kind }) {
    const where = num ? `Comment ${num}` : kind === 'outdated' ? 'Outdated comment' : `Comment on ${comment.filename}`
    const label = `${where} by ${comment.author || 'Guest'}, ${ago(comment.createdAt)}: ${comment.text}`
    const body = [head(comment, num, badgesOf(comment, kind)), h('span', { class: 'text', 'aria-hidden': 'true' }, comment.text)]
    const shown =
      kind === 'pin' || kind === 'other-file'
        ? h(
            'button',
            { class: 'comment', type: 'button', 'data-id': comment.id, 'aria-label': label, onclick: () => view.comments.focusComment(comment) },
            ...body,
          )
        : h('div', { class: 'comment static', 'data-id': comment.id, role: 'group', 'aria-label': label }, ...body)
    const item = h('li', { class: `thread ${kind}${comment.resolved ? ' resolved' : ''}`, 'data-thread': comment.id }, shown)
    if (replies.length) {
      item.append(
        h(
          'ol',
          { class: 'replies', 'aria-label': `Replies to ${comment.author || 'Guest'}` },
          ...replies.map((r) =>
            h(
              'li',
              { class: 'reply', 'data-id': r.id },
              head(r, null, r.resolved && !comment.resolved ? [h('span', { class: 'tag done' }, 'Resolved')] : []),
              h('span', { class: 'text' }, r.text),
              view.moderation.mayModerate(r) ? h('div', { class: 'thread-actions' }, deleteButton(r)) : null,
            ),
          ),
        ),
      )
    }
    const canReply = state.allowComments && !comment.resolved && kind !== 'history'
    const acts = actions(comment, { canReply })
    if (acts) item.append(acts)
    if (replyingTo?.id === comment.id) item.append(reply.form)
    return item
  }

  /** Before the list is drawn again: whether the reply box had focus, to give it back after. */
  function keepFocus() {
    const focused = reply.form.contains(document.activeElement) ? document.activeElement : null
    const range = focused && 'selectionStart' in focused ? [focused.selectionStart, focused.selectionEnd] : null
    return () => {
      if (!focused?.isConnected) return
      focused.focus()
      if (range) focused.setSelectionRange(range[0], range[1])
    }
  }

  return { render, keepFocus, closeReply }
}
