import type { RateLimitBucket } from '../../api/contract.js'
import type { SharedState } from '../../store/index.js'
import { ERRORS } from '../../api/errors.js'
import { type ApiError, fail } from '../http/errors.js'
import { REMOTE_CLIENT } from '../http/remote.js'

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

/** A client's count in one bucket's current window. */
interface Window {
  /** When it began (ms). */
  start: number
  count: number
  /** When it ends, in Unix seconds (X-RateLimit-Reset): worked out once per window, not per request. */
  reset: number
}

/** A client's windows, one per bucket it used. */
type ClientWindows = Partial<Record<RateLimitBucket, Window>>

/** How many clients one instance keeps windows for. */
const MAX_CLIENTS = 200_000
const REMOTE_PREFIX = `${REMOTE_CLIENT}:`

/**
 * Fixed one-minute windows per client and bucket. One instance keeps them in memory (bounded);
 * several instances on one database count them in the SharedState they share (`shared`, one
 * without hitSync: PostgreSQL), so a client that the load balancer spreads over them still gets
 * one limit, not one per instance. Then hit() answers through a promise.
 *
 * In memory a hit is on the hot cache's path (a share page's metadata): one Map lookup by the
 * client's id (the socket's address, the same string each time) and no string built. Clients are
 * kept in the order their latest window began, so the first is the one to forget when there are
 * too many: all its windows are older than anyone else's newest. The tunnel's shared ceilings
 * are kept apart and never forgotten: a flood of invented hops must not reset them.
 */
export class RateLimiter {
  readonly #limits: RateLimits
  readonly #windowMs: number
  readonly #maxClients: number
  readonly #windows = new Map<string, ClientWindows>()
  readonly #ceilings: ClientWindows = {}
  readonly #shared: SharedState | undefined

  constructor(limits: RateLimits, windowMs = 60_000, shared?: SharedState, maxClients = MAX_CLIENTS) {
    this.#limits = limits
    this.#windowMs = windowMs
    this.#maxClients = maxClients
    this.#shared = shared?.hitSync ? undefined : shared
  }

  /** Whether hit() answers at once (one instance), or through a promise (windows in the database). */
  get countsInMemory(): boolean {
    return this.#shared === undefined
  }

  hit(bucket: RateLimitBucket, client: string, now = Date.now()): RateLimitState | Promise<RateLimitState> {
    const limit = limitFor(client, this.#limits[bucket])
    const remote = client.startsWith(REMOTE_PREFIX)
    if (this.#shared) return this.#hitShared(this.#shared, bucket, client, limit, remote, now)
    const window = this.#count(bucket, client, now)
    let allowed = window.count <= limit
    if (remote && allowed) allowed = this.#countCeiling(bucket, now).count <= limit * REMOTE_CEILING_FACTOR
    return stateOf(allowed, limit, window.count, window.reset)
  }

  async #hitShared(shared: SharedState, bucket: RateLimitBucket, client: string, limit: number, remote: boolean, now: number): Promise<RateLimitState> {
    const [window, together] = await Promise.all([
      shared.hit(`ratelimit:${bucket}:${client}`, this.#windowMs, now),
      remote ? shared.hit(`ratelimit:${bucket}:${REMOTE_CLIENT}*`, this.#windowMs, now) : undefined,
    ])
    const allowed = window.count <= limit && (!together || together.count <= limit * REMOTE_CEILING_FACTOR)
    return stateOf(allowed, limit, window.count, Math.ceil(window.resetAt / 1000))
  }

  #count(bucket: RateLimitBucket, client: string, now: number): Window {
    const windows = this.#windows.get(client)
    const current = windows?.[bucket]
    if (current && now - current.start < this.#windowMs) {
      current.count++
      return current
    }
    const window = this.#newWindow(now)
    if (windows) {
      // Moved to the end: its newest window began now.
      this.#windows.delete(client)
      windows[bucket] = window
      this.#windows.set(client, windows)
    } else {
      this.#windows.set(client, { [bucket]: window })
      if (this.#windows.size > this.#maxClients) this.#windows.delete(this.#windows.keys().next().value!)
    }
    return window
  }

  #countCeiling(bucket: RateLimitBucket, now: number): Window {
    let window = this.#ceilings[bucket]
    if (!window || now - window.start >= this.#windowMs) window = this.#ceilings[bucket] = this.#newWindow(now)
    else window.count++
    return window
  }

  #newWindow(now: number): Window {
    return { start: now, count: 1, reset: Math.ceil((now + this.#windowMs) / 1000) }
  }
}

function stateOf(allowed: boolean, limit: number, count: number, reset: number): RateLimitState {
  return { allowed, limit, remaining: allowed ? Math.max(0, limit - count) : 0, reset }
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
  return fail(ERRORS.tooManyRequests, `Too many wrong access keys for this folio: try again in ${retryAfterSeconds} s.`, {
    'retry-after': String(retryAfterSeconds),
  })
}
