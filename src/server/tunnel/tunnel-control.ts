import { findCloudflared, installCloudflared } from '../../tunnel/cloudflared-binary.js'
import { DEFAULT_TUNNEL_PROVIDER, type TunnelProviderName } from '../../tunnel/providers.js'
import type { TunnelStarted, TunnelState } from '../../tunnel/tunnel-manager.js'
import type { TunnelRequest } from '../../tunnel/tunnels.js'
import type { ServerContext } from '../context.js'

/** What this file takes from the server's context. */
export type TunnelControlDeps = Pick<ServerContext, 'log' | 'store' | 'tunnel'>

/** Settings key 'tunnel': the spec's display URL, and the provider last started. */
export interface TunnelSettings {
  customTunnelUrl: string
  /** The next start's provider when it names none. */
  provider?: TunnelProviderName
}

export async function tunnelSettings(ctx: TunnelControlDeps): Promise<TunnelSettings> {
  return { customTunnelUrl: '', ...(await ctx.store.settings.get<TunnelSettings>('tunnel')) }
}

/** What a viewer meets first, when folio knows; localtunnel's reminder page comes from the tunnel itself. */
export function viewerNotice(provider: TunnelProviderName, state: Pick<TunnelState, 'wall'>): string | null {
  if (state.wall) return state.wall.notice
  if (provider === 'cloudflare') return 'Viewers open the link straight away: Cloudflare shows no page in between.'
  return null
}

/**
 * Starts the serve process's tunnel (POST /api/tunnel, folio serve --tunnel): through the
 * provider asked for, else the one last started, else localtunnel; remembered once it runs.
 * With install, a missing cloudflared is downloaded first (its progress in the log).
 */
export async function startTunnel(ctx: TunnelControlDeps, request: Omit<TunnelRequest, 'customUrl'> & { install?: boolean }): Promise<TunnelStarted> {
  if (!ctx.tunnel) throw new Error('This server was started without tunnel support.')
  const saved = await tunnelSettings(ctx)
  const provider = request.provider ?? saved.provider ?? DEFAULT_TUNNEL_PROVIDER
  if (provider === 'cloudflare' && request.install && !findCloudflared()) await downloadCloudflared(ctx)
  const started = await ctx.tunnel.start({ ...request, provider, customUrl: saved.customTunnelUrl || undefined })
  if (!started.alreadyRunning && saved.provider !== provider) await ctx.store.settings.set('tunnel', { ...saved, provider } satisfies TunnelSettings)
  return started
}

async function downloadCloudflared(ctx: TunnelControlDeps): Promise<void> {
  ctx.log('Downloading cloudflared for the Cloudflare tunnel (about 40 MB, once)…')
  let shown = 0
  const path = await installCloudflared({
    onProgress: ({ received, total }) => {
      const tenth = total ? Math.floor((received / total) * 10) : 0
      if (tenth > shown) ctx.log(`cloudflared: ${(shown = tenth) * 10}% of ${Math.round(total! / 1e6)} MB`)
    },
  })
  ctx.log(`cloudflared installed at ${path}`)
}
