import { networkInterfaces } from 'node:os'

/** Same scheme, host and port, spelled the same. sameServer is the test for keys and links. */
export function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}

/**
 * The same server by any name: the same scheme and port, and the same host or two names of this
 * machine (`localhost`, 127.x.x.x, `[::1]`, the machine's own addresses). `folio serve` prints
 * 127.0.0.1 and people type localhost: both reach the one listener on that port, so a link or a
 * login saved under one name holds for the other. Anything else is another server and never gets
 * a key saved for this one: another port or scheme (another program), or a host that is not this
 * machine (a DNS name other than localhost may point anywhere, so only addresses count).
 */
export function sameServer(a: string, b: string): boolean {
  const x = parse(a)
  const y = parse(b)
  if (!x || !y || x.protocol !== y.protocol || portOf(x) !== portOf(y)) return false
  const hostX = hostOf(x)
  const hostY = hostOf(y)
  return hostX === hostY || (isThisMachineHost(hostX) && isThisMachineHost(hostY))
}

/** Whether the URL's host is this machine (see sameServer): a request to it never leaves the machine. */
export function isThisMachine(url: string): boolean {
  const parsed = parse(url)
  return Boolean(parsed && isThisMachineHost(hostOf(parsed)))
}

function parse(value: string): URL | undefined {
  try {
    return new URL(value)
  } catch {
    return undefined
  }
}

const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '')

/** The host as an address or a name: no brackets, no trailing dot, IPv4-mapped IPv6 as IPv4. (URL has already lowered the case and written 0x7f.1 as 127.0.0.1.) */
function hostOf(url: URL): string {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host)
  if (!mapped) return host
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)]
  return [high >> 8, high & 255, low >> 8, low & 255].join('.')
}

function isThisMachineHost(host: string): boolean {
  // 0.0.0.0 and :: are where a server listens on every address; connecting to them reaches this machine.
  if (host === 'localhost' || host === '::1' || host === '0.0.0.0' || host === '::' || /^127\.\d+\.\d+\.\d+$/.test(host)) return true
  return ownAddresses().includes(host)
}

/**
 * This machine's addresses, read at each call (they change as networks come and go), written as
 * URL hostnames are. Link-local IPv6 (fe80::) is left out: without its interface it names no
 * one address.
 */
function ownAddresses(): string[] {
  let interfaces: ReturnType<typeof networkInterfaces>
  try {
    interfaces = networkInterfaces()
  } catch {
    return [] // some sandboxes refuse to list interfaces: then only the loopback names count
  }
  return Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((entry) => !/^fe80:/i.test(entry.address))
    .map((entry) => {
      const url = parse(`http://${entry.address.includes(':') ? `[${entry.address}]` : entry.address}`)
      return url ? hostOf(url) : entry.address
    })
}
