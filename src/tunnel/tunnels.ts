import { cloudflareConnector } from './cloudflare.js'
import { customConnector } from './custom.js'
import { DEFAULT_LOCALTUNNEL_HOST, localtunnelConnector } from './localtunnel.js'
import { DEFAULT_TUNNEL_PROVIDER, type TunnelConnector, type TunnelProviderName } from './providers.js'
import { createTunnelManager, type TunnelManagerOptions, type TunnelStarted, type TunnelState } from './tunnel-manager.js'

/** What one start may ask for. */
export interface TunnelRequest {
  provider?: TunnelProviderName
  /** localtunnel: another tunnel server than the default. */
  host?: string
  /** localtunnel: asked as GET {host}/{subdomain}; the server may give another one (a taken name). */
  subdomain?: string
  /** custom: the author's public URL. */
  customUrl?: string
}

export interface TunnelsOptions extends TunnelManagerOptions {
  /** The local listeners each provider forwards to (serve.ts: each marks its requests as the tunnel's). */
  ports: { localtunnel: number; cloudflare: number }
  /** The localtunnel server when a start names none (FOLIO_TUNNEL_HOST); localtunnel.me when unset. */
  host?: string
  /** Where the localtunnel server's reminder-page password is read (FOLIO_TUNNEL_PASSWORD_URL). */
  passwordUrl?: string
  /** How long a start waits for the tunnel (default 15_000; cloudflared gets twice that). */
  startTimeoutMs?: number
  env?: NodeJS.ProcessEnv
}

export interface Tunnels {
  start(request?: TunnelRequest): Promise<TunnelStarted>
  stop(): Promise<void>
  status(): TunnelState
  onChange(listener: (state: TunnelState) => void): () => void
}

/** The serve process's one public tunnel, through whichever provider a start names. */
export function createTunnels(options: TunnelsOptions): Tunnels {
  const manager = createTunnelManager(options)
  const timeoutMs = options.startTimeoutMs ?? 15_000
  const connectorFor = (request: TunnelRequest): TunnelConnector => {
    const provider = request.provider ?? DEFAULT_TUNNEL_PROVIDER
    if (provider === 'cloudflare') return cloudflareConnector({ localPort: options.ports.cloudflare, timeoutMs: timeoutMs * 2, env: options.env })
    if (provider === 'custom') {
      if (!request.customUrl)
        throw new Error('No custom tunnel URL is saved: save one first (folio tunnel start --provider custom --url https://…, or the dashboard).')
      return customConnector(request.customUrl)
    }
    return localtunnelConnector({
      localPort: options.ports.localtunnel,
      host: request.host ?? options.host ?? DEFAULT_LOCALTUNNEL_HOST,
      subdomain: request.subdomain,
      timeoutMs,
      passwordUrl: options.passwordUrl,
    })
  }
  return {
    // Not async: concurrent calls get the manager's one shared attempt, the same promise.
    start(request = {}) {
      try {
        return manager.start(connectorFor(request))
      } catch (error) {
        return Promise.reject(error)
      }
    },
    stop: () => manager.stop(),
    status: () => manager.status(),
    onChange: (listener) => manager.onChange(listener),
  }
}
