/**
 * If-None-Match against a strong ETag (RFC 9110 13.1.2): a list of tags or `*`, compared
 * weakly, so `W/"x"` and `"a", "x"` match `"x"` as browsers and proxies expect.
 */
export function noneMatchHits(header: string | null | undefined, etag: string | undefined): boolean {
  if (!header || !etag) return false
  if (header.trim() === '*') return true
  for (const candidate of header.split(',')) {
    const tag = candidate.trim()
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true
  }
  return false
}
