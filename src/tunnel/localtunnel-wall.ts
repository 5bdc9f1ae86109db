import { isIP } from 'node:net'
import { messageOf, type TunnelWall } from './providers.js'

/**
 * The public localtunnel server (localtunnel.me; its tunnels are *.loca.lt) shows every browser
 * viewer a reminder page before the site, asking for a "tunnel password": the public IP address
 * of the machine that runs the tunnel, once per viewer address every 7 days. Requests with a
 * non-browser User-Agent or a Bypass-Tunnel-Reminder header skip it. Its documented way to learn
 * the password is a page of its own, fetched from the tunnel's machine.
 */
const PUBLIC_SERVERS = ['localtunnel.me', 'loca.lt']
const PUBLIC_PASSWORD_URL = 'https://loca.lt/mytunnelpassword'
const FETCH_TIMEOUT_MS = 5_000

/**
 * Where the password of this server's reminder page is read: the operator's setting
 * (FOLIO_TUNNEL_PASSWORD_URL, for a server of their own that has the page too), else the public
 * server's page for the public server. Undefined for any other server: nothing is claimed.
 */
export function passwordUrlFor(host: string, configured?: string): string | undefined {
  if (configured) return configured
  const hostname = URL.parse(host)?.hostname.toLowerCase() ?? ''
  return PUBLIC_SERVERS.some((name) => hostname === name || hostname.endsWith(`.${name}`)) ? PUBLIC_PASSWORD_URL : undefined
}

/** What viewers of a tunnel through `host` meet first; undefined for a server without the page. */
export async function localtunnelWall(host: string, configured: string | undefined, signal: AbortSignal): Promise<TunnelWall | undefined> {
  const url = passwordUrlFor(host, configured)
  if (!url) return undefined
  let password: string | null = null
  let why = ''
  try {
    const response = await fetch(url, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]),
      headers: { 'bypass-tunnel-reminder': 'folio' },
    })
    const text = (await response.text()).trim()
    if (response.ok && isIP(text)) password = text
    else why = response.ok ? 'its answer was not an IP address' : `HTTP ${response.status}`
  } catch (error) {
    if (signal.aborted) throw signal.reason
    why = messageOf(error)
  }
  return { password, notice: wallNotice(password, url, why) }
}

function wallNotice(password: string | null, url: string, why: string): string {
  const page = "Viewers who open the link in a browser first see localtunnel's reminder page (once per viewer's address every 7 days)"
  if (password) return `${page}: tell them the tunnel password is ${password}.`
  return `${page}, which asks for this machine's public IP address; folio could not read it from ${url} (${why}). A Cloudflare tunnel has no such page: folio tunnel start --provider cloudflare.`
}
