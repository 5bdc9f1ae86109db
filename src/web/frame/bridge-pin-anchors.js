/*
 * folio bridge, part: the anchor a pin is drawn by.
 *
 * A pin made in the share page carries the anchor bridge-anchors.js made for the click. A comment
 * posted through the API or MCP names its element with the spec's `selector` instead; its x/y are
 * percentages of the page, which say nothing of where the element is at another width or which
 * slide it is on (issue 24). Such a comment gets here the anchor a click on the centre of that
 * element would have made, so it is drawn, hidden and listed under its slide exactly as a pin
 * made in the page. The spec's x/y are a canvas position, not a place inside the element: they
 * stay the fallback, used while the selector names nothing.
 *
 * Bundled into the bridge (bridge.js calls it); shares only the bridge's namespace.
 */
/** Adds `ns.pinAnchors` to the bridge's namespace (after installAnchors). */
export function installPinAnchors(ns) {
  /** The element an API comment's selector names, or null: none, the whole page, or ours. */
  function named(selector) {
    if (typeof selector !== 'string' || !selector.trim()) return null
    let el
    try {
      el = document.querySelector(selector)
    } catch {
      return null // an agent's selector the browser cannot parse names nothing
    }
    // <body> or <html> is the whole page (the share page sends 'body' for a click it could not
    // anchor): the x/y say more than its centre would.
    if (!el || el === document.body || el === document.documentElement) return null
    if (ns.isOwn(el)) return null
    return el
  }

  /**
   * The anchor of a click on the centre of `el`, less what described the moment of a click that
   * never happened: the frame's hash and viewport then, and the slide on screen when the
   * element's own cannot be told (the element need not be on screen at all).
   */
  function anchorOn(el, fallbackSelector) {
    const r = el.getBoundingClientRect()
    // No selector of ours names it alone (a structural path that is not unique): the comment's does.
    const made = ns.anchors.make(el, r.left + r.width / 2, r.top + r.height / 2) ?? {
      selector: fallbackSelector,
      offsetX: 50,
      offsetY: 50,
    }
    const { hash: _hash, viewport: _viewport, slide: _slide, ...anchor } = made
    // The centre, whatever make() measured (an element on a hidden slide has no box to measure).
    anchor.offsetX = 50
    anchor.offsetY = 50
    const slide = ns.anchors.slideIndexOf(el, ns.anchors.slideState().slides)
    if (slide !== undefined) anchor.slide = slide
    return anchor
  }

  /**
   * The element pin `entry` belongs on now, or null (then it falls back to x/y). Sets
   * `entry.made`, the anchor made here for a comment that came without one: once made it is
   * followed as a share-page pin's would be (its quote finds the element if a script rebuilds
   * it), and made again from the selector only when it finds nothing.
   */
  function find(entry) {
    const { pin } = entry
    if (pin.anchor && typeof pin.anchor === 'object') {
      entry.made = undefined
      return ns.anchors.resolve(pin.anchor)
    }
    if (entry.made) {
      const el = ns.anchors.resolve(entry.made)
      if (el) return el
    }
    const el = named(pin.selector)
    // Not there (yet: a script may build it): keep the anchor made before, if any, for its slide.
    if (el) entry.made = anchorOn(el, pin.selector)
    return el
  }

  /** What places and focuses the pin: the share page's anchor, else the one made here. */
  const anchorOf = (entry) => (entry.pin.anchor && typeof entry.pin.anchor === 'object' ? entry.pin.anchor : entry.made)

  ns.pinAnchors = { find, anchorOf }
}
