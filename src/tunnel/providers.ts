/**
 * The ways folio makes this server public. One runs at a time; the last one chosen is remembered
 * in settings (`tunnel.provider`) for the next start.
 * - localtunnel: a localtunnel server (localtunnel.me by default, or your own); no account. The
 *   public one shows browser viewers a reminder page that asks for this machine's IP address.
 * - cloudflare: a Cloudflare quick tunnel through the cloudflared executable; no account, no
 *   reminder page, viewers told apart by CF-Connecting-IP.
 * - custom: a URL the author runs themselves (reverse proxy, Tailscale Funnel, ngrok…); folio
 *   starts nothing and uses that URL for links.
 */
export { DEFAULT_TUNNEL_PROVIDER, isTunnelProvider, TUNNEL_PROVIDERS, type TunnelProviderName } from '../domain/tunnel-providers.js'
import type { TunnelProviderName } from '../domain/tunnel-providers.js'

/** What viewers meet before the folio, said to the author only. */
export interface TunnelWall {
  /** What a viewer types on the reminder page; null when it could not be learnt. */
  password: string | null
  /** One sentence: what viewers will see and what to tell them. */
  notice: string
}

/** A tunnel that is up. */
export interface TunnelConnection {
  url: string
  /** With a subdomain asked for: whether the server gave that one (localtunnel). */
  subdomainGranted?: boolean
  wall?: TunnelWall
  /** Called at most once, when the tunnel ends without close() (its process died, the server forgot it). */
  onLost(listener: (why: string) => void): void
  /** Ends it for good: no process, socket or timer of it stays behind. */
  close(): Promise<void>
}

/** Opens one provider's tunnels; `describe` names where they go, for messages. */
export interface TunnelConnector {
  provider: TunnelProviderName
  describe: string
  connect(signal: AbortSignal): Promise<TunnelConnection>
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
