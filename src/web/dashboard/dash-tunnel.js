/*
 * The tunnel panel (OSS, at /): a public address for this server, so the share links the owner
 * copies open for people on other networks too. It polls GET /api/tunnel every few seconds while
 * the tab is visible, so a reconnect or a new URL shows without a reload. Built once, then only
 * its parts change: a poll never steals focus or undoes a half-typed URL. A folio's page has no
 * panel but follows the status all the same, for shareLink. Cloud answers 403: no panel at all.
 */

import { CLOUDFLARED_MISSING, tunnelPasswordLine } from '../../domain/tunnel-providers.ts'
import { h } from '../common/ui.js'
import { controlTunnel, getTunnel } from './dash-api.js'
import { copyText, toast } from './dash-dom.js'

const POLL_MS = 5_000
const PROVIDERS = [
  ['localtunnel', 'localtunnel (no account)'],
  ['cloudflare', 'Cloudflare (cloudflared)'],
  ['custom', 'My own URL'],
]
const THROUGH = { localtunnel: 'localtunnel', cloudflare: 'Cloudflare', custom: 'your own URL' }
const STATES = { stopped: 'Stopped', starting: 'Starting…', connected: 'Connected', reconnecting: 'Reconnecting…' }

let status = null // the last GET /api/tunnel answer
let panel // the panel's parts, on the page that shows it
let following = false
let cloud = false // the server has no tunnel API: never asked again
let timer
let asked = 0 // polls sent
let shown = 0 // the newest poll whose answer is on screen
let pending = '' // 'start' or 'stop' while that request runs
let failure = '' // the last request's error, in the server's words
let chosen = false // the owner picked a provider: polls no longer set it
let typed = false // the owner edited the custom URL: polls no longer fill it in

/**
 * A folio's share link as the owner should send it: through the tunnel while one is connected
 * (this server's own address reaches this network at most), with the password localtunnel's
 * reminder page asks viewers for beside it.
 */
export function shareLink(path) {
  const tunnel = status?.state === 'connected' && status.url ? status : null
  const url = new URL(path, tunnel ? tunnel.url : location.origin).href
  const password = tunnel?.viewerPassword || ''
  return {
    url,
    password,
    public: Boolean(tunnel),
    /** This server has a tunnel, and it is not up. */
    tunnelOff: Boolean(status) && !tunnel,
    text: password ? `${url}\n${tunnelPasswordLine(password)}` : url,
  }
}

/**
 * Follows the tunnel's status, showing the panel in `section` when given (the dashboard, not a
 * folio's page). main.js calls it after every list it loaded: again after a 401 stopped it.
 */
export function followTunnel(section) {
  if (section && !panel) panel = build(section)
  if (following || cloud) return
  following = true
  refresh()
}

async function refresh() {
  clearTimeout(timer)
  const mine = ++asked
  try {
    const answer = await getTunnel()
    // A poll sent before an action may answer after the action's own: never show the older state.
    if (mine < shown) return
    shown = mine
    status = answer
  } catch (error) {
    if (error.status === 403 || error.status === 401) {
      // 403: Cloud, where tunnels are not the owner's business. 401: the key form is up
      // (dash-api.js), and main.js follows again once the list loads with the key.
      cloud = error.status === 403
      following = false
      if (panel) panel.root.hidden = true
      return
    }
    // A restarting server: keep the last state on screen and ask again.
  }
  draw()
  clearTimeout(timer)
  if (document.visibilityState === 'visible') timer = setTimeout(refresh, POLL_MS)
}

// No polling in a background tab; catch up at once when it comes back.
document.addEventListener('visibilitychange', () => {
  if (!following) return
  if (document.visibilityState === 'visible') refresh()
  else clearTimeout(timer)
})

/** Runs one request with its button saying so, keeps the server's message if it fails, then shows the truth. */
async function act(name, step) {
  if (pending) return
  pending = name
  failure = ''
  draw()
  try {
    await step()
  } catch (error) {
    // A 401 opens the key form instead (dash-api.js).
    if (error.status !== 401) failure = error.message || String(error)
  }
  pending = ''
  if (following) await refresh()
}

function start({ install = false } = {}) {
  const provider = install ? 'cloudflare' : panel.provider.value
  return act('start', async () => {
    if (provider === 'custom') {
      await controlTunnel({ action: 'save_custom', customTunnelUrl: panel.custom.value.trim() })
      typed = false
    }
    const started = await controlTunnel({ action: 'start', provider, ...(install ? { install } : {}) })
    // The server remembers the provider now: the list follows it again.
    chosen = false
    toast(started.message || `The tunnel is up: ${started.url}`)
  })
}

const stop = () =>
  act('stop', async () => {
    await controlTunnel({ action: 'stop' })
    toast('The tunnel is stopped: links through it no longer open.')
  })

