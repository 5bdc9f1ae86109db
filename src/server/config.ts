import { userInfo } from 'node:os'
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from './engagement/comment-notifier.js'
import { type AiEnvironment, aiEnvironment } from '../ai/provider-config.js'
import { allowedHostsFromEnv } from './http/host-check.js'
import { DEFAULT_KEY_GUESS_LIMITS, type KeyGuessLimits } from './limits/key-guesses.js'
import { DEFAULT_OUTBOUND_SETTINGS, type OutboundSettings } from './http/outbound-guard.js'
import { privateHostsFrom } from '../domain/public-address.js'
import { DEFAULT_RATE_LIMITS, type RateLimits } from './limits/rate-limit.js'
import { DEFAULT_BODY_TIMEOUTS } from './http/slow-body.js'

export type { Mode } from '../api/contract.js'
import type { Mode } from '../api/contract.js'

export interface ServerConfig {
  mode: Mode
  /** FOLIO_API_KEY (alias SERVICE_API_KEY): guards the sync endpoint in OSS, everything in Cloud. */
  apiKey?: string
  /** Author recorded on versions written through the open OSS API. */
  localAuthor: string
  /** Host names (besides IP literals and localhost) the open OSS API answers without a key. */
  allowedHosts: string[]
  limits: {
    /** PUT/POST body (spec: 20 MB) */
    jsonBodyBytes: number
    /** What a gzip payload may expand to */
    gzipExpandedBytes: number
    /** One uploaded file (spec: 25 MB) */
    uploadBytes: number
    /** Everything a batch upload may hold in memory before its single write */
    batchUploadBytes: number
    /** Comments one folio may hold, soft-deleted ones included (FOLIO_MAX_COMMENTS) */
    commentsPerFolio: number
    /** Bytes one folio's comments may take on disk (FOLIO_MAX_COMMENT_BYTES) */
    commentBytesPerFolio: number
    /** Live-update streams one client may hold open (the tunnel's viewers, one client: 50×) */
    eventStreamsPerClient: number
    /** Live-update streams the server holds open in all */
    eventStreams: number
    /** A body with no bytes for this long is too slow: 408 (slow-body.ts) */
    bodyIdleMs: number
    /** …and so is one slower on average than bodyMinBytesPerSecond once this has passed */
    bodyGraceMs: number
    bodyMinBytesPerSecond: number
    /** node's headersTimeout: the request line and headers, on both listeners */
    headersTimeoutMs: number
    /** node's requestTimeout, the ceiling for a whole request: the biggest upload at the minimum rate */
    requestTimeoutMs: number
  }
  /** Requests per minute per client on the public endpoints. */
  rateLimits: RateLimits
  /** Wrong access keys answered per folio and client (key-guesses.ts). */
  keyGuesses: KeyGuessLimits
  /**
   * FOLIO_TRUST_PROXY / serve --trust-proxy: a proxy or tunnel server of the operator appends
   * X-Forwarded-For, so its last hop names the client, and a request that carries one did not
   * come from this machine. Off, the header is ignored: the tunnel's viewers are one client.
   */
  trustProxy: boolean
  /** FOLIO_SMTP_URL: where e-mail goes (codes, invitations, notifications); unset: to the log (mailer.ts). */
  smtpUrl?: string
  /** FOLIO_MAIL_FROM: the From address of that e-mail. */
  mailFrom?: string
  /** FOLIO_AGENT_ISSUERS: issuers whose signed identity assertions are believed (identity-assertions.ts). */
  agentIssuers?: string
  /** How long a frame token (the viewer frame's path segment) lasts; the share page renews it. */
  frameTokenSeconds: number
  /**
   * FOLIO_PUBLIC_URL: the origin people and clients reach this server at
   * (https://folio.example.com), when a proxy or a domain stands in front of it: links sent
   * elsewhere (chat notifications, e-mails) and OAuth's issuer and resource. Unset: links use
   * the address folio serve listens on (listenUrl), OAuth the origin the request came to (the
   * tunnel's URL for requests through the tunnel).
   */
  publicUrl?: string
  /** The address folio serve listens on (links when publicUrl is unset): it listens before the app is built. */
  listenUrl?: string
  /** Chat notifications of new comments (Cloud, comment-notifier.ts). */
  webhooks: WebhookSettings
  /**
   * Requests made on a user's behalf (outbound-guard.ts): FOLIO_AI_ALLOW_PRIVATE and
   * FOLIO_ALLOW_PRIVATE_HOSTS, the private addresses the operator lets AI providers and webhooks reach.
   */
  outbound: OutboundSettings
  /**
   * The AI environment (FOLIO_AI_PROVIDER, FOLIO_AI_MODEL, OPENAI_*, ANTHROPIC_*, OLLAMA_HOST,
   * FOLIO_AI_TOOLS, FOLIO_AI_SECRET), read once: tests pass their own, never the shell's.
   */
  ai: AiEnvironment
  /** How long an OAuth authorization code lives (RFC 6749 §4.1.2: short; single-use in any case). */
  oauthCodeSeconds: number
  /** How long an OAuth access token lives; the client refreshes it with its refresh token. */
  oauthAccessTokenSeconds: number
  /**
   * How long a replaced refresh token, presented again by its client, gets the same new pair
   * (connections of one client that share it refresh at once); after that it revokes the grant.
   */
  oauthRefreshGraceSeconds: number
  tunnel: {
    /** The localtunnel server (FOLIO_TUNNEL_HOST); the client's default when unset. */
    host?: string
    /**
     * FOLIO_TUNNEL_PASSWORD_URL: where your own localtunnel server, if it has the public one's
     * reminder page, tells its password (localtunnel-wall.ts knows the public server's).
     */
    passwordUrl?: string
    startTimeoutMs: number
  }
}

