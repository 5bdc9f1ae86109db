import type { H3 } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { getIntegrations, setIntegrations } from '../../api/integrations.js'
import { chatFormatFor } from '../../domain/chat-messages.js'
import type { StoredIntegration } from '../../store/index.js'
import { LOCAL_WORKSPACE } from '../auth.js'
import type { ServerContext } from '../context.js'
import { fail } from '../errors.js'
import { mountRoute } from '../route.js'
import { webhookUrlProblem } from '../webhook-delivery.js'

/** GET/PUT /api/workspace/integrations (Cloud): the chat webhooks new comments are posted to. */
export function registerIntegrationRoutes(app: H3, ctx: ServerContext): void {
  const { integrations } = ctx.store

  mountRoute(app, ctx, getIntegrations, async ({ event, principal }) => {
    // The URLs hold the chat tool's secret: no cache keeps them.
    event.res.headers.set('cache-control', 'no-store')
    return { integrations: await integrations.get(principal?.workspaceId ?? LOCAL_WORKSPACE) }
  })

  mountRoute(app, ctx, setIntegrations, async ({ event, body, principal }) => {
    if (principal?.role !== 'owner' && principal?.role !== 'admin') throw fail(ERRORS.forbidden, "Only the Owner or an Admin may change the workspace's integrations.")
    const next: StoredIntegration[] = []
    for (const [i, integration] of body.integrations.entries()) {
      const problem = webhookUrlProblem(integration.url, ctx.config.webhooks.allowPrivate)
      if (problem) throw fail(ERRORS.invalidBody, `integrations[${i}].url ${problem}.`)
      // The same webhook twice would post every comment twice.
      if (next.some((known) => known.url === integration.url)) continue
      next.push({ url: integration.url, format: integration.format ?? chatFormatFor(integration.url) })
    }
    await integrations.set(principal.workspaceId, next)
    event.res.headers.set('cache-control', 'no-store')
    return { integrations: next }
  })
}