async function copyUrl() {
  try {
    await copyText(status.url)
    toast('Public URL copied.')
  } catch {
    toast(`Copy the URL yourself: ${status.url}`, { kind: 'error' })
  }
}

/** Live regions read out every change, even to the same words: a poll must not repeat them. */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text
}

const field = (label, control, cls = '') => h('div', { class: `tunnel-field ${cls}` }, h('label', { for: control.id }, label), control)

function build(root) {
  const p = {
    root,
    state: h('span', { class: 'tunnel-state', 'aria-live': 'polite' }),
    intro: h('p', { class: 'muted small' }, 'A public address for this server: the share links you copy then open for people on other networks too.'),
    link: h('a', { target: '_blank', rel: 'noopener' }),
    passwordValue: h('b'),
    notice: h('p', { class: 'muted small' }),
    moved: h('p', { class: 'tunnel-moved' }),
    error: h('p', { class: 'tunnel-error', role: 'alert' }),
    install: h('button', { type: 'button', class: 'btn small', onclick: () => start({ install: true }) }, 'Download cloudflared (about 40 MB) and start'),
    provider: h(
      'select',
      {
        id: 'tunnel-provider',
        class: 'field',
        onchange: () => {
          chosen = true
          draw()
        },
      },
      PROVIDERS.map(([value, label]) => h('option', { value }, label)),
    ),
    custom: h('input', {
      id: 'tunnel-custom',
      class: 'field',
      type: 'url',
      placeholder: 'https://decks.example.com',
      autocomplete: 'off',
      spellcheck: 'false',
      oninput: () => {
        typed = true
      },
    }),
    start: h('button', { type: 'submit', class: 'btn primary' }, 'Start tunnel'),
    stop: h('button', { type: 'button', class: 'btn', onclick: stop }, 'Stop tunnel'),
  }
  p.password = h('p', { class: 'tunnel-password' }, 'Tunnel password: ', p.passwordValue)
  p.address = h(
    'p',
    { class: 'tunnel-address' },
    p.link,
    h('button', { type: 'button', class: 'btn small', 'aria-label': 'Copy the public URL', onclick: copyUrl }, 'Copy'),
  )
  p.customField = field('Your public URL', p.custom, 'tunnel-url')
  root.replaceChildren(
    h('div', { class: 'tunnel-head' }, h('h2', { id: 'tunnel-title' }, 'Tunnel'), p.state),
    p.intro,
    p.address,
    p.password,
    p.notice,
    p.moved,
    p.error,
    p.install,
    h(
      'form',
      {
        class: 'tunnel-form',
        onsubmit: (e) => {
          e.preventDefault()
          start()
        },
      },
      field('Provider', p.provider),
      p.customField,
      h('div', { class: 'tunnel-buttons' }, p.start, p.stop),
    ),
  )
  return p
}

function draw() {
  if (!panel || !status) return
  const p = panel
  const s = status
  const running = s.state !== 'stopped'
  p.root.hidden = false
  p.state.dataset.state = s.state
  setText(p.state, running ? `${STATES[s.state]} through ${THROUGH[s.provider] || s.provider}` : STATES.stopped)
  p.intro.hidden = running

  p.address.hidden = !s.url
  p.link.href = s.url || ''
  setText(p.link, s.url || '')
  p.password.hidden = !s.viewerPassword
  setText(p.passwordValue, s.viewerPassword || '')
  p.notice.hidden = !s.viewerNotice
  setText(p.notice, s.viewerNotice || '')
  p.moved.hidden = !s.previousUrl
  setText(p.moved, s.previousUrl ? `The tunnel has a new address: links shared with ${s.previousUrl} no longer work. Copy them again.` : '')

  const problem = failure || (s.lastError && s.state !== 'connected' ? `The last attempt failed: ${s.lastError}` : '')
  p.error.hidden = !problem
  setText(p.error, problem)
  p.install.hidden = !problem.includes(CLOUDFLARED_MISSING) || Boolean(pending)

  // One tunnel at a time: its provider changes after a stop.
  if (running || !chosen) p.provider.value = s.provider
  p.provider.disabled = running || Boolean(pending)
  p.customField.hidden = p.provider.value !== 'custom'
  p.custom.required = p.provider.value === 'custom'
  p.custom.disabled = p.provider.disabled
  if (!typed && document.activeElement !== p.custom) p.custom.value = s.customTunnelUrl || ''

  const focused = document.activeElement
  p.start.hidden = running && pending !== 'start'
  p.stop.hidden = !running || pending === 'start'
  p.start.disabled = p.stop.disabled = Boolean(pending)
  setText(p.start, pending === 'start' ? 'Starting…' : 'Start tunnel')
  setText(p.stop, pending === 'stop' ? 'Stopping…' : 'Stop tunnel')
  // Start became Stop (or back): focus goes to the other, not to the page.
  if (focused === p.start && p.start.hidden) p.stop.focus()
  else if (focused === p.stop && p.stop.hidden) p.start.focus()
}
