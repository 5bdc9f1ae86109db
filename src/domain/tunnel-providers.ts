/**
 * The ways folio makes a server public, named alike by the API, the CLI, MCP and the dashboard.
 * What each does is in src/tunnel/ (providers.ts says it in full).
 */
export const TUNNEL_PROVIDERS = ['localtunnel', 'cloudflare', 'custom'] as const
export type TunnelProviderName = (typeof TUNNEL_PROVIDERS)[number]
export const DEFAULT_TUNNEL_PROVIDER: TunnelProviderName = 'localtunnel'

export function isTunnelProvider(value: unknown): value is TunnelProviderName {
  return typeof value === 'string' && (TUNNEL_PROVIDERS as readonly string[]).includes(value)
}

/** How the server's error starts when cloudflared is missing: clients offer the download then. */
export const CLOUDFLARED_MISSING = 'cloudflared is not installed'

/** The line that goes beside a tunnel link when localtunnel's reminder page asks viewers for a password. */
export function tunnelPasswordLine(password: string | null | undefined): string {
  return password ? `Tunnel password: ${password} (localtunnel's reminder page asks viewers for it once)` : ''
}
