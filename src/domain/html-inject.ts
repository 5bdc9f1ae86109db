/** Puts `snippet` before the last </body> (or </html>), else at the end: where a script runs last. */
export function injectBeforeBodyEnd(html: string, snippet: string): string {
  const lower = html.toLowerCase()
  for (const tag of ['</body>', '</html>']) {
    const at = lower.lastIndexOf(tag)
    if (at !== -1) return html.slice(0, at) + snippet + html.slice(at)
  }
  return html + snippet
}

/** JSON safe inside <script type="application/json">: nothing in it can close the tag. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

/**
 * Puts `snippet` where a script runs before any of the page's own: after a leading doctype,
 * `<html …>` and `<head …>` (each if present, in that order, comments and spaces between them
 * skipped), never before the doctype (that would put the page in quirks mode). Only the start of
 * the page is read: a "<head" written later, in a script or a comment, is never taken for it.
 */
export function injectAtDocumentStart(html: string, snippet: string): string {
  let at = html.charCodeAt(0) === 0xfeff ? 1 : 0
  const skip = (pattern: RegExp) => {
    pattern.lastIndex = at
    const m = pattern.exec(html)
    if (m) at += m[0].length
    return Boolean(m)
  }
  const skipSpace = () => {
    while (skip(/\s+|<!--[\s\S]*?-->|<\?[^>]*>/y));
  }
  const ATTRIBUTES = `(?:"[^"]*"|'[^']*'|[^'">])*`
  skipSpace()
  skip(/<!doctype[^>]*>/iy)
  skipSpace()
  skip(new RegExp(`<html(?:\\s${ATTRIBUTES})?>`, 'iy'))
  skipSpace()
  skip(new RegExp(`<head(?:\\s${ATTRIBUTES})?>`, 'iy'))
  return html.slice(0, at) + snippet + html.slice(at)
}

/** A script's source inline in <script>; one that could end the element early is refused. */
export function inlineScript(source: string): string {
  if (/<\/script|<!--/i.test(source)) throw new Error('This script cannot be inlined as it is: it holds </script or <!--')
  return `<script>${source}</script>`
}
