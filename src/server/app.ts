import { H3 } from 'h3'
import { ERRORS } from '../api/errors.js'
import { contracts } from '../api/index.js'
import { createLogger, type Logger } from '../log/logger.js'
import type { FolioStore, SharedState } from '../store/index.js'
import type { Tunnels } from '../tunnel/tunnels.js'
import { sharePage } from '../api/viewer.js'
import { ApiKeys } from './auth/api-keys.js'
import { CommentNotifier } from './engagement/comment-notifier.js'
import { createAuth } from './auth/auth.js'
import { createCloudAccounts } from './accounts/cloud-accounts.js'
import type { ServerConfig } from './config.js'
import type { ServerContext } from './context.js'
import { createErrorHandler, fail } from './http/errors.js'
import { HotCache } from './hot-cache.js'
import { KeyGuessGuard } from './limits/key-guesses.js'
import { LiveUpdates } from './viewer/live.js'
import { createOAuth } from './auth/oauth/oauth.js'
import { createMailer, type Mailer } from './mail/mailer.js'
import { PlanLimits } from './limits/plan-limits.js'
import { RateLimiter } from './limits/rate-limit.js'
import { clientOf } from './http/remote.js'
import { StreamSlots } from './limits/stream-slots.js'
import { createViewerAccess } from './auth/viewer-access.js'
import { toRouterPath } from './route.js'
import { registerAgentAuthRoutes } from './accounts/agent-auth-routes.js'
import { registerAdminRoutes } from './admin/admin-routes.js'
import { registerAiRoutes } from './ai/ai-routes.js'
import { registerSignInRoutes } from './accounts/sign-in-routes.js'
import { registerAssetRoutes } from './files/asset-routes.js'
import { registerBriefRoute } from './files/brief-routes.js'
import { registerCatalogueRoutes } from './catalogue-routes.js'
import { registerEngagementRoutes } from './engagement/engagement-routes.js'
import { registerLinkRoutes } from './engagement/link-routes.js'
import { registerFileRoutes } from './files/file-routes.js'
import { registerIntegrationRoutes } from './engagement/integration-routes.js'
import { registerHealthRoutes } from './health-routes.js'
import { registerKeyRoutes } from './auth/key-routes.js'
import { registerOAuthConsentRoutes } from './auth/oauth/oauth-consent-routes.js'
import { registerOAuthRoutes } from './auth/oauth/oauth-routes.js'
import { registerMcpRoute } from './mcp/mcp-routes.js'
import { registerSyncRoutes } from './files/sync-routes.js'
import { registerTunnelRoutes } from './tunnel/tunnel-routes.js'
import { registerSharingRoutes } from './viewer/sharing-routes.js'
import { registerUploadRoutes } from './files/upload-routes.js'
import { registerViewerRoutes } from './viewer/viewer-routes.js'
import { registerWorkspaceRoutes } from './accounts/workspace-routes.js'
import { createTemplates, type Templates } from './viewer/templates.js'
import { CompressedCopies } from './http/content-encoding.js'
import { loadWebAssets, type WebAssets } from './viewer/web-assets.js'

export interface CreateAppOptions {
  store: FolioStore
  config: ServerConfig
  /** Loaded by the caller (ApiKeys.load); defaults to the environment's key only. */
  keys?: ApiKeys
  tunnel?: Tunnels
  /** Cloud: the token of the operator's API (server/admin/admin-routes.ts); without one there is none. */
  adminToken?: string
  /** What several instances must agree on; by default the store's (records persisted in the data dir). */
  shared?: SharedState
  templates?: Templates
  web?: WebAssets
  /** Default: one made from the config, writing unsent mail through `log`. */
  mailer?: Mailer
  log?: (message: string, error?: unknown) => void
}

