import ipaddr from 'ipaddr.js'

/**
 * Which addresses the server may reach on a user's behalf (AI providers, web_fetch, chat
 * webhooks): public unicast ones only. The ranges are ipaddr.js's names (range()): anything but
 * 'unicast' is refused — loopback, private, linkLocal (the cloud's metadata address),
 * uniqueLocal, carrierGradeNat, unspecified, broadcast, multicast, reserved (the documentation
 * ranges 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 and 2001:db8::/32 among them),
 * benchmarking, NAT64 (rfc6052), 6to4, Teredo… An IPv4-mapped IPv6 address (::ffff:127.0.0.1)
 * is judged as the IPv4 address it carries (process()); the deprecated IPv4-compatible form
 * (::127.0.0.1, all of ::/96), which ipaddr.js calls unicast, is refused outright. Pure: the
 * server's outbound guard (server/http/outbound-guard.ts) applies it where sockets connect.
 */

/** ipaddr.js's name of the address's range ('unicast': public), or undefined when it is no IP address. */
export function addressRange(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '')
  if (!ipaddr.isValid(bare)) return undefined
  // ipaddr.js reads "::127.0.0.1" as IPv4-mapped; its bytes are ::7f00:1, IPv4-compatible.
  const dotted = /^::(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare)?.[1]
  if (dotted) return dotted === '0.0.0.0' ? 'unspecified' : dotted === '0.0.0.1' ? 'loopback' : 'ipv4Compatible'
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.process(bare)
  } catch {
    return undefined
  }
  // ::/96 but :: and ::1: IPv4-compatible (RFC 4291 §2.5.5.1, deprecated). Never a public host.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) {
    const range = parsed.range()
    return range === 'unicast' ? 'ipv4Compatible' : range
  }
  return parsed.range()
}

/** A public unicast address: the only kind reached without the operator's allowance. */
export const isPublicAddress = (address: string): boolean => addressRange(address) === 'unicast'

/** The URL's host as a resolver sees it: lower case, without IPv6 brackets or a trailing dot. */
export const hostOf = (url: URL): string =>
  url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase()

/** localhost and its subdomains (RFC 6761: they resolve to loopback, whatever DNS says). */
export const isLocalName = (host: string): boolean => host === 'localhost' || host.endsWith('.localhost')

/**
 * FOLIO_ALLOW_PRIVATE_HOSTS: what the operator lets through though it is not public, as host
 * names (the name the URL gives, wherever it resolves), addresses, or ranges in CIDR notation.
 */
export interface PrivateHosts {
  names: string[]
  ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>
}

export const NO_PRIVATE_HOSTS: PrivateHosts = { names: [], ranges: [] }

/** "ollama.internal, 10.0.0.5, fd00::/8": a malformed entry is refused loudly, never guessed at. */
export function privateHostsFrom(raw: string | undefined, name = 'FOLIO_ALLOW_PRIVATE_HOSTS'): PrivateHosts {
  const list: PrivateHosts = { names: [], ranges: [] }
  for (const entry of (raw ?? '')
    .split(',')
    .map((e) =>
      e
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, ''),
    )
    .filter(Boolean)) {
    if (/^[0-9a-f:.]+\/\d+$/.test(entry)) {
      try {
        list.ranges.push(ipaddr.parseCIDR(entry))
        continue
      } catch {
        throw new Error(`${name}: "${entry}" is not a range in CIDR notation (10.0.0.0/8, fd00::/8)`)
      }
    }
    if (ipaddr.isValid(entry)) {
      const address = ipaddr.process(entry)
      list.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128])
    } else if (/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(entry)) {
      list.names.push(entry.replace(/\.$/, ''))
    } else {
      throw new Error(`${name}: "${entry}" is neither a host name, an address nor a range`)
    }
  }
  return list
}

/** Whether the operator let this host (the URL's), or the address it resolved to, through. */
export function privateHostAllowed(list: PrivateHosts, host: string, address?: string): boolean {
  if (list.names.includes(host)) return true
  const candidates = [host, address].filter((a): a is string => a !== undefined && ipaddr.isValid(a))
  return candidates.some((candidate) => {
    const parsed = ipaddr.process(candidate)
    return list.ranges.some(([net, bits]) => parsed.kind() === net.kind() && parsed.match(net, bits))
  })
}
