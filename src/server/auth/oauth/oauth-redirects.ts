/**
 * Redirect URIs (RFC 6749 §3.1.2, RFC 8252 for native apps, OAuth 2.1): what a client may
 * register, and whether an authorization request's URI is one of them.
 */

/** Loopback hosts as URL.hostname gives them (IPv6 keeps its brackets). */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost'])

/** Why a URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return `${JSON.stringify(uri.slice(0, 200))} is not an absolute URI`
  }
  if (url.hash || uri.includes('#')) return `${uri} has a fragment`
  const scheme = url.protocol.slice(0, -1)
  if (['javascript', 'data', 'file', 'blob', 'vbscript'].includes(scheme)) return `${scheme}: URIs cannot receive a code`
  // https anywhere; http only back to this machine (RFC 8252 §7.3); a private-use scheme
  // (com.example.app:/cb, cursor://…) is a native app's own (RFC 8252 §7.1).
  if (scheme === 'http' && !LOOPBACK.has(url.hostname)) return `${uri}: plain http is for loopback addresses only (use https)`
  return undefined
}

/**
 * The requested URI is a registered one exactly, or a registered loopback http URI with another
 * port: RFC 8252 §7.3 says the port of a loopback redirect MUST be allowed to vary (apps take a
 * free one at each sign-in). Scheme, host, path and query must match all the same.
 */
export function redirectUriRegistered(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true
  let asked: URL
  try {
    asked = new URL(requested)
  } catch {
    return false
  }
  if (asked.protocol !== 'http:' || !LOOPBACK.has(asked.hostname) || asked.hash) return false
  return registered.some((uri) => {
    const known = new URL(uri)
    return known.protocol === 'http:' && known.hostname === asked.hostname && known.pathname === asked.pathname && known.search === asked.search
  })
}
