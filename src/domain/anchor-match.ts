import { type AnyNode, type Document, type Element, isTag, isText } from 'domhandler'
import { parse } from 'parse5'
import { adapter } from 'parse5-htmlparser2-tree-adapter'
import type { CommentAnchor } from './model.js'
import { robustSelector, safeSelectOne } from './robust-selector.js'

/**
 * Finding a pin's element again in a new version of its page (issue 9). The page is parsed as
 * a browser does (parse5: implied tbody, foster-parented table content, auto-closed p), so a
 * structural selector made in the browser means the same here; css-select runs the selectors.
 *
 * Text is compared with all whitespace removed: the share page's quote is the element's text
 * with whitespace collapsed, and whether a browser puts a space between two cells depends on
 * innerText or textContent; neither changes which characters the element holds.
 */

/** A quote this long was cut by the share page: compare the start of the element's text only. */
export const QUOTE_MAX = 300
/** How alike two texts must be (Dice over character pairs) to be the same element edited. */
const SAME_TEXT = 0.6
/** Elements whose text a pin never means. */
const NO_TEXT = new Set(['script', 'style', 'template', 'noscript', 'head'])

export interface ParsedPage {
  doc: Document
  /** Each element's text without whitespace, computed when first asked. */
  keys: Map<Element, string>
  /** Characters of text under each element, without whitespace (one walk, lazily). */
  lengths?: Map<Element, number>
}

export function parsePage(html: string): ParsedPage {
  return { doc: parse(html, { treeAdapter: adapter }), keys: new Map() }
}

export type Relocation =
  /** The element is there: under `selector` (the old one when it still fits, else a new one). */
  | { found: true; selector: string }
  /**
   * Not found. `judged`: the element was in the page's HTML before, so it is gone; false when it
   * was not there either (a script builds it): nothing here can tell, the pin stays as it was.
   */
  | { found: false; judged: boolean }

/** Where the anchored element is in `page`; `before` is the page it was last found on. */
export function relocate(page: ParsedPage, anchor: Pick<CommentAnchor, 'selector' | 'quote'>, before?: ParsedPage): Relocation {
  const quote = anchor.quote ? textKey(anchor.quote) : ''
  const cut = (anchor.quote?.length ?? 0) >= QUOTE_MAX - 1 || (anchor.quote ?? '').endsWith('…')
  const wanted = cut ? quote.replace(/…$/, '') : quote
  const original = before ? safeSelectOne(anchor.selector, before.doc) : null
  const tag = original?.name ?? tagOf(anchor.selector)

  const atSelector = safeSelectOne(anchor.selector, page.doc)
  const keep = { found: true, selector: anchor.selector } as const
  const moved = (el: Element) => ({ found: true, selector: robustSelector(el, page.doc) }) as const
  if (!wanted) {
    // Nothing to compare but the tag (an image, a chart's shape): the selector decides.
    if (atSelector && (tag === undefined || atSelector.name === tag)) return keep
  } else {
    // The same text under the old selector; else the same text elsewhere (the element moved,
    // something else took its place); else the old place edited a little; else the most alike.
    const similarity = atSelector ? likeness(page, atSelector, wanted, cut) : 0
    if (similarity === 1) return keep
    const exact = search(page, wanted, cut, tag, true)
    if (exact) return moved(exact)
    if (similarity >= SAME_TEXT) return keep
    const similar = search(page, wanted, cut, tag, false)
    if (similar) return moved(similar)
  }
  const wasThere = original !== null || (before !== undefined && wanted !== '' && search(before, wanted, cut, tag, false) !== undefined)
  return { found: false, judged: wasThere }
}

/** How alike an element's text is to the quote: 1 when equal. */
function likeness(page: ParsedPage, el: Element, wanted: string, cut: boolean): number {
  const key = keyOf(page, el)
  return dice(cut ? key.slice(0, wanted.length) : key, wanted)
}

/**
 * The element whose own text is the quote: an exact match first, else the most alike; the same
 * tag as before wins a tie, then the innermost (a wrapper holds the same text as its child).
 */
function search(page: ParsedPage, wanted: string, cut: boolean, tag: string | undefined, exactOnly: boolean): Element | undefined {
  const lengths = lengthsOf(page)
  let best: { el: Element; score: number; depth: number } | undefined
  const consider = (el: Element, depth: number) => {
    const length = lengths.get(el) ?? 0
    // Texts this far apart in length cannot be equal, or reach SAME_TEXT: skip them unread.
    if (exactOnly ? length < wanted.length || (!cut && length !== wanted.length) : length * 2.4 < wanted.length || (!cut && length > wanted.length * 2.4))
      return
    const similarity = likeness(page, el, wanted, cut)
    if (similarity < (exactOnly ? 1 : SAME_TEXT)) return
    const score = similarity + (el.name === tag ? 0.05 : 0)
    if (!best || score > best.score || (score === best.score && depth > best.depth)) best = { el, score, depth }
  }
  walk(page.doc, 0, consider)
  return best?.el
}

function walk(node: AnyNode, depth: number, visit: (el: Element, depth: number) => void): void {
  if (!('children' in node)) return
  for (const child of node.children) {
    if (!isTag(child) || NO_TEXT.has(child.name)) continue
    if (child.name !== 'html' && child.name !== 'body') visit(child, depth)
    walk(child, depth + 1, visit)
  }
}

/** Characters of text (no whitespace) under every element, bottom-up in one walk. */
function lengthsOf(page: ParsedPage): Map<Element, number> {
  if (page.lengths) return page.lengths
  const lengths = new Map<Element, number>()
  const count = (node: AnyNode): number => {
    if (isText(node)) return textKey(node.data).length
    if (!isTag(node) && !('children' in node)) return 0
    if (isTag(node) && NO_TEXT.has(node.name)) return 0
    let n = 0
    for (const child of (node as Element).children) n += count(child)
    if (isTag(node)) lengths.set(node, n)
    return n
  }
  count(page.doc)
  page.lengths = lengths
  return lengths
}

function keyOf(page: ParsedPage, el: Element): string {
  let key = page.keys.get(el)
  if (key === undefined) {
    const parts: string[] = []
    const collect = (node: AnyNode) => {
      if (isText(node)) parts.push(node.data)
      else if (isTag(node) && !NO_TEXT.has(node.name)) for (const child of node.children) collect(child)
    }
    collect(el)
    page.keys.set(el, (key = textKey(parts.join(''))))
  }
  return key
}

export const textKey = (text: string) => text.replace(/\s+/g, '')

/** The tag a selector's last step names (`td:nth-of-type(3)` → td), if it names one. */
function tagOf(selector: string): string | undefined {
  const last =
    selector
      .trim()
      .split(/\s*[\s>+~]\s*/)
      .pop() ?? ''
  return /^([a-zA-Z][\w-]*)/.exec(last)?.[1]?.toLowerCase()
}

/** Dice coefficient over character pairs: 1 for equal texts, 0 for nothing in common. */
export function dice(a: string, b: string): number {
  if (a === b) return 1
  if (a.length < 2 || b.length < 2) return 0
  const pairs = new Map<string, number>()
  for (let i = 0; i < a.length - 1; i++) {
    const pair = a.slice(i, i + 2)
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1)
  }
  let shared = 0
  for (let i = 0; i < b.length - 1; i++) {
    const pair = b.slice(i, i + 2)
    const left = pairs.get(pair) ?? 0
    if (left > 0) {
      pairs.set(pair, left - 1)
      shared++
    }
  }
  return (2 * shared) / (a.length + b.length - 2)
}
