import { describe, expect, it } from 'vitest'
import { createComment, recordAnalytics } from '../src/api/engagement.js'
import { getFolio, listFolios } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { RateLimiter, type RateLimitState, REMOTE_CEILING_FACTOR } from '../src/server/limits/rate-limit.js'
import type { SharedState } from '../src/store/index.js'
import { MemorySharedState } from '../src/store/coordination/shared-state-memory.js'
import { testApi } from './helpers/api.js'
import { startTestServer } from './helpers/server.js'
import { closeClean, useServer } from './helpers/use-server.js'

const s = useServer({ config: { rateLimits: { comments: 5, reactions: 5, analytics: 5, public: 5, events: 5 } } })

describe('rate limits on public endpoints', () => {
  it('counts down X-RateLimit-Remaining, then answers 429 with Retry-After, per bucket', async () => {
    const id = await s.api.create('Limited', { 'index.html': 'x' }, { status: 'published' })
    const seen: number[] = []
    for (let i = 0; i < 5; i++) {
      const reply = await s.api.send(getPublicFolio, { params: { id } })
      expect(reply.status).toBe(200)
      expect(reply.headers.get('x-ratelimit-limit')).toBe('5')
      seen.push(Number(reply.headers.get('x-ratelimit-remaining')))
      const reset = Number(reply.headers.get('x-ratelimit-reset'))
      expect(reset).toBeGreaterThan(Date.now() / 1000)
      expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61)
    }
    expect(seen).toEqual([4, 3, 2, 1, 0])
    const refused = await s.api.send(getPublicFolio, { params: { id } })
    expect(refused.status).toBe(429)
    expect(refused.body.error).toBe('Too many requests')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
    // Another bucket is counted apart; the owner API is not limited.
    expect((await s.api.send(recordAnalytics, { params: { id }, body: { isInitial: true } })).status).toBe(200)
    expect((await s.api.send(getFolio, { params: { id } })).status).toBe(200)
  })

  it('stops a flood of comments without storing the excess', async () => {
    const id = await s.api.create('Flooded', { 'index.html': 'x' }, { status: 'published' })
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => s.api.send(createComment, { params: { id }, body: { text: `spam ${i}`, versionId: 'v1', filename: 'index.html' } })),
    )
    const ok = replies.filter((r) => r.status === 200).length
    expect(ok).toBeLessThanOrEqual(5)
    expect(replies.filter((r) => r.status === 429).length).toBe(40 - ok)
    expect((await s.api.send(getFolio, { params: { id } })).body.comments.length).toBe(ok)
  })
})

