/*
 * folio bridge — injected into every HTML file of a folio shown inside the share page's iframe.
 *
 * The iframe is sandboxed without allow-same-origin, so the share page cannot touch this document:
 * everything (where the viewer clicked, which file, slide and scroll position are shown, where
 * pins go) crosses via postMessage. It is bundled into one classic script (not a module) that the
 * server writes inline at the end of <body>, after the folio's own scripts: a frame with an opaque
 * origin gets a cache of its own for each page, so a bridge loaded by URL would be fetched again on
 * every view, while the page itself, under its version's address, is kept.
 *
 * Its parts: bridge-anchors.js (what an anchor names), bridge-pin-anchors.js (the anchor of a comment
 * that names its element by the spec's selector only), deck.js (slides, as the deck itself says),
 * bridge-pins.js (drawing the pins), bridge-parts.js (the slide or section on screen). This file: messages, comment mode, where the viewer is
 * (hash, slide, scroll), links under a fresh frame token. The storage stand-ins the folio's own
 * scripts need run before all of them, inline at the top of the page (storage-shims.js).
 */
import { installAnchors } from './bridge-anchors.js'
import { installPinAnchors } from './bridge-pin-anchors.js'
import { installParts } from './bridge-parts.js'
import { installPins } from './bridge-pins.js'
import { installDeck } from './deck.js'

startBridge()

