import type { H3 } from 'h3'
import { agentAuth, agentClaim, agentClaimComplete } from '../../api/agent-auth.js'
import type { ServerContext } from '../context.js'
import { loadTrustedIssuers } from './identity-assertions.js'
import { localAgentRegistration } from './local-agent-registration.js'
import { mountRoute, type RouteDeps } from '../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type AgentAuthRoutesDeps = RouteDeps & Pick<ServerContext, 'cloud' | 'keys' | 'store'>

/**
 * POST /api/agent/auth, /claim, /claim/complete: agents register themselves. Cloud makes them
 * workspaces; OSS answers /api/agent/auth only, with its one key for callers that may have it.
 */
export function registerAgentAuthRoutes(app: H3, ctx: AgentAuthRoutesDeps): void {
  const agents = () => ctx.cloud!.agents
  // OSS checks assertions as Cloud does: the same issuers are believed (a malformed list stops the start).
  const local = ctx.config.mode === 'cloud' ? undefined : localAgentRegistration(ctx, loadTrustedIssuers(ctx.config.agentIssuers))
  mountRoute(app, ctx, agentAuth, async ({ event, body }) => {
    event.res.headers.set('cache-control', 'no-store')
    if (local) return local(event, body)
    return body.type === 'anonymous' ? agents().anonymous() : agents().assert(body.assertion)
  })
  mountRoute(app, ctx, agentClaim, ({ body }) => agents().claim(body.email, body.registration_session_id))
  mountRoute(app, ctx, agentClaimComplete, async ({ event, body }) => {
    event.res.headers.set('cache-control', 'no-store')
    return agents().complete(body.email, body.code, body.registration_session_id)
  })
}
