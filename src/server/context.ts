import type { IncomingMessage } from 'node:http'
import type { FolioStore, SharedState } from '../store/index.js'
import type { Tunnels } from '../tunnel/tunnels.js'
import type { ApiKeys } from './auth/api-keys.js'
import type { CommentNotifier } from './engagement/comment-notifier.js'
import type { Auth } from './auth/auth.js'
import type { CloudAccounts } from './accounts/cloud-accounts.js'
import type { HotCache } from './hot-cache.js'
import type { KeyGuessGuard } from './limits/key-guesses.js'
import type { LiveUpdates } from './viewer/live.js'
import type { OAuth } from './auth/oauth/oauth.js'
import type { Mailer } from './mail/mailer.js'
import type { PlanLimits } from './limits/plan-limits.js'
import type { RateLimiter } from './limits/rate-limit.js'
import type { StreamSlots } from './limits/stream-slots.js'
import type { ViewerAccess } from './auth/viewer-access.js'
import type { ServerConfig } from './config.js'
import type { Templates } from './viewer/templates.js'
import type { CompressedCopies } from './http/content-encoding.js'
import type { WebAssets } from './viewer/web-assets.js'

/** What every route may use. Built once (createServerContext), and never changed after. */
export type ServerContext = Readonly<ServerContextFields>

interface ServerContextFields {
  store: FolioStore
  config: ServerConfig
  auth: Auth
  keys: ApiKeys
  /** The public tunnel; only `folio serve` has one. */
  tunnel?: Tunnels
  /** What several server instances must agree on: rate windows, counters, short-lived records. */
  shared: SharedState
  /** Cloud: the token of the operator's API (folio admin on a running server). */
  adminToken?: string
  hot: HotCache
  limiter: RateLimiter
  /** Cloud: the workspace plans' limits (undefined in OSS). */
  planLimits?: PlanLimits
  /** Wrong access keys per folio and client (key-guesses.ts). */
  keyGuesses: KeyGuessGuard
  /** Who sent a request, for rate limits and budgets (remote.ts: clientOf). */
  clientOf: (req: IncomingMessage | undefined) => string
  viewerAccess: ViewerAccess
  live: LiveUpdates
  /** Open live-update streams, per client and in all. */
  streams: StreamSlots
  templates: Templates
  /** The share page's, dashboard's and frame's bundles (dist/web). */
  web: WebAssets
  /** Compressed copies of what is served again and again (a folio's files), bounded by bytes. */
  compressed: CompressedCopies
  /** E-mail out: codes, invitations, comment notifications (to the log without FOLIO_SMTP_URL). */
  mailer: Mailer
  /** Cloud only: agents' and people's credentials (registration, pre-claim keys, sign-in sessions). */
  cloud?: CloudAccounts
  /** Cloud: posts new comments to the workspace's chat integrations, in the background. */
  notifier?: CommentNotifier
  /** OAuth 2.0 for third-party clients and agents (both modes). */
  oauth: OAuth
  log: (message: string, error?: unknown) => void
}
