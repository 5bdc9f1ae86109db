import { isIP } from 'node:net'

/**
 * Is this Host header one of the server's own names? Guards the open OSS API against DNS
 * rebinding: a page at attacker.example whose name is re-pointed to 127.0.0.1 becomes "same
 * origin" with the server, so its requests carry no foreign Origin (a GET carries none at all).
 * Only the Host header still gives it away. IP literals cannot be rebound and `localhost` names
 * resolve locally; any other name must be listed (FOLIO_ALLOWED_HOSTS, or serve --host <name>).
 */
export function isOwnHost(host: string | null | undefined, allowedHosts: readonly string[]): boolean {
  // Programs speaking HTTP/1.0 may send none; browsers always do.
  if (!host) return true
  const name = hostName(host)
  if (name === undefined) return false
  if (isIP(name) !== 0) return true
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  return allowedHosts.includes(name)
}

/** `Example.com:3000` → `example.com`; `[::1]:3000` → `::1`; undefined when malformed. */
function hostName(host: string): string | undefined {
  const trimmed = host.trim().toLowerCase()
  if (trimmed.startsWith('[')) {
    const end = trimmed.indexOf(']')
    return end === -1 ? undefined : trimmed.slice(1, end)
  }
  const colon = trimmed.lastIndexOf(':')
  const name = colon === -1 ? trimmed : trimmed.slice(0, colon)
  return name.endsWith('.') ? name.slice(0, -1) : name
}

/** FOLIO_ALLOWED_HOSTS="folio.lan,mybox": extra names this server answers to without a key. */
export function allowedHostsFromEnv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean)
}