function startBridge() {
  // Opened directly (not in the viewer): stay completely inert, the folio must behave as authored.
  if (window.parent === window) return

  const script = document.currentScript || document.querySelector('script[data-folio-base]')
  if (!script) return
  const NS = Symbol.for('folio.bridge')
  if (window[NS]) return // the page carries the bridge twice: one is enough
  const ns = {}
  Object.defineProperty(window, NS, { value: ns })

  // The share page lives on the server origin; ours is opaque ("null"), so we name the target
  // explicitly: a folio that navigates its frame elsewhere cannot make us talk to a stranger.
  // location.origin is the URL's origin, the server's, though this document's own is opaque.
  const serverOrigin = location.origin
  const basePath = new URL(script.dataset.folioBase || '/', location.href).pathname
  const MAX_HTML = 2000

  let commenting = false
  let cursorStyle = null
  let lastSize = { width: 0, height: 0 }

  const file = currentFile()

  function currentFile() {
    let path = location.pathname
    if (path.startsWith(basePath)) path = path.slice(basePath.length)
    else path = path.replace(/^\/+/, '')
    try {
      path = decodeURIComponent(path)
    } catch {
      // A malformed escape is still a usable name for matching comments.
    }
    // A directory URL is served as its index file; comments must match that name.
    if (path === '' || path.endsWith('/')) path += 'index.html'
    return path
  }

  function post(message) {
    try {
      window.parent.postMessage({ source: 'folio-bridge', ...message }, serverOrigin)
    } catch {
      // The parent went away (navigation): nothing to tell.
    }
  }
  ns.post = post
  ns.isOwn = (el) => el.localName === 'folio-pins'

  function docSize() {
    const el = document.documentElement
    return { width: el.scrollWidth, height: el.scrollHeight }
  }

  /* ---------- comment mode ---------- */

  const pct = (v, total) => (total > 0 ? Math.round(Math.min(100, Math.max(0, (v / total) * 100)) * 100) / 100 : 0)

  const isOwnPin = (event) => event.composedPath().some((n) => n instanceof Element && ns.isOwn(n))

  function onClick(event) {
    if (isOwnPin(event)) return // pins stay usable while commenting
    event.preventDefault()
    event.stopImmediatePropagation()
    const target = event.target instanceof Element ? event.target : document.body
    let { pageX, pageY, clientX, clientY } = event
    // A keyboard "click" (Enter on a focused link) has no pointer position: use the element's centre.
    if (event.detail === 0 && pageX === 0 && pageY === 0) {
      const r = target.getBoundingClientRect()
      clientX = r.left + r.width / 2
      clientY = r.top + r.height / 2
      pageX = clientX + scrollX
      pageY = clientY + scrollY
    }
    const { width, height } = docSize()
    const anchor = ns.anchors?.make(target, clientX, clientY)
    post({
      type: 'click',
      x: pct(pageX, width),
      y: pct(pageY, height),
      selector: anchor?.selector ?? 'body',
      elementHtml: (target.outerHTML || '').slice(0, MAX_HTML),
      file,
      anchor,
      // Where in the frame's viewport it happened, so the parent can put its form next to it.
      clientX: Math.round(clientX),
      clientY: Math.round(clientY),
    })
  }

  // The folio must not react to the presses that make a comment (slides advancing, links opening).
  function swallow(event) {
    if (isOwnPin(event)) return
    event.preventDefault()
    event.stopImmediatePropagation()
  }

  function onCommentKey(event) {
    if (event.key !== 'Escape') return
    event.preventDefault()
    event.stopImmediatePropagation()
    setCommenting(false)
    post({ type: 'mode-exit' })
  }

  // Out of comment mode, Esc is the folio's first (its own dialog may close); if it leaves the
  // key alone, the share page gets it (to close its panel) as if focus were there.
  function onKey(event) {
    if (event.key === 'Escape' && !commenting && !event.defaultPrevented) post({ type: 'key', key: 'Escape' })
  }

  const SWALLOWED = ['pointerdown', 'pointerup', 'mousedown', 'mouseup', 'dblclick', 'auxclick', 'submit']

  function setCommenting(on) {
    if (on === commenting) return
    commenting = on
    const method = on ? 'addEventListener' : 'removeEventListener'
    window[method]('click', onClick, true)
    window[method]('keydown', onCommentKey, true)
    for (const type of SWALLOWED) window[method](type, swallow, true)
    if (on) {
      cursorStyle = document.createElement('style')
      cursorStyle.textContent = '*, *::before, *::after { cursor: crosshair !important; }'
      ;(document.head || document.documentElement).appendChild(cursorStyle)
    } else {
      cursorStyle?.remove()
      cursorStyle = null
    }
  }

  /* ---------- where the viewer is: kept by the share page across a new version ---------- */

  let lastWhere = ''
  let scroller = null // the element the viewer last scrolled, when it is not the page
  const selectors = new WeakMap()

  function scrollerState() {
    if (!scroller?.isConnected || !ns.anchors) return undefined
    let selector = selectors.get(scroller)
    if (selector === undefined) selectors.set(scroller, (selector = ns.anchors.selectorFor(scroller)))
    return selector ? { selector, top: Math.round(scroller.scrollTop), left: Math.round(scroller.scrollLeft) } : undefined
  }

  // At most every 200 ms (an animated page mutates on every frame), and once more after the last.
  let lastReport = 0
  // biome-ignore lint/correctness/noUnusedVariables: read by the ??= below
  let reportTimer = null
  function reportWhere() {
    const wait = lastReport + 200 - Date.now()
    if (wait > 0) {
      reportTimer ??= setTimeout(() => {
        reportTimer = null
        reportWhere()
      }, wait)
      return
    }
    lastReport = Date.now()
    tellWhere()
  }

  /** Tells the share page the hash, slide and scroll positions when they changed. */
  function tellWhere() {
    const where = {
      hash: location.hash,
      slide: ns.anchors?.slideState().active,
      // The slide or section on screen, for the author's time-per-slide figures (bridge-parts.js).
      part: ns.parts?.(),
      scroll: { x: Math.round(scrollX), y: Math.round(scrollY), box: scrollerState() },
    }
    const key = JSON.stringify(where)
    if (key === lastWhere) return
    lastWhere = key
    post({ type: 'where', file, ...where })
  }
  ns.afterLayout = reportWhere

  /** Back where the viewer was on the previous version (the hash came with the URL). */
  function restore(scroll) {
    if (!scroll || typeof scroll !== 'object') return
    const apply = () => {
      if (Number.isFinite(scroll.x) && Number.isFinite(scroll.y)) window.scrollTo(scroll.x, scroll.y)
      const box = scroll.box
      if (box && typeof box.selector === 'string') {
        let el = null
        try {
          el = document.querySelector(box.selector)
        } catch {
          // not a selector any more: the page keeps its own scroll
        }
        if (el) {
          el.scrollTop = Number(box.top) || 0
          el.scrollLeft = Number(box.left) || 0
          scroller = el
        }
      }
    }
    apply()
    // Late images and fonts make the page taller: once they are in, the same place again.
    if (document.readyState !== 'complete') window.addEventListener('load', apply, { once: true })
  }

  /* ---------- a fresh frame token for links ---------- */

  // A private folio's frame base carries a token that lasts minutes; the share page keeps a fresh
  // one (share-frame.js) and sends it here, so links within the folio follow it rather than the
  // one this page was loaded under. Anything else (a script setting location) gets the server's
  // "expired" page, which asks the share page to reload the frame.
  let freshBase = null
  const here = new URL(location.href)

  function onLinkClick(event) {
    if (!freshBase || commenting || !(event.target instanceof Element)) return
    const link = event.target.closest('a[href]')
    if (!link || typeof link.href !== 'string') return // SVG links keep theirs
    let url
    try {
      url = new URL(link.href, location.href)
    } catch {
      return
    }
    if (url.host !== here.host || !url.pathname.startsWith(basePath) || url.pathname.startsWith(freshBase)) return
    link.href = freshBase + url.pathname.slice(basePath.length) + url.search + url.hash
  }

  /* ---------- wiring ---------- */

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return
    const data = event.data
    if (data?.source !== 'folio-viewer') return
    switch (data.type) {
      case 'mode':
        setCommenting(Boolean(data.commenting))
        break
      case 'pins':
        ns.pins?.set(data.pins)
        break
      case 'focus':
        ns.pins?.focus(data.id)
        break
      case 'restore':
        restore(data.scroll)
        break
      case 'hello':
        // The share page's script came after this page was ready (the server starts the frame
        // before that script arrives): say so again.
        if (started) {
          post({ type: 'ready', file, ...docSize() })
          lastWhere = ''
          tellWhere()
          requestAnimationFrame(() => setTimeout(() => post({ type: 'painted' }), 0))
        }
        break
      case 'where?':
        // A new version is about to replace this page: where the viewer is, now, unthrottled.
        lastWhere = ''
        tellWhere()
        break
      case 'base':
        if (typeof data.base === 'string' && data.base.startsWith('/v/') && data.base.endsWith('/')) freshBase = data.base
        break
    }
  })

  let resizeQueued = false
  function onResize() {
    if (resizeQueued) return
    resizeQueued = true
    requestAnimationFrame(() => {
      resizeQueued = false
      const size = docSize()
      if (size.width === lastSize.width && size.height === lastSize.height) return
      lastSize = size
      post({ type: 'resize', ...size })
    })
  }

  let started = false
  function start() {
    started = true
    window.addEventListener('click', onLinkClick, true)
    window.addEventListener('keydown', onKey)
    document.addEventListener(
      'scroll',
      (event) => {
        if (event.target instanceof Element) scroller = event.target
        else if (scrollY || scrollX) scroller = null // the page itself scrolls
        reportWhere() // a document's section changes as it scrolls
      },
      { capture: true, passive: true },
    )
    ns.pins?.start()
    lastSize = docSize()
    post({ type: 'ready', file, ...lastSize })
    // Once a frame with the page in it has been drawn: the share page then starts what the
    // folio itself does not need (beacons, the event stream), so the folio's requests go first.
    requestAnimationFrame(() => setTimeout(() => post({ type: 'painted' }), 0))
    reportWhere()
    if ('ResizeObserver' in window) {
      const ro = new ResizeObserver(onResize)
      ro.observe(document.documentElement)
      if (document.body) ro.observe(document.body)
    }
    window.addEventListener('resize', onResize)
    // Late images and fonts change the height without always resizing <body>'s box.
    window.addEventListener('load', onResize)
  }

  installDeck(ns, () => {
    ns.pins?.schedule()
    reportWhere()
  })
  installAnchors(ns)
  installParts(ns)
  installPinAnchors(ns)
  installPins(ns)
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true })
  else start()
}
