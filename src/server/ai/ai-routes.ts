import type { H3, H3Event } from 'h3'
import { aiConversation, aiCreate, aiStream, deleteWorkspaceAi, getWorkspaceAi, setWorkspaceAi } from '../../api/ai.js'
import { ERRORS } from '../../api/errors.js'
import { managesWorkspace, type Principal } from '../../domain/principal.js'
import { resolveCloudProvider } from '../../ai/provider-config.js'
import type { GenerationResult } from '../../ai/generation.js'
import { AiService } from './ai-service.js'
import { hangUpSignal, streamTurn } from './ai-stream.js'
import { commitFiles, finishTurn, type PreparedTurn, prepareToolResponse, prepareTurn } from './ai-turn.js'
import { createFromPrompt } from './ai-create.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { authorOf, requireFolio } from '../auth/folio-access.js'
import { destinationProblem, outboundPolicy } from '../http/outbound-guard.js'
import { mountRoute, type RouteDeps } from '../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type AiRoutesDeps = RouteDeps & Pick<ServerContext, 'log' | 'shared' | 'store' | 'templates' | 'viewerAccess'>

/** The AI endpoints: ai-create (Cloud), the conversation, its stream, and a workspace's AI settings (Cloud). */
export function registerAiRoutes(app: H3, ctx: AiRoutesDeps): void {
  const ai = new AiService(ctx)

  mountRoute(app, ctx, aiCreate, ({ principal, body }) => createFromPrompt(ctx, ai, principal, body))

  /** The provider's answer for a prepared turn; its failure is the spec's AI failure. */
  const run = async (turn: PreparedTurn, event: H3Event): Promise<GenerationResult> => {
    const m = await ai.module()
    try {
      return await m.generate({ config: turn.config, system: turn.system, messages: turn.messages, tools: turn.tools, abortSignal: hangUpSignal(event) })
    } catch (error) {
      if (error instanceof m.ProviderError) throw fail(ERRORS.aiFailed, error.message)
      // The client left: the answer goes to nobody, and nothing is logged for it.
      if (m.isAbort(error)) throw fail(ERRORS.aiFailed, 'The request was cancelled.')
      throw error
    }
  }

  mountRoute(app, ctx, aiConversation, async ({ event, params, principal, body }) => {
    switch (body.action) {
      case 'commit-proposal': {
        const meta = await requireFolio(ctx, params.id, principal)
        const author = body.simulatedAuthor?.trim() || authorOf(ctx, principal)
        return {
          success: true,
          ...(await commitFiles(ctx, principal, meta.id, body.proposedFiles!, body.proposedExplanation?.trim() || 'AI proposal', author)),
        }
      }
      case 'clear-chat': {
        const meta = await requireFolio(ctx, params.id, principal)
        await ai.records.clearChat(meta.id)
        const head = await ctx.store.folios.manifest(meta.id, meta.head)
        return { success: true, project: head ? await ctx.store.views.withHead(meta, head) : undefined }
      }
      case 'tool-response': {
        const turn = await prepareToolResponse(ctx, ai, params.id, principal, body)
        return finishTurn(ctx, ai, principal, turn, await run(turn, event))
      }
      default: {
        const turn = await prepareTurn(ctx, ai, params.id, principal, body)
        return finishTurn(ctx, ai, principal, turn, await run(turn, event))
      }
    }
  })

  mountRoute(app, ctx, aiStream, async ({ event, params, principal, body }) => {
    // Everything that can be refused is refused before the stream starts, as JSON with its status.
    const turn = await prepareTurn(ctx, ai, params.id, principal, body)
    return streamTurn(ctx, ai, event, principal, turn)
  })

  /** What the workspace's AI requests use, without the key. */
  const view = async (principal: Principal | undefined) => {
    const own = principal ? await ai.workspaceSettings(principal.workspaceId) : undefined
    if (own)
      return {
        configured: Boolean(own.apiKey),
        source: 'workspace' as const,
        provider: own.provider,
        model: own.model,
        baseURL: own.baseURL,
        hasKey: Boolean(own.apiKey),
      }
    const server = resolveCloudProvider(ctx.config.ai, undefined)
    // The operator's base URL and key stay the operator's: only the provider and model are shown.
    return server
      ? { configured: true, source: 'server' as const, provider: server.provider, model: server.model, hasKey: false }
      : { configured: false, source: 'none' as const, hasKey: false }
  }
  const mayManage = (principal: Principal | undefined) => {
    if (!managesWorkspace(principal)) throw fail(ERRORS.forbidden, 'Only the Owner or an Admin sets the workspace’s AI provider.')
  }

  mountRoute(app, ctx, getWorkspaceAi, ({ principal }) => view(principal))
  mountRoute(app, ctx, setWorkspaceAi, async ({ principal, body }) => {
    mayManage(principal)
    // A workspace's own base URL is judged again at every request (ai-service.ts); an address
    // that can never be allowed is refused now.
    const problem = body.baseURL && destinationProblem(body.baseURL, outboundPolicy(ctx.config.outbound, { allowPrivate: ctx.config.outbound.aiAllowPrivate }))
    if (problem) throw fail(ERRORS.invalidBody, `baseURL ${problem}; the operator may allow that with FOLIO_AI_ALLOW_PRIVATE=1 or FOLIO_ALLOW_PRIVATE_HOSTS.`)
    await ai.setWorkspaceSettings(principal!.workspaceId, { ...body, updatedAt: new Date().toISOString(), updatedBy: principal!.email ?? principal!.name })
    return view(principal)
  })
  mountRoute(app, ctx, deleteWorkspaceAi, async ({ principal }) => {
    mayManage(principal)
    await ai.setWorkspaceSettings(principal!.workspaceId, undefined)
    return view(principal)
  })
}
