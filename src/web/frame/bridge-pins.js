/*
 * folio bridge, part: pins — drawn inside the folio, in a shadow root its CSS cannot reach.
 *
 * A pin sits on its anchored element wherever that element is now (bridge-anchors.js finds it),
 * and is hidden while the element cannot be seen (another slide, a closed tab, scrolled away in
 * its container). Placement is redone, at most once per animation frame, whenever something may
 * have moved it: a resize, a DOM change, a slide or hash change, a scroll anywhere, a transition
 * ending. A comment posted with the spec's selector and no anchor gets one (bridge-pin-anchors.js).
 * A comment with neither (or whose element is gone) keeps the page percentage x/y.
 *
 * Bundled into the bridge (bridge.js calls it); shares only the bridge's namespace.
 */
/** Adds `ns.pins` to the bridge's namespace. */
export function installPins(ns) {
  const PIN_Z = '2147483646'
  const TIP_MAX = 280
  const MARGIN = 8

  const PIN_CSS = `
    :host { all: initial; }
    .layer { position: absolute; inset: 0 auto auto 0; width: 0; height: 0; pointer-events: none;
      font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    .pin { position: absolute; pointer-events: auto; transform: translate(-50%, -50%);
      width: 26px; height: 26px; border-radius: 50%; border: 2px solid #fff;
      background: #3b5bdb; color: #fff; font: 600 12px/22px system-ui, sans-serif; text-align: center;
      padding: 0; cursor: pointer; box-shadow: 0 2px 6px rgba(0,0,0,.35); transition: transform .15s; }
    .pin[hidden] { display: none; }
    .pin:hover, .pin:focus-visible { transform: translate(-50%, -50%) scale(1.15); z-index: 2; }
    .pin:focus-visible { outline: 3px solid #ffd43b; outline-offset: 2px; }
    .pin .more { position: absolute; right: -7px; top: -7px; min-width: 16px; height: 16px; padding: 0 3px;
      border-radius: 8px; background: #1b1e24; color: #fff; font: 700 10px/16px system-ui, sans-serif; }
    .pin.flash { animation: flash 1.4s ease-out 1; z-index: 3; }
    @keyframes flash {
      0%, 60% { box-shadow: 0 0 0 0 rgba(59,91,219,.9), 0 2px 6px rgba(0,0,0,.35); }
      30% { box-shadow: 0 0 0 14px rgba(59,91,219,0), 0 2px 6px rgba(0,0,0,.35); }
      100% { box-shadow: 0 2px 6px rgba(0,0,0,.35); } }
    .tip { position: absolute; z-index: 4; width: max-content; box-sizing: border-box;
      background: #1b1e24; color: #f1f3f5; border-radius: 8px; padding: 8px 10px; text-align: left;
      box-shadow: 0 6px 20px rgba(0,0,0,.3); white-space: pre-wrap; overflow-wrap: anywhere; }
    .tip[hidden] { display: none; }
    .tip b { display: block; font-weight: 600; margin-bottom: 2px; }
    .tip .reply { display: block; margin-top: 6px; padding-left: 8px; border-left: 2px solid #495057; }
    @media (prefers-reduced-motion: reduce) { .pin, .pin.flash { transition: none; animation: none; } }
  `

  let pins = [] // what the share page sent: {id, n, x, y, anchor?, selector?, author, text, replies[]}
  const drawn = new Map() // id → {pin, button, el (the anchored element, or null), made? (an anchor made from the selector)}
  let host = null // <folio-pins>, holding the shadow root
  let layer = null
  let tip = null
  let tipFor = null // the id whose tooltip shows
  let stale = true // the DOM changed since the elements were last looked up
  let queued = false
  let lastSlides = '{}'
  const resized = 'ResizeObserver' in window ? new ResizeObserver(() => schedule()) : null

  function ensureLayer() {
    if (host?.isConnected) return
    if (!host) {
      host = document.createElement('folio-pins')
      // Inline !important: the folio's own CSS may style unknown elements or use * selectors.
      for (const [k, v] of Object.entries({
        position: 'absolute',
        top: '0',
        left: '0',
        width: '0',
        height: '0',
        margin: '0',
        padding: '0',
        border: '0',
        display: 'block',
        overflow: 'visible',
        'pointer-events': 'none',
        'z-index': PIN_Z,
      }))
        host.style.setProperty(k, v, 'important')
      host.setAttribute('aria-label', 'Comment pins')
      const root = host.attachShadow({ mode: 'open' }) // open: tests and tools may inspect the pins
      const style = document.createElement('style')
      style.textContent = PIN_CSS
      layer = document.createElement('div')
      layer.className = 'layer'
      tip = document.createElement('div')
      tip.className = 'tip'
      tip.hidden = true
      tip.setAttribute('aria-hidden', 'true') // each pin's aria-label already says it
      layer.append(tip)
      root.append(style, layer)
    }
    // On <html> rather than <body>: a positioned body with margins would offset the pins. Put
    // back when the folio replaces its document's content.
    document.documentElement.appendChild(host)
  }

  /* ---------- the pins the share page sent ---------- */

  function set(list) {
    pins = Array.isArray(list) ? list.filter((p) => p && typeof p.id === 'string') : []
    ensureLayer()
    const keep = new Set(pins.map((p) => p.id))
    for (const [id, entry] of drawn) {
      if (keep.has(id)) continue
      entry.button.remove()
      if (entry.el) resized?.unobserve(entry.el)
      drawn.delete(id)
    }
    for (const p of pins) {
      let entry = drawn.get(p.id)
      if (!entry) {
        entry = { button: makeButton(p.id), el: null, pin: p }
        drawn.set(p.id, entry)
        layer.append(entry.button)
      }
      entry.pin = p
      const replies = Array.isArray(p.replies) ? p.replies : []
      entry.button.replaceChildren(String(p.n))
      if (replies.length) {
        const more = document.createElement('span')
        more.className = 'more'
        more.textContent = String(replies.length)
        entry.button.append(more)
      }
      const answers = replies.length ? ` (${replies.length} ${replies.length === 1 ? 'reply' : 'replies'})` : ''
      entry.button.setAttribute('aria-label', `Comment ${p.n} by ${p.author || 'Guest'}: ${p.text}${answers}`)
    }
    host.setAttribute('data-pin-count', String(pins.length))
    if (tipFor && !keep.has(tipFor)) hideTip()
    else if (tipFor) fillTip(drawn.get(tipFor).pin)
    stale = true
    schedule()
  }

  function makeButton(id) {
    const button = document.createElement('button')
    button.type = 'button'
    button.className = 'pin'
    button.dataset.commentId = id
    button.addEventListener('click', (e) => {
      e.stopPropagation()
      ns.post({ type: 'pin-click', id })
    })
    button.addEventListener('pointerenter', () => showTip(id))
    button.addEventListener('focus', () => showTip(id))
    button.addEventListener('pointerleave', () => {
      if (!button.classList.contains('flash')) hideTip()
    })
    button.addEventListener('blur', () => hideTip())
    return button
  }

  /* ---------- placing them ---------- */

  function schedule() {
    if (queued) return
    queued = true
    requestAnimationFrame(() => {
      queued = false
      layout()
    })
  }

  function layout() {
    if (pins.length) place()
    ns.afterLayout?.()
  }

  function docSize() {
    const el = document.documentElement
    return { width: el.scrollWidth, height: el.scrollHeight }
  }

  function place() {
    ensureLayer()
    const origin = host.getBoundingClientRect() // pins are placed relative to the layer
    const { slides, active } = ns.anchors.slideState()
    const page = docSize()
    const onSlides = {}
    let shown = 0
    for (const entry of drawn.values()) {
      const p = entry.pin
      if (stale || (entry.el && !entry.el.isConnected)) {
        const el = ns.pinAnchors.find(entry)
        if (el !== entry.el) {
          if (entry.el) resized?.unobserve(entry.el)
          if (el) resized?.observe(el)
          entry.el = el
        }
      }
      let x
      let y
      let visible
      const anchor = ns.pinAnchors.anchorOf(entry)
      if (entry.el) {
        const r = entry.el.getBoundingClientRect()
        x = r.left + (r.width * clampPercent(anchor.offsetX)) / 100
        y = r.top + (r.height * clampPercent(anchor.offsetY)) / 100
        visible = ns.anchors.visibleAt(entry.el, x, y)
        const slide = ns.anchors.slideIndexOf(entry.el, slides)
        if (slide !== undefined) onSlides[p.id] = slide
        x -= origin.left
        y -= origin.top
      } else {
        // The page percentage: a comment made before anchors whose selector names nothing, or
        // one whose element is gone.
        x = (clampPercent(p.x) / 100) * page.width
        y = (clampPercent(p.y) / 100) * page.height
        const slide = anchor?.slide
        visible = slide === undefined || active === undefined || slide === active
      }
      const { button } = entry
      button.hidden = !visible
      button.dataset.placed = entry.el ? 'element' : 'page'
      button.style.left = `${Math.round(x * 10) / 10}px`
      button.style.top = `${Math.round(y * 10) / 10}px`
      if (visible) shown++
    }
    stale = false
    host.setAttribute('data-pins-shown', String(shown))
    // The slide each pin's element is on now (a new version may have moved it): the share page
    // lists comments under it.
    const key = JSON.stringify(onSlides)
    if (key !== lastSlides) {
      lastSlides = key
      ns.post({ type: 'pin-slides', slides: onSlides })
    }
    if (tipFor) placeTip()
  }

  const clampPercent = (v) => (Number.isFinite(Number(v)) ? Math.min(100, Math.max(0, Number(v))) : 0)

  /* ---------- the tooltip: one for all pins, kept inside the frame's viewport ---------- */

  function fillTip(p) {
    const who = document.createElement('b')
    who.textContent = p.author || 'Guest'
    tip.replaceChildren(who, document.createTextNode(p.text || ''))
    for (const reply of Array.isArray(p.replies) ? p.replies : []) {
      const line = document.createElement('span')
      line.className = 'reply'
      const by = document.createElement('b')
      by.textContent = reply.author || 'Guest'
      line.append(by, document.createTextNode(reply.text || ''))
      tip.append(line)
    }
  }

  function showTip(id) {
    const entry = drawn.get(id)
    if (!entry || entry.button.hidden) return
    tipFor = id
    fillTip(entry.pin)
    tip.hidden = false
    placeTip()
  }

  function hideTip() {
    tipFor = null
    if (tip) tip.hidden = true
  }

  function placeTip() {
    const entry = drawn.get(tipFor)
    if (!entry || entry.button.hidden) return hideTip()
    const vw = document.documentElement.clientWidth || innerWidth
    const vh = document.documentElement.clientHeight || innerHeight
    tip.style.maxWidth = `${Math.max(120, Math.min(TIP_MAX, vw - 2 * MARGIN))}px`
    const pin = entry.button.getBoundingClientRect()
    const cx = pin.left + pin.width / 2
    const cy = pin.top + pin.height / 2
    const w = tip.offsetWidth
    const h = tip.offsetHeight
    // Right of the pin, else left of it, and never past the frame's edges (a phone is narrow).
    let left = cx + 20
    if (left + w > vw - MARGIN) left = cx - 20 - w
    left = Math.max(MARGIN, Math.min(left, vw - MARGIN - w))
    let top = cy - 12
    if (top + h > vh - MARGIN) top = vh - MARGIN - h
    top = Math.max(MARGIN, top)
    // A tooltip moved over its own pin would sit under the pointer: then it goes below the pin.
    if (left < cx + 14 && left + w > cx - 14 && top < cy + 14) top = Math.max(top, cy + 18)
    const origin = host.getBoundingClientRect()
    tip.style.left = `${left - origin.left}px`
    tip.style.top = `${top - origin.top}px`
  }

  /* ---------- focusing one (from the share page's list) ---------- */

  function focus(id, { navigated = false } = {}) {
    const entry = drawn.get(String(id))
    if (!entry) return
    if (stale) place() // the pins came with this message: find their elements first
    // The slide its element is on now, named the way this deck names slides; else where it was made.
    const slide = entry.el ? ns.anchors.slideIndexOf(entry.el, ns.anchors.slideState().slides) : undefined
    const anchor = ns.pinAnchors.anchorOf(entry)
    const hash = (slide !== undefined && ns.anchors.hashForSlide(slide, location.hash || anchor?.hash)) || anchor?.hash
    // On another slide of a deck whose framework we know: it shows that slide itself.
    const deck = ns.deck?.known()
    if (deck && slide !== undefined && deck.active() !== slide && !navigated) {
      deck.goTo(slide)
      setTimeout(() => {
        place()
        focus(id, { navigated: true })
      }, 450)
      return
    }
    if (entry.button.hidden && hash && hash !== location.hash && !navigated && !deck) {
      // On another slide: most decks follow the hash. If this one does not, the share page
      // loads the page again at that hash.
      location.hash = hash
      setTimeout(() => {
        place()
        if (entry.button.hidden) ns.post({ type: 'navigate', id: entry.pin.id, hash })
        else focus(id, { navigated: true })
      }, 450)
      return
    }
    const r = entry.button.getBoundingClientRect()
    const outside = r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth
    // Scrolled away, or hidden in a scroll container: bring the element into view (never on a
    // slide the deck hides: scrolling its box would shift the slide; a slide of a column, laid out
    // like the rest of the page, is scrolled to).
    const { active } = ns.anchors.slideState()
    const elsewhere = entry.button.hidden && slide !== undefined && active !== undefined && slide !== active
    if ((outside || entry.button.hidden) && !elsewhere) {
      const smooth = !matchMedia('(prefers-reduced-motion: reduce)').matches
      ;(entry.el || entry.button).scrollIntoView({ block: 'center', inline: 'nearest', behavior: smooth ? 'smooth' : 'auto' })
    }
    const { button } = entry
    button.classList.remove('flash')
    void button.offsetWidth // restart the animation when the same pin is focused twice
    button.classList.add('flash')
    showTip(entry.pin.id)
    setTimeout(() => {
      button.classList.remove('flash')
      if (tipFor === entry.pin.id && !button.matches(':hover, :focus')) hideTip()
    }, 1600)
  }

  /* ---------- what makes them move ---------- */

  const WATCHED = ['class', 'style', 'hidden', 'open', 'aria-current', 'aria-hidden', 'aria-selected', 'aria-expanded', 'data-state']

  // Our own layer going in (or its count changing) is no change of the folio's.
  const isOurs = (r) =>
    r.target === host || (r.type === 'childList' && r.target === document.documentElement && [...r.addedNodes, ...r.removedNodes].every((n) => n === host))

  function start() {
    new MutationObserver((records) => {
      let moved = false
      for (const r of records) {
        if (isOurs(r)) continue
        moved = true
        if (r.type !== 'attributes') stale = true // elements came or went: look them up again
      }
      if (moved) schedule()
    }).observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: WATCHED })
    if (resized) {
      resized.observe(document.documentElement)
      if (document.body) resized.observe(document.body)
    }
    const opts = { capture: true, passive: true }
    for (const type of ['scroll', 'transitionend', 'animationend', 'toggle', 'load']) document.addEventListener(type, schedule, opts)
    for (const type of ['resize', 'hashchange', 'popstate', 'load']) window.addEventListener(type, schedule)
    document.fonts?.ready.then(schedule, () => {})
    // Anything else (a canvas redraw moving a DOM label, :hover rules): a slow look, while there are pins.
    setInterval(() => {
      if (pins.length) schedule()
    }, 1000)
    schedule()
  }

  ns.pins = { set, focus, start, schedule, isHost: (el) => el === host }
}
