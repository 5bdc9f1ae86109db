/*
 * folio's dashboard: at / every folio with its engagement and the owner's actions, and the inbox
 * of every comment; at /folios/{id} one folio, its versions and its comments. Polls
 * GET /api/files every 10 s (it carries each folio's versions and comments) and after every
 * action. Cards and inbox sections are keyed by their data and only rebuilt when it changed.
 * The tunnel panel (dash-tunnel.js) follows its own status once a list has loaded: the owner's.
 */

import '../common/tokens.css'
import './dashboard.css'
import './dash-inbox.css'
import { ago, h } from '../common/ui.js'
import { forgetKey, listFolios, rememberKey, whenUnauthorized } from './dash-api.js'
import { isCloud, setUpEmailSignIn, signInWithKey } from './dash-signin.js'
import { card } from './dash-card.js'
import { counts, FILTERS } from './dash-comments.js'
import { emptyInbox, folioInbox, hasComments } from './dash-inbox.js'
import { followTunnel } from './dash-tunnel.js'
import { nudge, watchViews } from './dash-live.js'
import { bytes, keyedRender, number, plural, toast } from './dash-dom.js'

const REFRESH_MS = 10_000
/** Threads per folio in the dashboard's inbox; the folio's page shows them all. */
const THREADS_PER_FOLIO = 20

const $ = (id) => document.getElementById(id)
const els = {
  layout: $('layout'),
  folios: $('folios'),
  inbox: $('inbox'),
  inboxTitle: $('inbox-title'),
  inboxList: $('inbox-list'),
  filters: $('filters'),
  error: $('error'),
  summary: $('summary'),
  jump: $('jump-inbox'),
  updated: $('updated'),
  gate: $('key-gate'),
  gateWhy: $('key-why'),
  keyInput: $('key-input'),
  keyWhere: $('key-where'),
  emailGate: $('email-gate'),
  tunnel: $('tunnel'),
}
/** The folio of /folios/{id}, or undefined on the dashboard. */
const folioId = (() => {
  const m = /^\/folios\/([^/]+)\/?$/.exec(location.pathname)
  return m ? decodeURIComponent(m[1]) : undefined
})()
const cardCache = new Map()
const inboxCache = new Map()
let folios = []
let filter = sessionStorage.getItem('folio.inboxFilter') || 'all'
let timer = null
let loadedOnce = false

/** What every action goes through: report the outcome, then show the server's truth. */
const app = {
  async run(step, { success, undo, quiet = false } = {}) {
    let result
    try {
      result = await step()
    } catch (error) {
      // A 401 opens the key form instead (whenUnauthorized).
      if (error.status !== 401) toast(error.message || String(error), { kind: 'error' })
      return undefined
    }
    const message = typeof success === 'function' ? success(result) : success
    if (message) toast(message, undo ? { action: { label: 'Undo', run: undo } } : {})
    if (!quiet) await load()
    return result ?? true
  },
  deleted() {
    if (folioId) location.assign('/')
  },
}

/* ---------- the API key, when the server asks for one ---------- */

whenUnauthorized(({ refused }) => {
  if (refused) forgetKey()
  clearTimeout(timer)
  els.gate.hidden = false
  els.layout.hidden = true
  els.error.hidden = true
  els.tunnel.hidden = true
  els.gateWhy.textContent = refused
    ? 'The server refused that key: it may have been rotated. Paste the current one.'
    : 'You are not on the machine that runs folio, so the server wants its API key before it shows your folios.'
  els.keyInput.focus()
  isCloud().then((cloud) => {
    if (!cloud || !els.emailGate.hidden) return
    // Cloud: a person signs in (a session cookie) with the key or an e-mailed code.
    els.gateWhy.textContent = 'Sign in to see your workspace’s folios: paste its API key, or use your e-mail address.'
    els.keyWhere.textContent = 'Your browser keeps you signed in (a cookie no script can read) until you sign out or the key is rotated.'
    setUpEmailSignIn(els.emailGate, signedIn)
  })
})

function signedIn() {
  els.keyInput.value = ''
  els.gate.hidden = true
  els.emailGate.hidden = true
  els.layout.hidden = false
  load()
}

els.gate.addEventListener('submit', async (event) => {
  event.preventDefault()
  const key = els.keyInput.value.trim()
  if (!key) return
  if (await isCloud()) {
    if (!(await signInWithKey(key))) {
      els.gateWhy.textContent = 'The server refused that key: it may have been rotated. Paste the current one.'
      return
    }
  } else {
    rememberKey(key)
  }
  signedIn()
})

/* ---------- rendering ---------- */

function emptyState() {
  const origin = location.origin
  return h(
    'div',
    { class: 'empty' },
    h('h2', {}, 'No folios yet'),
    h('p', {}, 'A folio is an HTML page (or a bundle of them) published from this machine. Create one from a terminal:'),
    h('pre', {}, h('code', {}, `npx folio-cli create "My deck" --html deck.html${cliServerFlag(origin)}`)),
    h('p', {}, 'or straight through the API:'),
    h(
      'pre',
      {},
      h('code', {}, `curl -s ${origin}/api/files \\\n  -H 'content-type: application/json' \\\n  -d '{"title": "Q3 review", "initialHtml": "<h1>Q3</h1>"}'`),
    ),
    h('p', { class: 'muted' }, 'It shows up here within a few seconds.'),
  )
}

/** The CLI talks to http://127.0.0.1:3000 unless told otherwise: name any other server. */
function cliServerFlag(origin) {
  return /^http:\/\/(127\.0\.0\.1|localhost):3000$/.test(origin) ? '' : ` --server ${origin}`
}

