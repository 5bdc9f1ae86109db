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
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}
