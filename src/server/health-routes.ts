import type { H3 } from 'h3'
import { ERRORS } from '../api/errors.js'
import { getHealth, getReadiness } from '../api/health.js'
import type { ServerContext } from './context.js'
import { fail } from './http/errors.js'
import { mountRoute, type RouteDeps } from './route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type HealthRoutesDeps = RouteDeps & Pick<ServerContext, 'store'>

/** GET /healthz and /readyz: what a load balancer asks before it sends this instance requests. */
export function registerHealthRoutes(app: H3, ctx: HealthRoutesDeps): void {
  mountRoute(app, ctx, getHealth, ({ event }) => {
    event.res.headers.set('cache-control', 'no-store')
    return { status: 'ok' as const }
  })

  mountRoute(app, ctx, getReadiness, async ({ event }) => {
    event.res.headers.set('cache-control', 'no-store')
    const readiness = await ctx.store.readiness()
    if (!readiness.ready) throw fail(ERRORS.notReady, readiness.reason)
    return { status: 'ready' as const }
  })
}
