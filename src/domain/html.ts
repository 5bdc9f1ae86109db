/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * A new folio's description when none is given: the spec's generic multi-page text for a folio
 * of several pages, but a single page is not called multi-page.
 */
export function defaultDescription(paths: string[]): string {
  const pages = paths.filter((p) => /\.html?$/i.test(p)).length
  if (pages > 1) return 'A multi-page HTML folio.'
  if (pages === 1) return 'A single-page HTML folio.'
  return 'An HTML folio.'
}