export function createServerContext(options: CreateAppOptions): ServerContext {
  const keys = options.keys ?? new ApiKeys(undefined, options.config.apiKey)
  const auth = createAuth(options.config, keys, options.store.workspaces)
  const log = options.log ?? logProblemsTo(createLogger())
  const shared = options.shared ?? options.store.shared
  const limiter = new RateLimiter(options.config.rateLimits, undefined, shared)
  const planLimits = options.config.mode === 'cloud' ? new PlanLimits(shared, options.store.workspaces, options.store.plans) : undefined
  const trustProxy = options.config.trustProxy
  const clientOfRequest = (req: Parameters<typeof clientOf>[0]) => clientOf(req, trustProxy)
  const mailer = options.mailer ?? createMailer({ smtpUrl: options.config.smtpUrl, from: options.config.mailFrom, info: (line) => log(line) })
  // Resolvers are asked in the order they join: OAuth's access tokens, then Cloud's credentials.
  const oauth = createOAuth({ auth, shared, config: options.config, keys, workspaces: options.store.workspaces, changes: options.store.changes })
  const cloud = options.config.mode === 'cloud' ? createCloudAccounts({ auth, shared, store: options.store, mailer, config: options.config, log }) : undefined
  return {
    store: options.store,
    config: options.config,
    auth,
    keys,
    tunnel: options.tunnel,
    shared,
    adminToken: options.adminToken,
    hot: new HotCache(options.store, auth, limiter, clientOfRequest, planLimits),
    limiter,
    planLimits,
    keyGuesses: new KeyGuessGuard(options.config.keyGuesses),
    clientOf: clientOfRequest,
    viewerAccess: createViewerAccess(() => options.store.settings.secret(), { frameTokenSeconds: options.config.frameTokenSeconds }),
    live: new LiveUpdates(options.store, log),
    streams: new StreamSlots({ perClient: options.config.limits.eventStreamsPerClient, total: options.config.limits.eventStreams }),
    templates: options.templates ?? createTemplates(),
    web: options.web ?? loadWebAssets(),
    compressed: new CompressedCopies(),
    mailer,
    cloud,
    notifier: options.config.mode === 'cloud' ? commentNotifier(options.store, options.config, log) : undefined,
    log,
    oauth,
  }
}

function commentNotifier(store: FolioStore, config: ServerConfig, log: ServerContext['log']): CommentNotifier {
  return new CommentNotifier({
    integrations: store.integrations,
    settings: config.webhooks,
    outbound: config.outbound,
    shareLink: (id) => `${config.publicUrl ?? config.listenUrl ?? ''}${sharePage.path.replace('{id}', encodeURIComponent(id))}`,
    log: (message) => log(message),
  })
}

/** ctx.log as consola lines: with an error it is one (stack included), without a warning. */
export function logProblemsTo(logger: Logger): ServerContext['log'] {
  return (message, error) => (error === undefined ? logger.warn(message) : logger.error(message, error))
}

/** The whole HTTP surface: the same app runs in `folio serve` and in the tests. */
export function createApp(ctx: ServerContext): H3 {
  const app = new H3({ silent: true, onError: createErrorHandler(ctx.log, ctx.store.dataDir) })
  registerAiRoutes(app, ctx)
  registerFileRoutes(app, ctx)
  registerAssetRoutes(app, ctx)
  registerBriefRoute(app, ctx)
  registerUploadRoutes(app, ctx)
  registerEngagementRoutes(app, ctx)
  registerLinkRoutes(app, ctx)
  registerSharingRoutes(app, ctx)
  registerCatalogueRoutes(app, ctx)
  registerSyncRoutes(app, ctx)
  registerKeyRoutes(app, ctx)
  registerAgentAuthRoutes(app, ctx)
  registerSignInRoutes(app, ctx)
  registerOAuthRoutes(app, ctx)
  registerOAuthConsentRoutes(app, ctx)
  registerWorkspaceRoutes(app, ctx)
  registerIntegrationRoutes(app, ctx)
  registerTunnelRoutes(app, ctx)
  registerMcpRoute(app, ctx)
  registerViewerRoutes(app, ctx)
  if (ctx.config.mode === 'cloud' && ctx.adminToken) registerAdminRoutes(app, ctx, ctx.adminToken)
  registerHealthRoutes(app, ctx)
  app.all('/**', unmatched)
  return app
}

/**
 * A path we serve with another method gets 405 and Allow; anything else 404. The patterns mirror
 * the router's: a parameter is one non-empty segment, a trailing {path} the non-empty rest.
 */
const routePatterns = contracts.map((c) => ({
  method: c.method,
  pattern: new RegExp(`^${toRouterPath(c.path).replace('**:path', '[^/].*').replace(/:\w+/g, '[^/]+')}/?$`),
}))

function unmatched(event: { req: Request; url: URL }): never {
  const method = event.req.method === 'HEAD' ? 'GET' : event.req.method
  const allowed = routePatterns.filter((r) => r.pattern.test(event.url.pathname)).map((r) => r.method)
  // The router passed over a path a pattern takes for this very method (say, an empty segment
  // the pattern let through): no such resource, rather than a 405 that names the method used.
  if (allowed.length && !allowed.includes(method as (typeof allowed)[number])) {
    throw fail(ERRORS.methodNotAllowed, `${event.req.method} is not supported here; use ${allowed.join(', ')}.`, {
      allow: allowed.join(', '),
    })
  }
  throw fail(ERRORS.notFound, `No route for ${event.req.method} ${event.url.pathname}; see GET /api/openapi.`)
}
