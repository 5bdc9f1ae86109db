/*
 * folio bridge, part: which part of the folio is on screen, for the author's analytics. A deck's
 * part is its slide (as deck.js or bridge-anchors.js tell it); a document's is its section, the
 * stretch under one of its top headings. Counted from 1, with a short title (the slide's or the
 * section's first heading) so the author sees "slide 7 · Pricing", not just a number.
 *
 * Bundled into the bridge (bridge.js calls it); shares only the bridge's namespace.
 */

const TITLE_MAX = 120
/** A document needs this many top headings to be read as sections. */
const MIN_SECTIONS = 2

const clean = (text) => (text || '').replace(/\s+/g, ' ').trim().slice(0, TITLE_MAX) || undefined

/** Adds `ns.parts()` → { kind: 'slides' | 'sections', index, count, title } or undefined. */
export function installParts(ns) {
  let headings = null // cached: a document's headings do not change while it is read, mostly
  let headingsAt = 0

  function slideTitle(slide) {
    if (!slide) return undefined
    const heading = slide.querySelector('h1, h2, h3, [class*="title" i]')
    return clean(heading?.textContent)
  }

  function slides() {
    const state = ns.anchors?.slideState()
    if (!state || state.active === undefined) return undefined
    const list = state.slides ?? ns.deck?.known()?.slides?.() ?? null
    if (!list || list.length < 2) return undefined
    const index = Math.min(state.active, list.length - 1)
    return { kind: 'slides', index: index + 1, count: list.length, title: slideTitle(list[index]) }
  }

  /** The top level of headings the document uses (h1 when it has several, else h2). */
  function sectionHeadings() {
    if (headings && Date.now() - headingsAt < 5000) return headings
    headingsAt = Date.now()
    for (const level of ['h1', 'h2']) {
      const found = [...document.querySelectorAll(level)].filter((h) => h.getClientRects().length > 0)
      if (found.length >= MIN_SECTIONS) return (headings = found)
    }
    return (headings = [])
  }

  function sections() {
    const list = sectionHeadings()
    if (list.length < MIN_SECTIONS) return undefined
    // The section being read: the last heading above a line a third of the way down the viewport.
    const line = innerHeight / 3
    let index = 0
    for (let i = 0; i < list.length; i++) {
      if (list[i].getBoundingClientRect().top <= line) index = i
      else break
    }
    return { kind: 'sections', index: index + 1, count: list.length, title: clean(list[index].textContent) }
  }

  ns.parts = () => slides() ?? sections()
}
