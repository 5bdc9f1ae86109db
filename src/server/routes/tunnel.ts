import type { H3 } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { controlTunnel, getTunnel } from '../../api/tunnel.js'
import type { TunnelStarted } from '../../tunnel/tunnel-manager.js'
import type { ServerContext } from '../context.js'
import { fail } from '../errors.js'
import { mountRoute } from '../route.js'

interface TunnelSettings {
  customTunnelUrl: string
}

/** GET/POST /api/tunnel (OSS only): the serve process's one public tunnel. */
export function registerTunnelRoutes(app: H3, ctx: ServerContext): void {
  const customUrl = async () => (await ctx.store.settings.get<TunnelSettings>('tunnel'))?.customTunnelUrl ?? ''
  const manager = () => {
    if (!ctx.tunnel) throw fail(ERRORS.tunnelFailed, 'This server was started without tunnel support.')
    return ctx.tunnel
  }

  mountRoute(app, ctx, getTunnel, async () => {
    const state = ctx.tunnel?.status() ?? { state: 'stopped' as const, url: null, lastError: null }
    return { active: state.state === 'connected', url: state.url, customTunnelUrl: await customUrl(), state: state.state, lastError: state.lastError }
  })

  mountRoute(app, ctx, controlTunnel, async ({ body }) => {
    switch (body.action) {
      case 'start': {
        let started: TunnelStarted
        try {
          started = await manager().start({ host: body.host, subdomain: body.subdomain })
        } catch (error) {
          throw fail(ERRORS.tunnelFailed, (error as Error).message)
        }
        const notes = [
          started.alreadyRunning ? `A tunnel is already running${body.host || body.subdomain ? ' (folio tunnel stop, then start, to change its server or subdomain)' : ''}.` : '',
          started.subdomainGranted === false ? `The tunnel server gave another address than the subdomain ${body.subdomain} (taken?).` : '',
        ].filter(Boolean)
        return notes.length ? { success: true, url: started.url, message: notes.join(' ') } : { success: true, url: started.url }
      }
      case 'stop':
        try {
          await manager().stop()
        } catch (error) {
          throw fail(ERRORS.tunnelFailed, (error as Error).message)
        }
        return { success: true }
      case 'save_custom': {
        const customTunnelUrl = typeof body.customTunnelUrl === 'string' ? body.customTunnelUrl.trim() : ''
        if (customTunnelUrl && !/^https?:\/\/\S+$/.test(customTunnelUrl)) throw fail(ERRORS.invalidBody, 'customTunnelUrl must be an http(s) URL, or empty to clear it.')
        await ctx.store.settings.set('tunnel', { customTunnelUrl } satisfies TunnelSettings)
        return { success: true, customTunnelUrl }
      }
      default:
        throw fail(ERRORS.invalidTunnelAction, 'action is one of start, stop, save_custom.')
    }
  })
}
