import { describe, expect, it } from 'vitest'
import { createComment, recordAnalytics } from '../src/api/engagement.js'
import { getFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { useServer } from './helpers/use-server.js'

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
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => s.api.send(createComment, { params: { id }, body: { text: `spam ${i}`, versionId: 'v1', filename: 'index.html' } })))
    const ok = replies.filter((r) => r.status === 200).length
    expect(ok).toBeLessThanOrEqual(5)
    expect(replies.filter((r) => r.status === 429).length).toBe(40 - ok)
    expect((await s.api.send(getFolio, { params: { id } })).body.comments.length).toBe(ok)
  })
})

describe('clients behind the tunnel', () => {
  it('are told apart by the X-Forwarded-For hop the tunnel appended, and share one ceiling', async () => {
    const { RateLimiter, REMOTE_CEILING_FACTOR } = await import('../src/server/rate-limit.js')
    const { clientOf, markViaTunnel } = await import('../src/server/remote.js')
    const remoteRequest = (forwardedFor?: string) => {
      const req = { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}, socket: { remoteAddress: '127.0.0.1' } } as any
      markViaTunnel(req)
      return req
    }
    // The client may prepend anything; the last hop is the one the tunnel's proxy added.
    expect(clientOf(remoteRequest('1.1.1.1, 203.0.113.9'))).toBe('remote:203.0.113.9')
    expect(clientOf(remoteRequest())).toBe('remote')
    expect(clientOf({ headers: { 'x-forwarded-for': '9.9.9.9' }, socket: { remoteAddress: '10.0.0.2' } } as any)).toBe('10.0.0.2')

    const limiter = new RateLimiter({ comments: 2, reactions: 2, analytics: 2, public: 2, events: 2 })
    const now = 1_000_000
    // A flooder inventing a new address per request: each one is fresh, the shared ceiling is not.
    const answers = Array.from({ length: 2 * REMOTE_CEILING_FACTOR + 5 }, (_, i) => limiter.hit('comments', `remote:10.0.${i >> 8}.${i & 255}`, now).allowed)
    expect(answers.filter(Boolean)).toHaveLength(2 * REMOTE_CEILING_FACTOR)
    expect(answers.at(-1)).toBe(false)
    // Local clients are not counted against the tunnel's ceiling.
    expect(limiter.hit('comments', '127.0.0.1', now).allowed).toBe(true)
  })
})
