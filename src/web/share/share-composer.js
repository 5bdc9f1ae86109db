/*
 * The new-comment form: it opens next to the spot clicked in the folio (marked on the stage),
 * remembers the viewer's name in this browser, and posts the comment with where it was made:
 * the page percentages x/y (the fallback the API defines) and the anchor the bridge made.
 */

import { postJson } from '../common/post-json.js'
import { h } from '../common/ui.js'

const AUTHOR_KEY = 'folio.author'

export function storedAuthor() {
  try {
    return localStorage.getItem(AUTHOR_KEY) || ''
  } catch {
    return '' // storage disabled (privacy mode): just don't remember
  }
}

export function rememberAuthor(name) {
  try {
    if (name) localStorage.setItem(AUTHOR_KEY, name)
    else localStorage.removeItem(AUTHOR_KEY)
  } catch {
    /* see storedAuthor */
  }
}

/**
 * Posts a new comment (or a reply: body.parentId) and keeps its author token in this browser;
 * resolves to {comment} or {error} (a sentence for the viewer).
 */
export async function postComment(view, body) {
  try {
    const { res, data } = await postJson(`${view.boot.api}/comments`, body)
    if (res.ok && data?.success) {
      view.moderation.remember(data.comment?.id, data.authorToken)
      view.comments.add(data.comment)
      return { comment: data.comment }
    }
    if (res.status === 429) return { error: 'Slow down a little' }
    return { error: data?.message || data?.error || `Could not post the comment (HTTP ${res.status}).` }
  } catch {
    return { error: 'Could not reach the server. Try again.' }
  }
}

export function createComposer(view) {
  const { state, ui } = view

  ui.marker = h('div', { class: 'click-marker', hidden: true, 'aria-hidden': 'true' })
  ui.popover = build()

  function build() {
    const author = h('input', {
      id: 'comment-author',
      name: 'author',
      maxlength: '80',
      autocomplete: 'name',
      placeholder: 'Guest',
    })
    const text = h('textarea', {
      id: 'comment-text',
      name: 'text',
      rows: '3',
      required: true,
      maxlength: '5000',
      placeholder: 'What do you think?',
    })
    const error = h('p', { class: 'form-error', role: 'alert' })
    const submit = h('button', { class: 'btn primary', type: 'submit' }, 'Post')
    const form = h(
      'form',
      {
        class: 'popover',
        hidden: true,
        'aria-label': 'New comment',
        onsubmit: (e) => {
          e.preventDefault()
          submitComment()
        },
        onkeydown: (e) => {
          // Ctrl/⌘+Enter posts from the textarea, like most comment boxes.
          if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
            e.preventDefault()
            submitComment()
          }
        },
      },
      h('label', { for: 'comment-author' }, 'Your name ', h('span', { class: 'hint' }, '(optional)')),
      author,
      h('label', { for: 'comment-text' }, 'Comment'),
      text,
      error,
      h('div', { class: 'popover-actions' }, h('button', { class: 'btn', type: 'button', onclick: () => close({ refocus: true }) }, 'Cancel'), submit),
    )
    return { form, author, text, error, submit }
  }

  function open(click) {
    const p = ui.popover
    state.draft = click
    p.error.textContent = ''
    ui.toasts.replaceChildren() // the "click anywhere" hint would sit on top of the form
    p.author.value = p.author.value || storedAuthor()
    p.form.hidden = false

    // Place the form next to the clicked spot, flipped/clamped so it stays inside the stage.
    const stage = ui.stage.getBoundingClientRect()
    const cx = Number.isFinite(click.clientX) ? click.clientX : stage.width / 2
    const cy = Number.isFinite(click.clientY) ? click.clientY : stage.height / 3
    ui.marker.hidden = false
    ui.marker.style.left = `${cx}px`
    ui.marker.style.top = `${cy}px`
    const w = p.form.offsetWidth
    const hgt = p.form.offsetHeight
    let left = cx + 16
    let top = cy + 12
    if (left + w > stage.width - 8) left = cx - w - 16
    if (top + hgt > stage.height - 8) top = stage.height - hgt - 8
    p.form.style.left = `${Math.max(8, left)}px`
    p.form.style.top = `${Math.max(8, top)}px`
    p.text.focus()
  }

  // refocus: after Cancel/Esc/Post the viewer goes back to the folio; when the popover closes as a
  // side effect (toggle button, new version) focus stays where the viewer put it.
  function close({ refocus = false } = {}) {
    const p = ui.popover
    if (p.form.hidden) return
    p.form.hidden = true
    ui.marker.hidden = true
    state.draft = null
    p.text.value = ''
    p.error.textContent = ''
    if (refocus) ui.frame.focus()
  }

  async function submitComment() {
    const p = ui.popover
    const click = state.draft
    const text = p.text.value.trim()
    if (!click) return
    if (!text) {
      p.error.textContent = 'Write something first.'
      p.text.focus()
      return
    }
    const author = p.author.value.trim()
    rememberAuthor(author)
    const body = {
      text,
      versionId: state.latestVersionId,
      filename: click.file || state.currentFile,
      x: click.x,
      y: click.y,
      selector: click.selector,
      elementHtml: click.elementHtml,
    }
    if (author) body.author = author // absent → the server names the viewer "Guest"
    if (view.boot.link) body.link = view.boot.link // counted on the recipient's link
    if (click.anchor && typeof click.anchor === 'object') body.anchor = click.anchor
    p.submit.disabled = true
    p.error.textContent = ''
    const { comment, error } = await postComment(view, body)
    p.submit.disabled = false
    if (comment) {
      close({ refocus: true })
      view.toast('Comment posted')
    } else {
      p.error.textContent = error
    }
  }

  return { open, close }
}
