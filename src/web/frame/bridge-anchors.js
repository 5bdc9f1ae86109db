/*
 * folio bridge, part: anchors — where a pin belongs inside the folio, and finding that place again.
 *
 * An anchor is made when a viewer clicks in comment mode: the element (a selector that survives
 * other widths and slide changes: an id, else a data attribute, else nth-of-type steps from the
 * nearest ancestor that has one), a quote of its text, the offset of the click inside it in
 * percent, the frame's hash, the slide and the viewport. Finding it again tries the selector,
 * then the quote, so a pin follows its element when a new version moves it.
 *
 * Bundled into the bridge (bridge.js calls it); shares only the bridge's namespace.
 */
/** Adds `ns.anchors` to the bridge's namespace. */
export function installAnchors(ns) {
  const MAX_QUOTE = 300
  const MAX_SELECTOR = 2000
  const MAX_CANDIDATES = 5000
  // Data attributes that name a thing rather than a state: tried first, in this order.
  const NAMING_DATA = ['data-id', 'data-testid', 'data-test', 'data-key', 'data-name', 'data-label', 'data-slide', 'data-point', 'data-month', 'data-series']
  // How a deck marks the slide on screen (reveal.js: .present; Marp's bespoke: .bespoke-marp-active; ours: .active).
  const ACTIVE = '.active, .current, .is-active, .present, .bespoke-marp-active, [aria-current]:not([aria-current="false"])'

  const collapse = (s) =>
    String(s || '')
      .replace(/\s+/g, ' ')
      .trim()

  /** The element's text as a quote: trimmed, whitespace collapsed, at most 300 characters. */
  function textOf(el) {
    const text = collapse(el.textContent)
    if (text) return text.slice(0, MAX_QUOTE)
    // A chart point or an image has no text: its label is what a person would quote.
    const label = el.getAttribute('aria-label') || el.getAttribute('alt') || el.getAttribute('title') || el.getAttribute('data-label') || ''
    return collapse(label).slice(0, MAX_QUOTE)
  }

  /* ---------- selectors ---------- */

  function isUnique(selector, el) {
    try {
      const all = document.querySelectorAll(selector)
      return all.length === 1 && all[0] === el
    } catch {
      return false // a selector the browser cannot parse is no selector
    }
  }

  const tagOf = (el) => CSS.escape(el.localName)

  // Generated ids (chart libraries, frameworks) change from one build to the next.
  const looksGenerated = (id) => /\d{5,}|^[0-9a-f]{8}-[0-9a-f]{4}-|^(?:ember|react|radix|headlessui)[-_:]/i.test(id)

  function dataAttributes(el) {
    const rank = (name) => {
      const i = NAMING_DATA.indexOf(name)
      return i === -1 ? NAMING_DATA.length : i
    }
    return [...el.attributes]
      .filter((a) => a.name.startsWith('data-') && !a.name.startsWith('data-folio') && a.value && a.value.length <= 80)
      .sort((a, b) => rank(a.name) - rank(b.name))
  }

  /** A selector naming `el` alone by its own id or data attributes, or '' if it has none. */
  function ownSelector(el) {
    if (el.id && !looksGenerated(el.id) && isUnique(`#${CSS.escape(el.id)}`, el)) return `#${CSS.escape(el.id)}`
    for (const attr of dataAttributes(el)) {
      const selector = `${tagOf(el)}[${attr.name}="${CSS.escape(attr.value)}"]`
      if (isUnique(selector, el)) return selector
    }
    return ''
  }

  function nthOfType(el) {
    let i = 1
    for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === el.localName) i++
    return i
  }

  /** ids, then data attributes, then nth-of-type steps from the nearest ancestor that has one. */
  function selectorFor(el) {
    if (!(el instanceof Element) || el === document.body) return 'body'
    if (el === document.documentElement) return 'html'
    const own = ownSelector(el)
    if (own) return own
    const steps = []
    for (let node = el; node; node = node.parentElement) {
      if (node === document.body) {
        steps.unshift('body')
        break
      }
      if (node === document.documentElement) {
        steps.unshift('html')
        break
      }
      const stable = node === el ? '' : ownSelector(node)
      if (stable) {
        steps.unshift(stable)
        break
      }
      steps.unshift(`${tagOf(node)}:nth-of-type(${nthOfType(node)})`)
    }
    const path = steps.join(' > ')
    return isUnique(path, el) ? path : ''
  }

  /* ---------- slides ---------- */

  const outermost = (list) => list.filter((el) => !list.some((other) => other !== el && other.contains(el)))

  /** The slides of a deck, in order, or null when the page is not one we can tell. */
  function slideList() {
    const reveal = document.querySelectorAll('.reveal .slides > section')
    if (reveal.length > 1) return [...reveal]
    // Marp (marp-core, marp-cli): each slide is an <svg data-marpit-svg> holding its <section>.
    for (const selector of ['.slide', '[data-slide]', 'svg[data-marpit-svg]']) {
      const found = outermost([...document.querySelectorAll(selector)])
      if (found.length > 1) return found
    }
    const current = document.querySelector('section[aria-current]:not([aria-current="false"]), article[aria-current]:not([aria-current="false"])')
    if (current?.parentElement) {
      const siblings = [...current.parentElement.children].filter((el) => el.localName === current.localName)
      if (siblings.length > 1) return siblings
    }
    return null
  }

  /** "#3", "#/3", "#slide-3" → 2 (slides are counted from 1 in hashes, from 0 here). */
  function hashSlide() {
    const m = /^#\/?(?:slide[-_]?|page[-_]?|p)?(\d{1,4})$/i.exec(location.hash)
    return m ? Math.max(0, Number(m[1]) - 1) : undefined
  }

  /**
   * Of slides laid out one after the other (a phone's column, a deck without navigation): the
   * one that fills most of the viewport; undefined when none is on screen.
   */
  function mostInView(slides) {
    let best
    let bestArea = 0
    slides.forEach((slide, i) => {
      if (slide.checkVisibility && !slide.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return
      const r = slide.getBoundingClientRect()
      const w = Math.min(r.right, innerWidth) - Math.max(r.left, 0)
      const h = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)
      const area = w > 0 && h > 0 ? w * h : 0
      if (area > bestArea) {
        bestArea = area
        best = i
      }
    })
    return best
  }

  /** The deck's slides and the index of the one on screen (undefined when it cannot be told). */
  function slideState() {
    const deck = ns.deck?.known()
    if (deck) return { slides: null, active: deck.active() }
    const slides = slideList()
    let active
    if (slides) {
      const i = slides.findIndex((s) => s.matches(ACTIVE))
      if (i !== -1) active = i
    }
    if (active === undefined) {
      const n = hashSlide()
      if (n !== undefined && (!slides || n < slides.length)) active = n
    }
    if (active === undefined && slides) active = mostInView(slides)
    return { slides, active }
  }

  /** The slide `el` is on: as the deck's framework says, else by the slides found in the page. */
  function slideIndexOf(el, slides) {
    const deck = ns.deck?.known()
    if (deck) return deck.slideOf(el)
    if (!slides) return undefined
    const i = slides.findIndex((s) => s.contains(el))
    return i === -1 ? undefined : i
  }

  /* ---------- making an anchor ---------- */

  const percent = (part, whole) => (whole > 0 ? Math.round(Math.min(100, Math.max(0, (part / whole) * 100)) * 100) / 100 : 50)

  /** The anchor of a click at (clientX, clientY) on `el`, or undefined when it cannot be named. */
  function make(el, clientX, clientY) {
    const selector = selectorFor(el)
    if (!selector || selector.length > MAX_SELECTOR) return undefined
    const r = el.getBoundingClientRect()
    const { slides, active } = slideState()
    const anchor = {
      selector,
      offsetX: percent(clientX - r.left, r.width),
      offsetY: percent(clientY - r.top, r.height),
      viewport: { width: Math.round(innerWidth), height: Math.round(innerHeight) },
    }
    const quote = textOf(el)
    if (quote) anchor.quote = quote
    if (location.hash) anchor.hash = location.hash.slice(0, 200)
    // The element's own slide: on a phone a deck may show every slide in a column.
    const slide = slideIndexOf(el, slides) ?? active
    if (slide !== undefined) anchor.slide = slide
    return anchor
  }

  /* ---------- finding it again ---------- */

  function query(selector) {
    try {
      return selector ? document.querySelector(selector) : null
    } catch {
      return null
    }
  }

  /** The element name the selector ends with (td, circle, …), if it says one. */
  function lastTag(selector) {
    const last =
      String(selector || '')
        .split(/\s*[>+~\s]\s*/)
        .pop() || ''
    const m = /^([a-zA-Z][\w-]*)/.exec(last)
    return m ? m[1] : undefined
  }

  /** Elements whose quote is `quote`: by element name when known, else from the text nodes up. */
  function byQuote(quote, tag) {
    if (tag) {
      const all = document.getElementsByTagName(tag)
      if (all.length <= MAX_CANDIDATES) return [...all].filter((el) => !ns.isOwn(el) && textOf(el) === quote)
    }
    const found = []
    const head = quote.slice(0, 30)
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = collapse(node.data)
      if (!text || !(head.startsWith(text.slice(0, 30)) || text.startsWith(head))) continue
      for (let el = node.parentElement; el && el !== document.documentElement; el = el.parentElement) {
        const t = textOf(el)
        if (t === quote) {
          if (!found.includes(el)) found.push(el)
          break
        }
        if (t.length > quote.length) break // ancestors only get longer
      }
    }
    return found
  }

  const centre = (el) => {
    const r = el.getBoundingClientRect()
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 }
  }

  /** Of several elements with the quote: the one on the anchor's slide, else nearest the selector's. */
  function closest(candidates, near, anchor) {
    if (candidates.length < 2) return candidates[0] || null
    const { slides } = slideState()
    if (slides && anchor.slide !== undefined) {
      const same = candidates.filter((el) => slideIndexOf(el, slides) === anchor.slide)
      if (same.length) candidates = same
    }
    if (!near || candidates.length < 2) return candidates[0]
    const c = centre(near)
    const distance = (el) => {
      const p = centre(el)
      return Math.hypot(p.x - c.x, p.y - c.y)
    }
    return candidates.reduce((best, el) => (distance(el) < distance(best) ? el : best))
  }

  /** The element an anchor names in the page as it is now, or null (then the pin falls back to x/y). */
  function resolve(anchor) {
    if (!anchor || typeof anchor !== 'object') return null
    let el = query(anchor.selector)
    if (el && ns.isOwn(el)) el = null
    if (typeof anchor.quote !== 'string' || !anchor.quote) return el
    if (el && textOf(el) === anchor.quote) return el
    // The selector now names something else (rows moved, a slide was added): follow the text.
    return closest(byQuote(anchor.quote, lastTag(anchor.selector) || el?.localName), el, anchor) || el
  }

  /* ---------- visibility ---------- */

  const CLIPS = /^(hidden|scroll|auto|clip)$/

  function clips(el) {
    const cs = getComputedStyle(el)
    if (!CLIPS.test(cs.overflowX) && !CLIPS.test(cs.overflowY)) return false
    if (el !== document.body) return true
    // <body>'s overflow is the viewport's when <html> leaves it visible: then body clips nothing.
    const root = getComputedStyle(document.documentElement)
    return root.overflowX !== 'visible' || root.overflowY !== 'visible'
  }

  /**
   * Whether a pin at (x, y) (client coordinates) on `el` can be seen: the element is rendered
   * (not display:none, a closed tab or <details>, hidden, transparent or of no size) and no
   * ancestor that clips (a scroll container, a slide's box) cuts the point off.
   */
  function visibleAt(el, x, y) {
    if (!el.isConnected || el.getClientRects().length === 0) return false
    const r = el.getBoundingClientRect()
    if (r.width === 0 && r.height === 0) return false
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false
    for (let node = el; node && node !== document.documentElement; node = node.parentElement) {
      if (node !== el && clips(node)) {
        const b = node.getBoundingClientRect()
        if (x < b.left - 1 || x > b.right + 1 || y < b.top - 1 || y > b.bottom + 1) return false
      }
      // A fixed element leaves its ancestors' scrolling behind: none of them clips it.
      if (getComputedStyle(node).position === 'fixed') break
    }
    return true
  }

  /** A hash that shows slide `index` the way `like` (a hash this deck uses) names slides, if it does. */
  function hashForSlide(index, like) {
    const m = /^#(\/?(?:slide[-_]?|page[-_]?|p)?)(\d{1,4})$/i.exec(like || '')
    return m ? `#${m[1]}${index + 1}` : undefined
  }

  ns.anchors = { make, resolve, slideState, slideIndexOf, visibleAt, selectorFor, hashForSlide }
}
