import { LRUCache } from 'lru-cache'
import type { RateLimitBucket } from '../api/contract.js'
import type { SharedState } from '../store/index.js'
import { ERRORS } from '../api/errors.js'
import { type ApiError, fail } from './errors.js'
import { REMOTE_CLIENT } from './remote.js'

export type RateLimits = Record<RateLimitBucket, number>

/**
 * Requests per minute and client, per bucket, on the public endpoints: generous for people
 * (a share page sends a beacon every 30 s and a few reactions), tight enough that one client
 * cannot flood the disk with writes. `auth` (agent registration, sign-in, codes) is tight: each
 * request may make a workspace or send an e-mail.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = { comments: 120, reactions: 300, analytics: 600, public: 600, events: 120, auth: 30 }

export interface RateLimitState {
  allowed: boolean
  limit: number
  remaining: number
  /** Unix seconds when the window resets. */
  reset: number
}

/**
 * The tunnel's viewers are one client (remote.ts), whose limit is this many times one client's,
 * so an audience can watch together. With a trusted proxy they are told apart, and together may
 * use no more than that: a flooder who invents a hop per request still cannot write without bound.
 */
export const REMOTE_CEILING_FACTOR = 50

/** One client's limit, or for the tunnel's viewers (one client to us) REMOTE_CEILING_FACTOR times it. */
export const limitFor = (client: string, perClient: number) => (client === REMOTE_CLIENT ? perClient * REMOTE_CEILING_FACTOR : perClient)

/**
 * Fixed one-minute windows per client and bucket. One instance keeps them in memory (bounded);
 * several instances on one database count them in the SharedState they share (`shared`, one
 * without hitSync: PostgreSQL), so a client that the load balancer spreads over them still gets
 * one limit, not one per instance. Then hit() answers through a promise.
 */
export class RateLimiter {
  readonly #limits: RateLimits
  readonly #windowMs: number
  readonly #windows = new LRUCache<string, { start: number; count: number }>({ max: 200_000 })
  readonly #shared: SharedState | undefined

  constructor(limits: RateLimits, windowMs = 60_000, shared?: SharedState) {
    this.#limits = limits
    this.#windowMs = windowMs
    this.#shared = shared?.hitSync ? undefined : shared
  }

  /** Whether hit() answers at once (one instance), or through a promise (windows in the database). */
  get countsInMemory(): boolean {
    return this.#shared === undefined
  }

  hit(bucket: RateLimitBucket, client: string, now = Date.now()): RateLimitState | Promise<RateLimitState> {
    const limit = limitFor(client, this.#limits[bucket])
    const remote = client.startsWith(`${REMOTE_CLIENT}:`)
    if (this.#shared) return this.#hitShared(this.#shared, bucket, client, limit, remote, now)
    const window = this.#count(`${bucket}:${client}`, now)
    let allowed = window.count <= limit
    if (remote) allowed &&= this.#count(`${bucket}:${REMOTE_CLIENT}*`, now).count <= limit * REMOTE_CEILING_FACTOR
    return stateOf(allowed, limit, window.count, window.start + this.#windowMs)
  }

  async #hitShared(shared: SharedState, bucket: RateLimitBucket, client: string, limit: number, remote: boolean, now: number): Promise<RateLimitState> {
    const [window, together] = await Promise.all([
      shared.hit(`ratelimit:${bucket}:${client}`, this.#windowMs, now),
      remote ? shared.hit(`ratelimit:${bucket}:${REMOTE_CLIENT}*`, this.#windowMs, now) : undefined,
    ])
    const allowed = window.count <= limit && (!together || together.count <= limit * REMOTE_CEILING_FACTOR)
    return stateOf(allowed, limit, window.count, window.resetAt)
  }

  #count(key: string, now: number): { start: number; count: number } {
    let window = this.#windows.get(key)
    if (!window || now - window.start >= this.#windowMs) {
      window = { start: now, count: 0 }
      this.#windows.set(key, window)
    }
    window.count++
    return window
  }
}

function stateOf(allowed: boolean, limit: number, count: number, resetAtMs: number): RateLimitState {
  return { allowed, limit, remaining: allowed ? Math.max(0, limit - count) : 0, reset: Math.ceil(resetAtMs / 1000) }
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(state.reset),
  }
}

export function tooManyRequests(state: RateLimitState, now = Date.now()): ApiError {
  const retryAfter = Math.max(1, state.reset - Math.floor(now / 1000))
  return fail(ERRORS.tooManyRequests, `Slow down: try again in ${retryAfter} s.`, { ...rateLimitHeaders(state), 'retry-after': String(retryAfter) })
}

/** Too many wrong access keys for one folio (key-guesses.ts): the same 429, without a window to count down. */
export function tooManyGuesses(retryAfterSeconds: number): ApiError {
  return fail(ERRORS.tooManyRequests, `Too many wrong access keys for this folio: try again in ${retryAfterSeconds} s.`, { 'retry-after': String(retryAfterSeconds) })
}
