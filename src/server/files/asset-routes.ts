import type { H3 } from 'h3'
import { FastResponse } from 'srvx'
import { getAsset } from '../../api/assets.js'
import { ERRORS } from '../../api/errors.js'
import { LOCAL_WORKSPACE } from '../auth/auth.js'
import { noneMatchHits } from '../http/conditional.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { mountRoute, type RouteDeps } from '../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type AssetRoutesDeps = RouteDeps & Pick<ServerContext, 'store'>

/** GET /api/assets/{hash} (Cloud): what an asset:// pointer names, for its workspace only. */
export function registerAssetRoutes(app: H3, ctx: AssetRoutesDeps): void {
  mountRoute(app, ctx, getAsset, async ({ event, params, principal }) => {
    const hash = params.hash.toLowerCase()
    const asset = /^[0-9a-f]{64}$/.test(hash) ? await ctx.store.folios.files.asset(principal?.workspaceId ?? LOCAL_WORKSPACE, hash) : undefined
    if (!asset) throw fail(ERRORS.notFound, `No folio of this workspace holds asset://${params.hash.slice(0, 64)}.`)
    // The hash is the content: it never changes, but it is the workspace's, so no shared cache keeps it.
    const headers = {
      'content-type': asset.mime,
      etag: `"${hash}"`,
      'cache-control': 'private, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
    }
    if (noneMatchHits(event.req.headers.get('if-none-match'), headers.etag)) return new FastResponse(null, { status: 304, headers })
    return new FastResponse(new Uint8Array(asset.bytes), { headers })
  })
}
