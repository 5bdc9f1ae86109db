/**
 * What people type for a server: a URL, or just `host[:port]` (`localhost:3000`, `nas:3000`,
 * `folio.example.com`). Without a scheme, http:// goes to what is surely on this machine or this
 * network (localhost, an IP address, a name without a dot, .local/.lan/.internal/.home.arpa
 * names) and https:// to everything else: a public name is served over TLS, and a key must not
 * travel in the clear because a scheme was left out. Anything else is spelled out in full.
 */
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i
const HOST_AND_PORT = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:\d{1,5})?$/i
const LOCAL_SUFFIXES = ['.localhost', '.local', '.lan', '.internal', '.home.arpa']

/** Why a value is not a server URL: not http(s), or not a URL at all. */
export type ServerUrlProblem = 'scheme' | 'invalid'

export function isLocalHostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '')
  if (name === 'localhost' || name.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || !name.includes('.')) return true
  return LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix))
}

/** The server's URL without trailing slashes, or what is wrong with the value. */
export function normalizeServerUrl(raw: string): { url: string } | { problem: ServerUrlProblem } {
  let value = raw.trim()
  if (!SCHEME.test(value)) {
    const [hostAndPort = '', ...rest] = value.split(/(?=[/?#])/)
    if (!HOST_AND_PORT.test(hostAndPort)) return { problem: 'invalid' }
    const host = hostAndPort.replace(/:\d+$/, '')
    value = `${isLocalHostName(host) ? 'http' : 'https'}://${hostAndPort}${rest.join('')}`
  } else if (!/^https?:\/\//i.test(value)) return { problem: 'scheme' }
  try {
    new URL(value)
  } catch {
    return { problem: 'invalid' }
  }
  return { url: value.replace(/\/+$/, '') }
}
