import type { H3 } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { controlTunnel, getTunnel } from '../../api/tunnel.js'
import { DEFAULT_TUNNEL_PROVIDER } from '../../tunnel/providers.js'
import type { TunnelStarted, TunnelState } from '../../tunnel/tunnel-manager.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { mountRoute, type RouteDeps } from '../route.js'
import { startTunnel, type TunnelSettings, tunnelSettings, viewerNotice } from './tunnel-control.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type TunnelRoutesDeps = RouteDeps & Pick<ServerContext, 'log' | 'store' | 'tunnel'>

/** GET/POST /api/tunnel (OSS only): the serve process's one public tunnel. */
export function registerTunnelRoutes(app: H3, ctx: TunnelRoutesDeps): void {
  mountRoute(app, ctx, getTunnel, async () => {
    const state: TunnelState = ctx.tunnel?.status() ?? { state: 'stopped', url: null, lastError: null, provider: null, wall: null, previousUrl: null }
    const saved = await tunnelSettings(ctx)
    const provider = state.provider ?? saved.provider ?? DEFAULT_TUNNEL_PROVIDER
    return {
      active: state.state === 'connected',
      url: state.url,
      customTunnelUrl: saved.customTunnelUrl,
      state: state.state,
      lastError: state.lastError,
      provider,
      viewerPassword: state.wall?.password ?? null,
      viewerNotice: state.state === 'connected' ? viewerNotice(provider, state) : null,
      previousUrl: state.previousUrl,
    }
  })

  mountRoute(app, ctx, controlTunnel, async ({ body }) => {
    switch (body.action) {
      case 'start': {
        if (body.provider && body.provider !== 'localtunnel' && (body.host || body.subdomain))
          throw fail(ERRORS.invalidBody, 'host and subdomain go with the localtunnel provider.')
        let started: TunnelStarted
        try {
          started = await startTunnel(ctx, { provider: body.provider, host: body.host, subdomain: body.subdomain, install: body.install })
        } catch (error) {
          throw fail(ERRORS.tunnelFailed, (error as Error).message)
        }
        const changing = body.host || body.subdomain || (body.provider && body.provider !== started.provider)
        const notes = [
          started.alreadyRunning
            ? `A tunnel is already running through ${started.provider}${changing ? ' (folio tunnel stop, then start, to change its provider, server or subdomain)' : ''}.`
            : '',
          started.subdomainGranted === false ? `The tunnel server gave another address than the subdomain ${body.subdomain} (taken?).` : '',
        ].filter(Boolean)
        return {
          success: true,
          url: started.url,
          provider: started.provider,
          viewerPassword: started.wall?.password ?? null,
          viewerNotice: viewerNotice(started.provider, { wall: started.wall ?? null }),
          ...(notes.length ? { message: notes.join(' ') } : {}),
        }
      }
      case 'stop':
        try {
          if (!ctx.tunnel) throw new Error('This server was started without tunnel support.')
          await ctx.tunnel.stop()
        } catch (error) {
          throw fail(ERRORS.tunnelFailed, (error as Error).message)
        }
        return { success: true }
      case 'save_custom': {
        const customTunnelUrl = typeof body.customTunnelUrl === 'string' ? body.customTunnelUrl.trim() : ''
        if (customTunnelUrl && !/^https?:\/\/\S+$/.test(customTunnelUrl))
          throw fail(ERRORS.invalidBody, 'customTunnelUrl must be an http(s) URL, or empty to clear it.')
        await ctx.store.settings.set('tunnel', { ...(await tunnelSettings(ctx)), customTunnelUrl } satisfies TunnelSettings)
        return { success: true, customTunnelUrl }
      }
      default:
        throw fail(ERRORS.invalidTunnelAction, 'action is one of start, stop, save_custom.')
    }
  })
}