/** What a caller may set: any top-level field, and single fields of the nested ones. */
export type ConfigOverrides = Partial<Omit<ServerConfig, 'limits' | 'keyGuesses' | 'rateLimits' | 'webhooks' | 'outbound'>> & {
  limits?: Partial<ServerConfig['limits']>
  rateLimits?: Partial<RateLimits>
  keyGuesses?: Partial<KeyGuessLimits>
  webhooks?: Partial<WebhookSettings>
  outbound?: Partial<OutboundSettings>
}

export function defaultConfig(overrides: ConfigOverrides = {}): ServerConfig {
  return {
    mode: 'oss',
    apiKey: process.env.FOLIO_API_KEY || process.env.SERVICE_API_KEY || undefined,
    localAuthor: safeUserName(),
    allowedHosts: allowedHostsFromEnv(process.env.FOLIO_ALLOWED_HOSTS),
    trustProxy: flagFromEnv('FOLIO_TRUST_PROXY', process.env.FOLIO_TRUST_PROXY),
    // Minutes: the share page renews it (src/web/share/share-frame.js).
    frameTokenSeconds: 5 * 60,
    publicUrl: originFromEnv(process.env.FOLIO_PUBLIC_URL),
    oauthCodeSeconds: 5 * 60,
    oauthAccessTokenSeconds: 60 * 60,
    oauthRefreshGraceSeconds: 60,
    smtpUrl: process.env.FOLIO_SMTP_URL || undefined,
    mailFrom: process.env.FOLIO_MAIL_FROM || undefined,
    agentIssuers: process.env.FOLIO_AGENT_ISSUERS || undefined,
    ai: aiEnvironment(process.env),
    ...overrides,
    webhooks: {
      ...DEFAULT_WEBHOOK_SETTINGS,
      allowPrivate: flagFromEnv('FOLIO_WEBHOOKS_ALLOW_PRIVATE', process.env.FOLIO_WEBHOOKS_ALLOW_PRIVATE),
      ...overrides.webhooks,
    },
    outbound: {
      ...DEFAULT_OUTBOUND_SETTINGS,
      aiAllowPrivate: flagFromEnv('FOLIO_AI_ALLOW_PRIVATE', process.env.FOLIO_AI_ALLOW_PRIVATE),
      privateHosts: privateHostsFrom(process.env.FOLIO_ALLOW_PRIVATE_HOSTS),
      ...overrides.outbound,
    },
    limits: {
      jsonBodyBytes: 20 * 1024 * 1024,
      // What a gzip envelope may expand to: big folios fit, a zip bomb costs little (body.ts).
      gzipExpandedBytes: 32 * 1024 * 1024,
      uploadBytes: 25 * 1024 * 1024,
      batchUploadBytes: 200 * 1024 * 1024,
      // Anyone who can view a folio may comment: these bound what that costs. Real feedback is a
      // few hundred bytes a comment; the share page sends at most 2,000 characters of element HTML.
      commentsPerFolio: positiveIntegerFromEnv('FOLIO_MAX_COMMENTS') ?? 1000,
      commentBytesPerFolio: positiveIntegerFromEnv('FOLIO_MAX_COMMENT_BYTES') ?? 4 * 1024 * 1024,
      eventStreamsPerClient: 16,
      eventStreams: 1_000,
      bodyIdleMs: DEFAULT_BODY_TIMEOUTS.idleMs,
      bodyGraceMs: DEFAULT_BODY_TIMEOUTS.graceMs,
      bodyMinBytesPerSecond: DEFAULT_BODY_TIMEOUTS.minBytesPerSecond,
      headersTimeoutMs: 20_000,
      // 25 MB at 16 KB/s, plus the grace: 27 minutes.
      requestTimeoutMs: 30 * 60_000,
      ...overrides.limits,
    },
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...rateLimitsFromEnv(process.env.FOLIO_RATE_LIMITS), ...overrides.rateLimits },
    keyGuesses: { ...DEFAULT_KEY_GUESS_LIMITS, ...overrides.keyGuesses },
    tunnel: {
      host: process.env.FOLIO_TUNNEL_HOST || undefined,
      passwordUrl: process.env.FOLIO_TUNNEL_PASSWORD_URL || undefined,
      startTimeoutMs: 15_000,
      ...overrides.tunnel,
    },
  }
}

