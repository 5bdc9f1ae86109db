import type { H3 } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { getBrief } from '../../api/files.js'
import { buildBrief } from '../../domain/brief.js'
import { versionId } from '../../domain/ids.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { requireFolio } from '../auth/folio-access.js'
import { mountRoute, type RouteDeps } from '../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type BriefRoutesDeps = RouteDeps & Pick<ServerContext, 'store' | 'viewerAccess'>

/** GET /api/files/{id}/brief */
export function registerBriefRoute(app: H3, ctx: BriefRoutesDeps): void {
  mountRoute(app, ctx, getBrief, async ({ params, principal }) => {
    const meta = await requireFolio(ctx, params.id, principal)
    const [head, comments] = await Promise.all([ctx.store.folios.manifest(meta.id, meta.head), ctx.store.engagement.comments(meta.id)])
    if (!head) throw fail(ERRORS.projectNotFound)
    const { brief, openComments } = buildBrief({
      title: meta.title,
      description: meta.description,
      projectMode: meta.projectMode,
      latestVersionId: versionId(meta.head),
      files: Object.entries(head.files).map(([path, ref]) => ({ path, size: ref.s })),
      comments,
    })
    return { title: meta.title, description: meta.description, brief, openComments }
  })
}
