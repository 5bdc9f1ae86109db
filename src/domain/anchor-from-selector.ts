import { type AnyNode, type Element, isTag, isText } from 'domhandler'
import { parse, parseFragment } from 'parse5'
import { adapter } from 'parse5-htmlparser2-tree-adapter'
import { QUOTE_MAX } from './anchor-match.js'
import type { CommentAnchor } from './model.js'
import { safeSelectOne } from './robust-selector.js'

/**
 * A comment made through the API or MCP names its element by the spec's `selector` (and maybe
 * `elementHtml`), not by an anchor the share page made from a click. It gets the anchor such a
 * click would have made: the selector, and the element's text as its quote, so the bridge finds
 * it again where a deck's script rebuilt the page and re-anchoring follows it across versions
 * (store/repositories/comment-anchors.ts) as any pin. The quote comes from the page when the selector names an
 * element there, else from elementHtml; the pin sits at the element's centre (x/y are a place on
 * the page, the fallback while no element matches). Undefined: nothing to anchor on.
 */
export function anchorFromSelector(html: string, selector: string, elementHtml?: string): CommentAnchor | undefined {
  const trimmed = selector.trim()
  // body/html: the share page's "no element" (a click it could not anchor): x/y say where.
  if (!trimmed || /^(html|body)$/i.test(trimmed)) return undefined
  const doc = parse(html, { treeAdapter: adapter })
  const element = safeSelectOne(trimmed, doc)
  const fromHtml = () => {
    if (!elementHtml) return undefined
    return quoteOf(parseFragment(elementHtml, { treeAdapter: adapter }))
  }
  const quote = element ? quoteOf(element) : fromHtml()
  if (!element && !quote) return undefined
  return { selector: trimmed, ...(quote ? { quote } : {}), offsetX: 50, offsetY: 50 }
}

/** The text a share-page quote holds: whitespace collapsed, trimmed, cut at QUOTE_MAX. */
function quoteOf(node: AnyNode): string | undefined {
  const parts: string[] = []
  const walk = (n: AnyNode) => {
    if (isText(n)) parts.push(n.data)
    else if (isTag(n) && !['script', 'style', 'template', 'noscript'].includes((n as Element).name)) for (const child of n.children) walk(child)
    else if ('children' in n && !isTag(n)) for (const child of (n as { children: AnyNode[] }).children) walk(child)
  }
  walk(node)
  const text = parts.join(' ').replace(/\s+/g, ' ').trim()
  if (!text) return undefined
  return text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX - 1)}…` : text
}
