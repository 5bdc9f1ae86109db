import { LRUCache } from 'lru-cache'
import type { RateLimitBucket } from '../api/contract.js'
import { ApiError } from './errors.js'

export type RateLimits = Record<RateLimitBucket, number>

/**
 * Requests per minute and client, per bucket, on the public endpoints: generous for people
 * (a share page sends a beacon every 30 s and a few reactions), tight enough that one client
 * cannot flood the disk with writes.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = { comments: 120, reactions: 300, analytics: 600, public: 600, events: 120 }

export interface RateLimitState {
  allowed: boolean
  limit: number
  remaining: number
  /** Unix seconds when the window resets. */
  reset: number
}

/** Fixed one-minute windows per client and bucket, kept in memory (bounded). */
export class RateLimiter {
  readonly #limits: RateLimits
  readonly #windowMs: number
  readonly #windows = new LRUCache<string, { start: number; count: number }>({ max: 200_000 })

  constructor(limits: RateLimits, windowMs = 60_000) {
    this.#limits = limits
    this.#windowMs = windowMs
  }

  hit(bucket: RateLimitBucket, client: string, now = Date.now()): RateLimitState {
    const key = `${bucket}:${client}`
    let window = this.#windows.get(key)
    if (!window || now - window.start >= this.#windowMs) {
      window = { start: now, count: 0 }
      this.#windows.set(key, window)
    }
    window.count++
    const limit = this.#limits[bucket]
    return {
      allowed: window.count <= limit,
      limit,
      remaining: Math.max(0, limit - window.count),
      reset: Math.ceil((window.start + this.#windowMs) / 1000),
    }
  }
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
  return new ApiError(429, 'Too many requests', `Slow down: try again in ${retryAfter} s.`, { ...rateLimitHeaders(state), 'retry-after': String(retryAfter) })
}
