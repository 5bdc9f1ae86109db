import type { H3 } from 'h3'
import { aiCreate } from '../../api/ai.js'
import { ERRORS } from '../../api/errors.js'
import type { ServerContext } from '../context.js'
import { fail } from '../errors.js'
import { mountRoute } from '../route.js'

/** POST /api/files/ai-create (Cloud only; OSS answers 403 before this runs: see onlyIn). */
export function registerAiRoutes(app: H3, ctx: ServerContext): void {
  mountRoute(app, ctx, aiCreate, () => {
    // No AI provider can be configured for a workspace yet: say so, as the spec does.
    throw fail(ERRORS.aiNotConfigured, 'This server has no AI provider configured for your workspace; ask its operator.')
  })
}
