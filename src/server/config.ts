import { userInfo } from 'node:os'
import { allowedHostsFromEnv } from './host-check.js'
import { DEFAULT_RATE_LIMITS, type RateLimits } from './rate-limit.js'

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
  }
  /** Requests per minute per client on the public endpoints. */
  rateLimits: RateLimits
  tunnel: {
    /** The localtunnel server (FOLIO_TUNNEL_HOST); the client's default when unset. */
    host?: string
    startTimeoutMs: number
  }
}

/** What a caller (folio serve, a test) may set: any field, and any of the limits alone. */
export type ServerConfigOverrides = Omit<Partial<ServerConfig>, 'limits'> & { limits?: Partial<ServerConfig['limits']> }

export function defaultConfig(overrides: ServerConfigOverrides = {}): ServerConfig {
  return {
    mode: 'oss',
    apiKey: process.env.FOLIO_API_KEY || process.env.SERVICE_API_KEY || undefined,
    localAuthor: safeUserName(),
    allowedHosts: allowedHostsFromEnv(process.env.FOLIO_ALLOWED_HOSTS),
    ...overrides,
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
      ...overrides.limits,
    },
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...rateLimitsFromEnv(process.env.FOLIO_RATE_LIMITS), ...overrides.rateLimits },
    tunnel: { host: process.env.FOLIO_TUNNEL_HOST || undefined, startTimeoutMs: 15_000, ...overrides.tunnel },
  }
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
 * (comments, reactions, analytics, public, events). Unknown buckets or bad numbers are refused
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