/** FOLIO_PUBLIC_URL's origin (scheme, host, port); anything that is not an http(s) URL is refused loudly. */
function originFromEnv(raw: string | undefined): string | undefined {
  if (!raw?.trim()) return undefined
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw new Error(`FOLIO_PUBLIC_URL: "${raw}" is not a URL`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`FOLIO_PUBLIC_URL: "${raw}" is not an http(s) URL`)
  return url.origin
}

/** A whole number ≥ 1 from the environment; anything else there is refused loudly, like a bad rate limit. */
function positiveIntegerFromEnv(name: string): number | undefined {
  const raw = process.env[name]?.trim()
  if (!raw) return undefined
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name}: "${raw}" is not a whole number of at least 1`)
  return n
}

function safeUserName(): string {
  try {
    return userInfo().username || 'owner'
  } catch {
    return 'owner'
  }
}

/**
 * FOLIO_RATE_LIMITS="public=1000,analytics=5000": requests per minute and client, per bucket
 * (comments, reactions, analytics, public, events, auth). Unknown buckets or bad numbers are refused
 * loudly: a typo must not silently leave a server unprotected.
 */
export function rateLimitsFromEnv(value: string | undefined): Partial<RateLimits> {
  if (!value?.trim()) return {}
  const out: Partial<RateLimits> = {}
  for (const pair of value.split(',')) {
    const [bucket, raw] = pair.split('=').map((s) => s.trim())
    const n = Number(raw)
    if (!bucket || !(bucket in DEFAULT_RATE_LIMITS) || !Number.isInteger(n) || n < 1) {
      throw new Error(`FOLIO_RATE_LIMITS: "${pair}" is not <bucket>=<requests per minute> with a bucket among ${Object.keys(DEFAULT_RATE_LIMITS).join(', ')}`)
    }
    out[bucket as keyof RateLimits] = n
  }
  return out
}

/** 1/true/yes or 0/false/no (empty: off); anything else is refused, never guessed at. */
export function flagFromEnv(name: string, value: string | undefined): boolean {
  const v = value?.trim().toLowerCase()
  if (!v || v === '0' || v === 'false' || v === 'no') return false
  if (v === '1' || v === 'true' || v === 'yes') return true
  throw new Error(`${name}: "${value}" is not 1/true/yes or 0/false/no`)
}
