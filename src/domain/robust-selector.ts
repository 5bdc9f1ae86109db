import { selectAll, selectOne } from 'css-select'
import { type Document, type Element, isTag } from 'domhandler'

/**
 * A selector for an element that survives edits around it, in the order the share page makes
 * one: its id, else one of its data attributes (with its tag), else a short structural path
 * (`tag:nth-of-type(n)` steps from the nearest ancestor with a unique id, else from body).
 * Each form is used only if it picks exactly this element.
 */
export function robustSelector(el: Element, doc: Document): string {
  const unique = (selector: string) => isOnly(el, selector, doc)
  const id = el.attribs.id
  if (id && unique(`#${cssEscape(id)}`)) return `#${cssEscape(id)}`
  for (const [name, value] of Object.entries(el.attribs)) {
    if (!name.startsWith('data-') || value.length > 100) continue
    const selector = `${el.name}[${cssEscape(name)}="${attributeValue(value)}"]`
    if (unique(selector)) return selector
  }
  const steps: string[] = []
  let node: Element | null = el
  while (node && node.name !== 'body' && node.name !== 'html') {
    const nodeId = node.attribs.id
    if (node !== el && nodeId && isOnly(node, `#${cssEscape(nodeId)}`, doc)) {
      steps.unshift(`#${cssEscape(nodeId)}`)
      return steps.join(' > ')
    }
    steps.unshift(`${node.name}:nth-of-type(${typeIndex(node)})`)
    node = isTag(node.parent as Element) ? (node.parent as Element) : null
  }
  const path = [node?.name === 'body' ? 'body' : 'html', ...steps].join(' > ')
  return safeSelectOne(path, doc) === el ? path : steps.join(' > ')
}

/** Whether `selector` picks exactly `el` in the document. */
function isOnly(el: Element, selector: string, doc: Document): boolean {
  const found = safeSelectAll(selector, doc)
  return found.length === 1 && found[0] === el
}

/** 1 + the number of earlier siblings with the same tag (what :nth-of-type counts). */
function typeIndex(el: Element): number {
  let n = 1
  for (let sibling = el.prev; sibling; sibling = sibling.prev) if (isTag(sibling) && sibling.name === el.name) n++
  return n
}

/** css-select throws on selectors it cannot parse (a viewer sent it): no match, not an error. */
export function safeSelectOne(selector: string, doc: Document): Element | null {
  try {
    return selectOne<Document | Element, Element>(selector, doc)
  } catch {
    return null
  }
}

export function safeSelectAll(selector: string, doc: Document): Element[] {
  try {
    return selectAll<Document | Element, Element>(selector, doc)
  } catch {
    return []
  }
}

/** A double-quoted CSS string's contents. */
function attributeValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\a ')
}

/** CSS.escape (CSSOM, "serialize an identifier"), which node does not have. */
export function cssEscape(value: string): string {
  let out = ''
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    const ch = value.charAt(i)
    if (code === 0) out += '\uFFFD'
    else if (
      (code >= 0x1 && code <= 0x1f) ||
      code === 0x7f ||
      (i === 0 && code >= 0x30 && code <= 0x39) ||
      (i === 1 && code >= 0x30 && code <= 0x39 && value.charCodeAt(0) === 0x2d)
    ) {
      out += `\\${code.toString(16)} `
    } else if (i === 0 && value.length === 1 && code === 0x2d) out += `\\${ch}`
    else if (
      code >= 0x80 ||
      code === 0x2d ||
      code === 0x5f ||
      (code >= 0x30 && code <= 0x39) ||
      (code >= 0x41 && code <= 0x5a) ||
      (code >= 0x61 && code <= 0x7a)
    )
      out += ch
    else out += `\\${ch}`
  }
  return out
}