describe('clients behind the tunnel', () => {
  // A localtunnel server appends no X-Forwarded-For: what the header says, the viewer typed.
  it('are one client whatever X-Forwarded-For or CF-Connecting-IP they send, with a limit for the whole audience', async () => {
    const id = await s.api.create('Watched', { 'index.html': 'x' }, { status: 'published' })
    const tunnel = testApi(s.ts.server.tunnelTarget)
    const seen: string[] = []
    for (const hop of ['203.0.113.1', '203.0.113.2', '198.51.100.7, 203.0.113.3']) {
      // CF-Connecting-IP too: only cloudflared's own listener believes it, not localtunnel's.
      const reply = await tunnel.send(getPublicFolio, { params: { id }, headers: { 'x-forwarded-for': hop, 'cf-connecting-ip': hop.split(',')[0]! } })
      expect(reply.headers.get('x-ratelimit-limit')).toBe(String(5 * REMOTE_CEILING_FACTOR))
      seen.push(reply.headers.get('x-ratelimit-remaining')!)
    }
    expect(new Set(seen).size).toBe(3) // one window counting down, not three fresh ones
  })

  it('are told apart by the last hop when the operator trusts its proxy, and share one ceiling', async () => {
    const trusting = await startTestServer({ config: { trustProxy: true, rateLimits: { comments: 2, reactions: 2, analytics: 2, public: 2, events: 2 } } })
    try {
      const api = testApi(trusting.url)
      const id = await api.create('Watched', { 'index.html': 'x' }, { status: 'published' })
      const tunnel = testApi(trusting.server.tunnelTarget)
      const as = (hops: string) => tunnel.send(getPublicFolio, { params: { id }, headers: { 'x-forwarded-for': hops } })
      expect((await as('203.0.113.1')).headers.get('x-ratelimit-limit')).toBe('2')
      expect((await as('203.0.113.1')).status).toBe(200)
      expect((await as('203.0.113.1')).status).toBe(429)
      // The client may prepend anything; the last hop is the one the proxy added.
      expect((await as('203.0.113.1, 203.0.113.2')).status).toBe(200)
      expect((await as('203.0.113.2, 203.0.113.1')).status).toBe(429)
      // Behind a trusted proxy on the main listener too, and such a request is not this machine's.
      expect((await api.send(listFolios, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(401)
      expect((await api.send(listFolios)).status).toBe(200)
    } finally {
      await closeClean(trusting)
    }

    // A flooder inventing a new hop per request: each one is fresh, the shared ceiling is not.
    // The same in memory (one instance) and in a SharedState with no in-memory windows (the
    // PostgreSQL one of several instances: here a MemorySharedState seen only through hit()).
    const limits = { comments: 2, reactions: 2, analytics: 2, public: 2, events: 2, auth: 2 }
    const memory = new MemorySharedState()
    const databaseLike = { hit: (key: string, windowMs: number, now?: number) => memory.hit(key, windowMs, now) } as SharedState
    // The third keeps only a few clients: forgetting them must not forget the ceiling.
    for (const limiter of [new RateLimiter(limits), new RateLimiter(limits, 60_000, databaseLike), new RateLimiter(limits, 60_000, undefined, 10)]) {
      const now = 1_000_000
      const answers: boolean[] = []
      for (let i = 0; i < 2 * REMOTE_CEILING_FACTOR + 5; i++) answers.push((await limiter.hit('comments', `remote:10.0.${i >> 8}.${i & 255}`, now)).allowed)
      expect(answers.filter(Boolean)).toHaveLength(2 * REMOTE_CEILING_FACTOR)
      expect(answers.at(-1)).toBe(false)
      // Local clients are not counted against the tunnel's ceiling.
      expect((await limiter.hit('comments', '127.0.0.1', now)).allowed).toBe(true)
      expect((await limiter.hit('comments', '127.0.0.1', now)).allowed).toBe(true)
      expect((await limiter.hit('comments', '127.0.0.1', now)).allowed).toBe(false)
    }
  })
})

describe('windows in memory', () => {
  const limits = { comments: 3, reactions: 3, analytics: 3, public: 3, events: 3, auth: 3 }

  it('are fixed minutes per client and bucket, with one reset time for the whole window', () => {
    const limiter = new RateLimiter(limits)
    const start = 1_000_400
    const at = (bucket: 'public' | 'comments', client: string, now: number) => limiter.hit(bucket, client, now) as RateLimitState
    const first = at('public', '127.0.0.1', start)
    expect(first).toEqual({ allowed: true, limit: 3, remaining: 2, reset: Math.ceil((start + 60_000) / 1000) })
    expect(at('public', '127.0.0.1', start + 30_000)).toEqual({ ...first, remaining: 1 })
    expect(at('public', '10.0.0.2', start + 30_000)).toEqual({ allowed: true, limit: 3, remaining: 2, reset: Math.ceil((start + 90_000) / 1000) })
    expect(at('comments', '127.0.0.1', start + 30_000).remaining).toBe(2)
    expect(at('public', '127.0.0.1', start + 59_999)).toEqual({ ...first, remaining: 0 })
    expect(at('public', '127.0.0.1', start + 59_999)).toEqual({ ...first, allowed: false, remaining: 0 })
    // The next window starts with the first request after the last one ended.
    expect(at('public', '127.0.0.1', start + 60_000)).toEqual({ allowed: true, limit: 3, remaining: 2, reset: Math.ceil((start + 120_000) / 1000) })
  })

  it('forget the client whose newest window is the oldest when there are too many', () => {
    const limiter = new RateLimiter(limits, 60_000, undefined, 2)
    const remaining = (client: string, now: number, bucket: 'public' | 'comments' = 'public') => (limiter.hit(bucket, client, now) as RateLimitState).remaining
    expect(remaining('a', 0)).toBe(2)
    expect(remaining('b', 1)).toBe(2)
    // a's window in another bucket begins after b's: b is the one forgotten for c.
    expect(remaining('a', 2, 'comments')).toBe(2)
    expect(remaining('c', 3)).toBe(2)
    expect(remaining('a', 4)).toBe(1)
    expect(remaining('b', 5)).toBe(2)
  })
})
