import type { H3, H3Event } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { createLink, listLinks, revokeLink } from '../../api/links.js'
import { type LinkFigures, linkFigures } from '../../domain/analytics-view.js'
import type { AnalyticsDoc } from '../../domain/analytics.js'
import { newLinkId } from '../../domain/recipient-links.js'
import { requireFolio } from '../auth/folio-access.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { mountRoute, type RouteDeps } from '../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type LinkRoutesDeps = RouteDeps & Pick<ServerContext, 'store' | 'tunnel' | 'viewerAccess'>

/** GET/POST /api/files/{id}/links and DELETE /api/files/{id}/links/{linkId}: one link per recipient. */
export function registerLinkRoutes(app: H3, ctx: LinkRoutesDeps): void {
  const { engagement } = ctx.store

  // A link is sent to someone elsewhere: the server's public address, else the tunnel's, else
  // the address the author reached the server at.
  const shareUrl = (event: H3Event, folioId: string, linkId: string) => {
    const base = ctx.config.publicUrl ?? ctx.tunnel?.status().url ?? event.url.origin
    return `${base}/share/${encodeURIComponent(folioId)}?link=${encodeURIComponent(linkId)}`
  }
  const answer = (event: H3Event, folioId: string, figures: LinkFigures) => ({ ...figures, url: shareUrl(event, folioId, figures.id) })
  const figuresOf = (doc: AnalyticsDoc, id: string) => linkFigures(id, doc.links![id]!, doc.kind, new Date())

  mountRoute(app, ctx, listLinks, async ({ event, params, principal }) => {
    const meta = await requireFolio(ctx, params.id, principal)
    const doc = await engagement.analytics(meta.id)
    const links = Object.keys(doc.links ?? {})
      .map((id) => answer(event, meta.id, figuresOf(doc, id)))
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
    return { links }
  })

  mountRoute(app, ctx, createLink, async ({ event, params, body, principal }) => {
    const meta = await requireFolio(ctx, params.id, principal)
    const id = newLinkId()
    const doc = await engagement.addLink(meta.id, id, body)
    if (doc === undefined) throw fail(ERRORS.projectNotFound)
    if (doc === 'full') throw fail(ERRORS.tooManyLinks)
    return { link: answer(event, meta.id, figuresOf(doc, id)) }
  })

  mountRoute(app, ctx, revokeLink, async ({ event, params, principal }) => {
    const meta = await requireFolio(ctx, params.id, principal)
    if (!(await engagement.analytics(meta.id)).links?.[params.linkId]) throw fail(ERRORS.linkNotFound)
    const doc = await engagement.revokeLink(meta.id, params.linkId)
    if (doc === undefined) throw fail(ERRORS.projectNotFound)
    return { link: answer(event, meta.id, figuresOf(doc, params.linkId)) }
  })
}
