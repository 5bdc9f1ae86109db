import type { H3 } from 'h3'
import { agentAuth, agentClaim, agentClaimComplete } from '../../api/agent-auth.js'
import type { ServerContext } from '../context.js'
import { mountRoute } from '../route.js'

/** POST /api/agent/auth, /claim, /claim/complete: agents register themselves (Cloud). */
export function registerAgentAuthRoutes(app: H3, ctx: ServerContext): void {
  const agents = () => ctx.cloud!.agents
  mountRoute(app, ctx, agentAuth, async ({ event, body }) => {
    event.res.headers.set('cache-control', 'no-store')
    return body.type === 'anonymous' ? agents().anonymous() : agents().assert(body.assertion)
  })
  mountRoute(app, ctx, agentClaim, ({ body }) => agents().claim(body.email, body.registration_session_id))
  mountRoute(app, ctx, agentClaimComplete, async ({ event, body }) => {
    event.res.headers.set('cache-control', 'no-store')
    return agents().complete(body.email, body.code, body.registration_session_id)
  })
}
