import { describe, expect, it } from 'vitest'
import { useServer } from './helpers/use-server.js'

/**
 * Spec's Cloud behaviour from a stock HTTP client (fetch) with nothing but the base URL: no
 * typed client, no store, no test helpers between the agent and the server.
 */
const s = useServer({ mode: 'cloud' })

describe('Cloud from nothing but the base URL', () => {
  it('registers an agent, creates, publishes and reads a folio, rotates the key and sees the old one refused', async () => {
    const base = s.ts.url
    const call = async (method: string, path: string, key?: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })
      return { status: res.status, body: (await res.json()) as any }
    }
    const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url')
    const assertion = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ email: 'bot@example.com', sub: 'bot', iss: 'https://bot.example', iat: Math.floor(Date.now() / 1000), aud: base })}.`

    const registered = await call('POST', '/api/agent/auth', undefined, { type: 'identity_assertion', assertion, requested_credential_type: 'api_key' })
    expect(registered.status).toBe(200)
    expect(registered.body.status).toBe('completed')
    const key: string = registered.body.credential.access_token
    expect(key).toMatch(/^folio_live_[0-9a-f]{48}$/)

    expect((await call('GET', '/api/files')).status).toBe(401)
    const created = await call('POST', '/api/files', key, { title: 'Hello', initialHtml: '<!doctype html><h1>Hello</h1>' })
    expect(created.status).toBe(201)
    const id: string = created.body.project.id
    expect(created.body.project.status).toBe('draft')

    const published = await call('PUT', `/api/files/${id}`, key, { status: 'published' })
    expect([published.status, published.body.project.status]).toEqual([200, 'published'])
    const shown = await call('GET', `/api/files/${id}/public`)
    expect(shown.body).toMatchObject({ id, title: 'Hello', status: 'published', draft: false, activeFileList: ['index.html'] })
    const read = await call('GET', `/api/files/${id}`, key)
    expect(read.status).toBe(200)
    expect(read.body.versions.at(-1).files['index.html']).toContain('<h1>Hello</h1>')

    expect((await call('GET', '/api/keys', key)).body).toEqual({ apiKey: key })
    const rotated = await call('POST', '/api/keys', key)
    expect(rotated.status).toBe(200)
    const fresh: string = rotated.body.apiKey
    expect(fresh).not.toBe(key)
    const refused = await call('GET', `/api/files/${id}`, key)
    expect([refused.status, refused.body.error]).toEqual([401, 'Unauthorized'])
    expect((await call('GET', `/api/files/${id}`, fresh)).status).toBe(200)
  })
})

describe('registration is rate limited per client', () => {
  const limited = useServer({ mode: 'cloud', config: { rateLimits: { auth: 3 } } })

  it('answers 429 with Retry-After past the auth bucket, and says how many are left before', async () => {
    const register = () =>
      fetch(`${limited.ts.url}/api/agent/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"anonymous"}' })
    // The windows are whole minutes of the clock (rate-limit.ts): four requests that cross into the
    // next minute would start a new one. Close to that edge, begin in the next minute instead.
    const toNextMinute = 60_000 - (Date.now() % 60_000)
    if (toNextMinute < 5_000) await new Promise((resolve) => setTimeout(resolve, toNextMinute + 50))
    const first = await register()
    expect(first.status).toBe(200)
    expect([first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual(['3', '2'])
    await register()
    await register()
    const refused = await register()
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(((await refused.json()) as { error: string }).error).toBe('Too many requests')
  })
})
