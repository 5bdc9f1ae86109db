import type { H3 } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { getIntegrations, setIntegrations } from '../../api/integrations.js'
import { chatFormatFor } from '../../domain/chat-messages.js'
import { managesWorkspace } from '../../domain/principal.js'
import type { StoredIntegration } from '../../store/index.js'
import { LOCAL_WORKSPACE } from '../auth/auth.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { mountRoute, type RouteDeps } from '../route.js'
import { webhookPolicy } from './comment-notifier.js'
import { webhookUrlProblem } from './webhook-delivery.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type IntegrationRoutesDeps = RouteDeps & Pick<ServerContext, 'store'>

/**
 * GET/PUT /api/workspace/integrations (Cloud): the chat webhooks new comments are posted to.
 * Managing them is the Owner's or an Admin's, with their own credential: an OAuth token manages
 * nothing of the workspace (managesWorkspace), and reads none of them either, since a webhook's
 * URL is the chat tool's secret. Each one records who configured it, shown with it.
 */
export function registerIntegrationRoutes(app: H3, ctx: IntegrationRoutesDeps): void {
  const { integrations } = ctx.store

  mountRoute(app, ctx, getIntegrations, async ({ event, principal }) => {
    if (principal?.via === 'oauth')
      throw fail(ERRORS.forbidden, 'An OAuth token cannot read the workspace’s integrations: their URLs are the chat tools’ secrets.')
    // The URLs hold the chat tool's secret: no cache keeps them.
    event.res.headers.set('cache-control', 'no-store')
    return { integrations: await integrations.get(principal?.workspaceId ?? LOCAL_WORKSPACE) }
  })

  mountRoute(app, ctx, setIntegrations, async ({ event, body, principal }) => {
    if (!principal || !managesWorkspace(principal)) throw fail(ERRORS.forbidden, "Only the Owner or an Admin may change the workspace's integrations.")
    const before = await integrations.get(principal.workspaceId)
    const configuredBy = { credential: principal.via, name: principal.name, ...(principal.email ? { email: principal.email } : {}) }
    const configuredAt = new Date().toISOString()
    const next: StoredIntegration[] = []
    for (const [i, integration] of body.integrations.entries()) {
      const problem = webhookUrlProblem(integration.url, webhookPolicy(ctx.config.webhooks, ctx.config.outbound))
      if (problem) throw fail(ERRORS.invalidBody, `integrations[${i}].url ${problem}.`)
      // The same webhook twice would post every comment twice.
      if (next.some((known) => known.url === integration.url)) continue
      const format = integration.format ?? chatFormatFor(integration.url)
      // A webhook already there as it was keeps who configured it; a new one (or a new format) is this caller's.
      const kept = before.find((known) => known.url === integration.url && known.format === format)
      next.push(kept ?? { url: integration.url, format, configuredBy, configuredAt })
    }
    await integrations.set(principal.workspaceId, next)
    event.res.headers.set('cache-control', 'no-store')
    return { integrations: next }
  })
}
