import type { H3 } from 'h3'
import { contracts } from '../api/index.js'
import { getOpenApi, listDesignSystems } from '../api/design-systems.js'
import { buildOpenApi } from '../api/openapi.js'
import { packageVersion } from '../version.js'
import type { ServerContext } from './context.js'
import { jsonBytes, mountRoute, type RouteDeps } from './route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type CatalogueRoutesDeps = RouteDeps & Pick<ServerContext, 'templates'>

/** GET /api/design-systems and GET /api/openapi: what the server offers, described. */
export function registerCatalogueRoutes(app: H3, ctx: CatalogueRoutesDeps): void {
  mountRoute(app, ctx, listDesignSystems, async () => ({ designSystems: await ctx.templates.designSystems() }))

  let document: string | undefined
  mountRoute(app, ctx, getOpenApi, ({ event }) => {
    document ??= JSON.stringify(buildOpenApi(contracts, { version: packageVersion() }))
    return jsonBytes(event, document, { 'cache-control': 'public, max-age=60' })
  })
}