function renderFilters(shown) {
  const totals = Object.fromEntries(FILTERS.map(([id]) => [id, 0]))
  for (const f of shown) {
    const n = counts(f)
    for (const id of Object.keys(totals)) totals[id] += n[id]
  }
  els.filters.replaceChildren(
    ...FILTERS.map(([id, label]) =>
      h(
        'button',
        {
          type: 'button',
          class: 'chip',
          'aria-pressed': String(id === filter),
          'data-filter': id,
          onclick: () => {
            filter = id
            sessionStorage.setItem('folio.inboxFilter', id)
            render()
          },
        },
        label,
        h('span', { class: 'chip-count' }, number.format(totals[id])),
      ),
    ),
  )
}

function renderInbox(shown, { single }) {
  els.inbox.hidden = false
  renderFilters(shown)
  const withComments = shown.filter((f) => hasComments(f, filter))
  if (withComments.length === 0) {
    inboxCache.clear()
    els.inboxList.replaceChildren(emptyInbox(shown, filter))
    return
  }
  els.inboxList.querySelector('.inbox-empty')?.remove()
  // Newest activity first: the folio whose latest comment is newest leads.
  const latest = (f) => (f.comments || []).reduce((t, c) => (c.createdAt > t ? c.createdAt : t), '')
  withComments.sort((a, b) => (latest(a) < latest(b) ? 1 : -1))
  keyedRender(
    els.inboxList,
    withComments.map((f) => ({
      id: f.id,
      key: JSON.stringify([filter, f.title, f.latestVersionId, f.comments]),
      build: () => folioInbox(f, app, { filter, limit: single ? Infinity : THREADS_PER_FOLIO, withHeader: !single }),
    })),
    inboxCache,
  )
}

function renderDashboard() {
  document.title = 'folio'
  if (!folios.length) {
    cardCache.clear()
    els.folios.replaceChildren(emptyState())
    els.inbox.hidden = true
    els.jump.hidden = true
    els.summary.textContent = ''
    return
  }
  keyedRender(
    els.folios,
    folios.map((f) => ({ id: f.id, key: JSON.stringify(f), build: () => card(f, app) })),
    cardCache,
  )
  renderInbox(folios, { single: false })
  const views = folios.reduce((n, f) => n + (Number(f.analytics?.views) || 0), 0)
  const open = folios.reduce((n, f) => n + counts(f).open, 0)
  const size = folios.reduce((n, f) => n + (Number(f._storageBytes) || 0), 0)
  els.summary.textContent = [plural(folios.length, 'folio'), plural(views, 'view'), plural(open, 'open comment'), bytes(size)].join(' · ')
  els.jump.hidden = false
  els.jump.textContent = `Inbox: ${number.format(open)} open ↓`
}

function renderFolioPage() {
  const f = folios.find((x) => x.id === folioId)
  if (!f) {
    cardCache.clear()
    els.inbox.hidden = true
    els.summary.textContent = ''
    els.folios.replaceChildren(
      h(
        'div',
        { class: 'empty' },
        h('h2', {}, 'No such folio'),
        h('p', {}, `This server has no folio ${folioId}: it may have been deleted.`),
        h('a', { class: 'btn', href: '/' }, 'All folios'),
      ),
    )
    return
  }
  document.title = `${f.title || 'Untitled'} · folio`
  els.inboxTitle.textContent = 'Comments'
  keyedRender(els.folios, [{ id: f.id, key: JSON.stringify(f), build: () => card(f, app, { page: true }) }], cardCache)
  renderInbox([f], { single: true })
  els.summary.replaceChildren(h('a', { href: '/' }, '← All folios'))
}

function render() {
  els.folios.setAttribute('aria-busy', 'false')
  els.folios.querySelector('.loading')?.remove()
  if (folioId) renderFolioPage()
  else renderDashboard()
  for (const t of document.querySelectorAll('time[data-ago]')) t.textContent = ago(t.dataset.ago, '—')
}

/* ---------- loading ---------- */

let asked = 0 // loads sent
let shown = 0 // the newest load whose answer is on screen

async function load() {
  clearTimeout(timer)
  const mine = ++asked
  try {
    const data = await listFolios()
    if (!Array.isArray(data)) throw new Error('Unexpected answer from /api/files')
    // A poll sent before an action may answer after the action's own load: never show the
    // older list over the newer one (a resolved comment would flip back for 10 s).
    if (mine < shown) return
    shown = mine
    folios = data
    render()
    els.error.hidden = true
    els.updated.textContent = `Refreshed ${new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`
    loadedOnce = true
    // The dashboard shows the panel; a folio's page only follows the tunnel, for its share link.
    followTunnel(folioId ? undefined : els.tunnel)
    // A view starting or ending: said at once, and the list (its "latest view" lines) loaded again.
    watchViews(folioId ? folios.filter((f) => f.id === folioId) : folios, (id, view) => {
      nudge(
        folios.find((f) => f.id === id),
        view,
      )
      void load()
    })
  } catch (err) {
    if (err.status === 401) return // the key form is up; loading resumes when it is sent
    if (mine < shown) return // a newer list is on screen already
    // Keep the last good list on screen: a restarting server should not blank the page.
    els.error.hidden = false
    els.error.textContent = `Could not load folios: ${err.message || err}. Retrying…`
    if (!loadedOnce) {
      els.folios.setAttribute('aria-busy', 'false')
      els.folios.querySelector('.loading')?.remove()
    }
  }
  if (document.visibilityState === 'visible') timer = setTimeout(load, REFRESH_MS)
}

// No polling in a background tab; catch up at once when it comes back.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') load()
  else clearTimeout(timer)
})

load()
