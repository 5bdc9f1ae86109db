/* The share page when there is no folio to show: missing, not published yet, or behind a key. */

import { svg } from '../common/icons.js'
import { postJson } from '../common/post-json.js'
import { h } from '../common/ui.js'

function renderNotice(app, iconName, heading, text) {
  document.body.className = 'notice-page'
  app.replaceChildren(
    h('main', { class: 'notice-card' }, svg(iconName), h('h1', {}, heading), h('p', {}, text), h('p', { class: 'brand' }, 'Shared with folio')),
  )
}

export const renderMissing = (app) =>
  renderNotice(app, 'ghost', 'This folio does not exist (any more)', 'The link may be mistyped, or its owner has deleted the folio.')

/** A recipient link that was revoked, ran out of time or reached its views: the folio's main link is another matter. */
export const renderLinkEnded = (app, status) =>
  renderNotice(
    app,
    'clock',
    status === 'revoked' ? 'This link was turned off' : 'This link has expired',
    'It was made for one person and no longer opens the folio. Ask whoever sent it for a new link.',
  )

export const renderDraft = (app) =>
  renderNotice(
    app,
    'clock',
    'This folio is not published yet',
    'Its owner is still working on it. Keep this page open: it shows the folio once it is published.',
  )

/**
 * The access-key form. A key sent while another is being checked replaces it (the older answer
 * is dropped); an answer only ever judges the key it was for, and never touches what the viewer
 * typed since; a refusal for too many tries counts down the wait the server gave.
 */
export function renderGate(app, boot) {
  document.body.className = 'notice-page'
  const input = h('input', {
    id: 'access-key',
    name: 'accessKey',
    type: 'password',
    required: true,
    autocomplete: 'current-password',
    spellcheck: 'false',
    oninput: () => input.removeAttribute('aria-invalid'),
  })
  const error = h('p', { class: 'form-error', role: 'alert', id: 'access-error' })
  const button = h('button', { class: 'btn primary', type: 'submit' }, 'Unlock')
  const form = h(
    'form',
    { class: 'gate-form', onsubmit: submit },
    h('label', { for: 'access-key' }, 'Access key'),
    h('div', { class: 'gate-row' }, input, button),
    error,
  )

  let pending = null // { controller }: the key being checked now
  let waitUntil = 0 // ms: the server asked for no tries before then
  let countdown = null

  function showWait() {
    const left = Math.ceil((waitUntil - Date.now()) / 1000)
    if (left <= 0) {
      clearInterval(countdown)
      countdown = null
      error.textContent = 'You can try again now.'
      return
    }
    error.textContent = `Too many tries: you can try again in ${left} ${left === 1 ? 'second' : 'seconds'}.`
  }

  function judged(key, message) {
    // Only the key that was checked is judged: the viewer may have typed another meanwhile.
    if (input.value !== key) return
    error.textContent = message
    input.setAttribute('aria-invalid', 'true')
    input.setAttribute('aria-describedby', 'access-error')
    input.select()
  }

  async function submit(event) {
    event.preventDefault()
    if (Date.now() < waitUntil) return showWait()
    pending?.controller.abort() // the newer key replaces the one still being checked
    const mine = { controller: new AbortController() }
    pending = mine
    const key = input.value
    error.textContent = ''
    button.textContent = 'Checking…'
    try {
      // The key travels in the body only: never the URL (history, logs), never storage.
      const { res, data } = await postJson(`${boot.api}/public`, { accessKey: key }, { signal: mine.controller.signal })
      if (pending !== mine) return
      if (res.ok && data?.success) {
        location.reload() // the server has set the access cookie
        return
      }
      if (res.status === 429) {
        waitUntil = Date.now() + Math.max(1, Number(res.headers.get('retry-after')) || 1) * 1000
        showWait()
        countdown ??= setInterval(showWait, 1000)
        return
      }
      judged(key, 'That key is not right.')
    } catch (e) {
      if (pending !== mine || e?.name === 'AbortError') return
      error.textContent = 'Could not reach the server. Try again.'
    } finally {
      if (pending === mine) {
        pending = null
        button.textContent = 'Unlock'
      }
    }
  }

  app.replaceChildren(
    h(
      'main',
      { class: 'notice-card' },
      svg('lock'),
      h('h1', {}, boot.title || 'Private folio'),
      h('p', {}, 'This folio is private. Enter the access key you were given.'),
      form,
      h('p', { class: 'brand' }, 'Shared with folio'),
    ),
  )
  input.focus()
}
