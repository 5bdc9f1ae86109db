import { FRAME_STATE_PREFIX, frameStorageKey, placeKey } from '../../domain/share-page-storage.js'
import { escapeHtml } from '../../domain/html.js'
import { jsonForScript } from '../../domain/html-inject.js'
import type { WebAssets } from './web-assets.js'

/** What the share page's script starts from (src/web/share/main.js); `view` says which screen. */
export type ShareBoot = { id: string; title: string; view: 'content' | 'gate' | 'draft' | 'missing' | 'link-ended'; description?: unknown } & Record<
  string,
  unknown
>

/** Kept identical on both sides: the frame the server renders is the one share-content.js adopts. */
const FRAME_SANDBOX = 'allow-scripts allow-popups allow-forms allow-modals allow-downloads'

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/')

/**
 * The share page as the viewer's browser first gets it. For a folio that may be seen, the bar and
 * the frame are in the HTML and the frame starts loading the folio while the page's script is
 * still on its way: the folio is one round trip after the page, not two. A small inline script
 * hands the frame what this folio kept in localStorage last time (through its name, read by the
 * frame's storage stand-ins before any of the folio's scripts) and then starts it.
 */
export function renderSharePage(web: WebAssets, boot: ShareBoot, options: { noindex: boolean }): string {
  // One pass with a function: text written by owners or viewers (a title, a comment) can neither
  // be taken for another placeholder nor expand as a replacement pattern ($', $&). The head tags
  // go into the template first, with placeholders of their own, for the same reason.
  const description = previewText(typeof boot.description === 'string' ? boot.description : '')
  const values: Record<string, string> = {
    title: escapeHtml(boot.title),
    description: escapeHtml(description),
    boot: jsonForScript({ api: `/api/files/${boot.id}`, ...boot }),
    bodyClass: boot.view === 'content' ? 'content-page' : '',
    app: boot.view === 'content' ? contentScreen(boot) : '<noscript><p class="notice">This folio needs JavaScript to be shown.</p></noscript>',
  }
  const head = [
    '<meta property="og:title" content="{{title}}">',
    description ? '<meta property="og:description" content="{{description}}">' : '',
    options.noindex ? '<meta name="robots" content="noindex">' : '',
  ].filter(Boolean)
  return injectIntoHead(web.sharePage, head.join('\n  ')).replace(/\{\{(title|description|boot|bodyClass|app)\}\}/g, (_, name: string) => values[name]!)
}

function contentScreen(boot: ShareBoot): string {
  const title = escapeHtml(boot.title || 'Untitled folio')
  const badge = boot.preview ? `<span class="badge">${boot.draft ? 'Preview · draft' : boot.isPrivate ? 'Preview · private' : 'Preview'}</span>` : ''
  const src = `${String(boot.frameBase)}${encodePath(String(boot.entry))}`
  // A viewer coming back to a place (the folio was away a moment) is started there by the page's
  // script, which knows the place: one navigation, not two.
  const start = `(()=>{const f=document.getElementById('folio-frame');try{if(sessionStorage.getItem(${jsonForScript(placeKey(boot.id))}))return;const l=localStorage.getItem(${jsonForScript(frameStorageKey(boot.id))});if(l)f.name=${jsonForScript(FRAME_STATE_PREFIX)}+JSON.stringify({l:JSON.parse(l)})}catch{}f.src=${jsonForScript(src)}})()`
  return (
    `<header class="bar"><div class="bar-start"><span class="logo" aria-hidden="true">f</span><h1 class="bar-title" title="${title}">${title}</h1>${badge}</div><div class="bar-end"></div></header>` +
    `<div class="body"><main class="stage" id="stage"><iframe id="folio-frame" class="frame" title="${title}" allow="fullscreen" sandbox="${FRAME_SANDBOX}"></iframe><script>${start}</script></main></div>`
  )
}

/** A description as a link preview shows it: one line, at most 300 characters. */
function previewText(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat
}

/** Puts tags at the end of the template's head (before its first </head>), else at the start. */
function injectIntoHead(html: string, tags: string): string {
  const at = html.toLowerCase().indexOf('</head>')
  return at === -1 ? tags + html : `${html.slice(0, at)}  ${tags}\n${html.slice(at)}`
}
