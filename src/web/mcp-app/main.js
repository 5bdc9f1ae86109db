/*
 * The MCP Apps view of a folio: ui://folio/folio-view.html (server/mcp/mcp-app.ts serves it, with
 * the folio server's origin written into its <meta name="folio-base">). A host that supports MCP
 * Apps shows it with the answer of get_folio, create_folio or update_folio; hosts that do not
 * never load it, and the answer is the same for both.
 *
 * The App client of @modelcontextprotocol/ext-apps (bundled in: nothing loads from a CDN) takes
 * the tool's answer from the host. The folio's id is in the answer's JSON, after the blank line
 * of its text (server/mcp/mcp-server.ts), and the view shows the folio's share page, with its pins
 * and reactions, in a frame, as any viewer sees it: a draft is not there for a viewer (the owner
 * on this machine, in OSS, sees its notice; the page turns into the folio once it is published),
 * a private folio's key form. Not the owner's preview (?preview): its
 * grant is a SameSite=Strict cookie, which a page framed inside a chat (another site) never
 * sends, so its live updates would be refused over and over. The view holds no key and asks the
 * server for nothing itself.
 */

import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps'
import '../common/tokens.css'
import './mcp-app.css'

/** domain/ids.ts's rule (that file needs node:crypto): anything else names no folio. */
const FOLIO_ID = /^[A-Za-z0-9_-]{1,64}$/
/** The frame's height when the host leaves it to the view: the share page needs room for its bar and a slide. */
const FRAME_HEIGHT = 560
const MIN_FRAME_HEIGHT = 240
/** The bar above the frame, as the stylesheet sizes it. */
const BAR_HEIGHT = 32

const root = document.getElementById('app')
const base = readBase()
let shown // the share page's URL in the frame now

const view = new App({ name: 'folio', version: '1.0.0' }, {}, { autoResize: true })
// Before connect(): the host may send the answer as soon as the handshake is done.
view.ontoolresult = (result) => show(result)
view.ontoolcancelled = ({ reason }) => note(reason ? `The tool was cancelled: ${reason}` : 'The tool was cancelled.', true)
view.onhostcontextchanged = () => fit(view.getHostContext())
view.connect().then(
  () => fit(view.getHostContext()),
  () => note('This view could not reach the chat it is shown in.', true),
)

/** The origin the folio server was reached at; nothing else is shown. */
function readBase() {
  const value = document.querySelector('meta[name="folio-base"]')?.getAttribute('content') ?? ''
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? value.replace(/\/+$/, '') : undefined
  } catch {
    return undefined
  }
}

/** The folio a tool's answer is about: {id, title}, or an error to say. */
function folioIn(result) {
  const text = (result?.content ?? [])
    .filter((c) => c?.type === 'text')
    .map((c) => c.text)
    .join('\n')
  if (result?.isError) return { error: text || 'The tool failed.' }
  const data = isObject(result?.structuredContent) ? result.structuredContent : jsonAfterSentence(text)
  if (data && FOLIO_ID.test(data.id)) return { id: data.id, title: typeof data.title === 'string' ? data.title : '' }
  // An answer cut at its budget has no whole JSON; its sentence still names the share page.
  const linked = /\/share\/([A-Za-z0-9_-]{1,64})\b/.exec(text)
  if (linked) return { id: linked[1], title: '' }
  return { error: 'This answer names no folio.' }
}

function jsonAfterSentence(text) {
  const at = text.indexOf('\n\n')
  if (at === -1) return undefined
  try {
    return JSON.parse(text.slice(at + 2))
  } catch {
    return undefined
  }
}

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value)

function show(result) {
  const folio = folioIn(result)
  if (folio.error) return note(folio.error, true)
  if (!base) return note('This view does not know where the folio server is.', true)
  const url = `${base}/share/${encodeURIComponent(folio.id)}`
  // The same folio again (an update): its page brings itself up to date; moved, its frame would reload.
  if (url === shown && root.querySelector('iframe.frame')) return
  const name = folio.title || folio.id
  // The share page shows the title and what a viewer may do; the bar gives its address, to open.
  const open = h(
    'a',
    { class: 'open', href: url, target: '_blank', rel: 'noopener' },
    h('span', { class: 'sr-only' }, `Open “${name}” in a new tab: `),
    url.replace(/^https?:\/\//, ''),
    h('span', { 'aria-hidden': 'true' }, ' ↗'),
  )
  // A sandboxed view may open no window itself: the host does, when it offers to.
  open.addEventListener('click', (event) => {
    if (!view.getHostCapabilities()?.openLinks) return
    event.preventDefault()
    view.openLink({ url }).catch(() => window.open(url, '_blank', 'noopener'))
  })
  const frame = h('iframe', { class: 'frame', src: url, title: `Folio “${name}”: its page, with comment pins and reactions` })
  root.replaceChildren(h('header', { class: 'bar' }, open), frame)
  shown = url
  root.removeAttribute('aria-busy')
}

function note(text, error = false) {
  shown = undefined
  root.replaceChildren(h('p', { class: error ? 'note error' : 'note', role: error ? 'alert' : 'status' }, text))
  root.removeAttribute('aria-busy')
}

/** The host's theme, and the frame's height within what the host gives the view. */
function fit(context) {
  if (!context) return
  if (context.theme) applyDocumentTheme(context.theme)
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables)
  const dims = context.containerDimensions ?? {}
  const fixed = typeof dims.height === 'number'
  document.documentElement.classList.toggle('fixed-height', fixed)
  const room = typeof dims.maxHeight === 'number' ? dims.maxHeight - BAR_HEIGHT : FRAME_HEIGHT
  document.documentElement.style.setProperty('--frame-height', `${Math.max(MIN_FRAME_HEIGHT, Math.min(FRAME_HEIGHT, room))}px`)
}

function h(tag, attrs, ...children) {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value)
  el.append(...children)
  return el
}
