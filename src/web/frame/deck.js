/*
 * folio bridge, part: the deck as its own framework sees it.
 *
 * Guessing the slide on screen from classes and hashes fails where a framework lays slides out
 * its own way: reveal.js on a phone switches to its scroll view, which moves every slide into
 * pages of its own and marks none the way its desktop view does. Where the page runs a framework
 * we know, its API says which slide an element is on, which one the viewer sees, and shows one.
 * Anything else falls back to bridge-anchors.js's reading of the page.
 *
 * Bundled into the bridge (bridge.js calls it); shares only the bridge's namespace.
 */

/** Adds `ns.deck`: known() → { active(), slides(), slideOf(el), goTo(index) } for a framework in charge, else undefined. */
export function installDeck(ns, onChange) {
  let listening = null

  /** reveal.js 4–6: slides are its horizontal indices (a vertical stack is one slide). */
  function reveal() {
    const R = window.Reveal
    if (!R || typeof R.getIndices !== 'function' || typeof R.slide !== 'function') return undefined
    if (listening !== R && typeof R.on === 'function') {
      listening = R
      for (const type of ['ready', 'slidechanged', 'scrollviewactivate', 'scrollviewdeactivate', 'resize', 'overviewhidden']) {
        try {
          R.on(type, onChange)
        } catch {
          // an older reveal without that event
        }
      }
    }
    if (typeof R.isReady === 'function' && !R.isReady()) return undefined
    return {
      active: () => R.getIndices().h,
      /** The horizontal slides (a vertical stack is one), for their count and titles. */
      slides: () => (typeof R.getHorizontalSlides === 'function' ? [...R.getHorizontalSlides()] : null),
      slideOf(el) {
        const section = el instanceof Element ? el.closest('.reveal .slides section') : null
        if (!section) return undefined
        const h = R.getIndices(section).h
        return Number.isInteger(h) && h >= 0 ? h : undefined
      },
      goTo(index) {
        // The vertical index too: in its scroll view reveal moves only when given both.
        R.slide(index, 0)
        return true
      },
    }
  }

  ns.deck = {
    known: () => reveal(),
  }
}
