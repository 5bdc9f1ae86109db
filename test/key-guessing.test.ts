import { describe, expect, it } from 'vitest'
import { updateFolio } from '../src/api/files.js'
import { getPublicFolio, verifyAccessKey } from '../src/api/sharing.js'
import type { KeyGuessLimits } from '../src/server/key-guesses.js'
import { type Reply, type TestApi, testApi } from './helpers/api.js'
import { lanAddresses } from './helpers/cli-process.js'
import { useServer } from './helpers/use-server.js'

/**
 * POST /api/files/{id}/public proves a private folio's access key: a password people choose. An
 * online guesser must get only a few answers a minute per folio, however many clients it claims
 * to be, while someone who has the key still gets in. Delays here are short so the test is.
 */
const LIMITS: KeyGuessLimits = { perFolio: 5, perClient: 10, newcomers: 2, baseDelayMs: 1_000, maxDelayMs: 2_000, queue: 3, quietMs: 60_000 }
/** Answered at once: well under the first delay, with room for a busy machine. */
const AT_ONCE_MS = 600
/** Slowed: at least the first delay (timers may fire a little early). */
const SLOWED_MS = LIMITS.baseDelayMs - 20

/** The least time n slowed attempts take one after the other: base, 2×base, … capped. */
const leastTimeFor = (n: number) => Array.from({ length: n }, (_, i) => Math.min(LIMITS.maxDelayMs, LIMITS.baseDelayMs * 2 ** i)).reduce((a, b) => a + b, 0)
const KEY = 'correct horse'
const lan = lanAddresses()[0]

async function privateFolio(api: TestApi): Promise<string> {
  const id = await api.create('Board pack', { 'index.html': '<h1>Numbers</h1>' }, { status: 'published' })
  await api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: KEY } })
  return id
}

const guess = (api: TestApi, id: string, accessKey: string, headers: Record<string, string> = {}) => api.send(verifyAccessKey, { params: { id }, body: { accessKey }, headers })

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await work
  return { value, ms: performance.now() - started }
}

function expectRefused(reply: Reply) {
  expect(reply.status).toBe(429)
  expect(reply.body.error).toBe('Too many requests')
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
}

describe('guessing through the tunnel (a localtunnel server adds no X-Forwarded-For: one client)', () => {
  const s = useServer({ host: '0.0.0.0', config: { keyGuesses: LIMITS } })

  it('answers a few of 600 wrong keys, each claiming its own X-Forwarded-For; the rest get 429 before any comparison', async () => {
    const id = await privateFolio(s.api)
    const tunnel = testApi(s.ts.server.tunnelTarget)
    const { value: replies, ms } = await timed(
      Promise.all(Array.from({ length: 600 }, (_, i) => guess(tunnel, id, `guess ${i}`, { 'x-forwarded-for': `198.51.100.${i % 250}, 203.0.113.${i % 200}` }))),
    )
    const answered = replies.filter((r) => r.status === 200)
    for (const reply of answered) expect(reply.body).toEqual({ success: false })
    for (const reply of replies.filter((r) => r.status !== 200)) expectRefused(reply)
    // The budget at once, then one at a time behind a queue of three (refilled while the burst
    // lasted), each after a longer delay: no more answers than those delays leave time for.
    const slowed = answered.length - LIMITS.perFolio
    expect(slowed).toBeGreaterThanOrEqual(LIMITS.queue)
    expect(ms).toBeGreaterThanOrEqual(leastTimeFor(slowed) - 20 * slowed)
    expect(answered.length).toBeLessThan(20)

    // Someone who has the key and never guessed wrong gets in at once, attack or not…
    const colleague = testApi(`http://${lan}:${new URL(s.ts.url).port}`)
    const right = await timed(guess(colleague, id, KEY))
    expect(right.value.body).toEqual({ success: true })
    expect(right.value.headers.get('set-cookie')).toMatch(/^folio_access_/)
    expect(right.ms).toBeLessThan(AT_ONCE_MS)
    // …and so does the right key through the tunnel, but only in its turn: there it cannot be told
    // from the guesser.
    const remote = await timed(guess(tunnel, id, KEY, { 'x-forwarded-for': '192.0.2.99' }))
    expect(remote.value.body).toEqual({ success: true })
    expect(remote.ms).toBeGreaterThanOrEqual(LIMITS.maxDelayMs - 20)
  })

  it('leaves folios without a key, unknown ids and bodies without a key string out of the count', async () => {
    const open = await s.api.create('Open', { 'index.html': 'x' }, { status: 'published' })
    const tunnel = testApi(s.ts.server.tunnelTarget)
    for (let i = 0; i < 20; i++) {
      expect((await guess(tunnel, open, `x${i}`)).body).toEqual({ success: false })
      expect((await guess(tunnel, 'nope12345678', `x${i}`)).body).toEqual({ success: false })
    }
    const id = await privateFolio(s.api)
    for (let i = 0; i < 20; i++) expect((await tunnel.send(verifyAccessKey, { params: { id }, raw: '{"accessKey": 7}' })).body).toEqual({ success: false })
    const { value, ms } = await timed(guess(tunnel, id, KEY))
    expect(value.body).toEqual({ success: true })
    expect(ms).toBeLessThan(AT_ONCE_MS)
  })
})

describe('a guesser that paces itself', () => {
  const s = useServer({ config: { keyGuesses: { ...LIMITS, windowMs: 400, quietMs: 1_500 } } })

  it('is slowed past the budget until the folio was quiet, not just until the window turns; the delays grow to a cap', async () => {
    const id = await privateFolio(s.api)
    const tunnel = testApi(s.ts.server.tunnelTarget)
    const times: number[] = []
    for (let i = 0; i < LIMITS.perFolio + 4; i++) {
      if (i === LIMITS.perFolio) await new Promise((resolve) => setTimeout(resolve, 500)) // a fresh window
      const { value, ms } = await timed(guess(tunnel, id, `slow ${i}`))
      expect(value.body).toEqual({ success: false })
      times.push(ms)
    }
    expect(Math.max(...times.slice(0, LIMITS.perFolio))).toBeLessThan(AT_ONCE_MS)
    // 1, 2, 2, 2 s: growing, then capped.
    const slowed = times.slice(LIMITS.perFolio)
    expect(slowed.map((ms) => ms >= SLOWED_MS)).toEqual([true, true, true, true])
    expect(slowed.slice(1).map((ms) => ms >= 2 * LIMITS.baseDelayMs - 20)).toEqual([true, true, true])
    expect(slowed[0]!).toBeLessThan(2 * LIMITS.baseDelayMs - 20)
    expect(slowed[3]!).toBeLessThan(LIMITS.maxDelayMs + AT_ONCE_MS)
    // A quiet spell forgives the folio.
    await new Promise((resolve) => setTimeout(resolve, 1_600))
    const after = await timed(guess(tunnel, id, 'after a while'))
    expect(after.value.body).toEqual({ success: false })
    expect(after.ms).toBeLessThan(AT_ONCE_MS)
  })
})

describe('guessing from this machine and the LAN (clients told apart by their socket)', () => {
  const s = useServer({ host: '0.0.0.0', config: { keyGuesses: LIMITS } })

  it('slows one client past its budget over all folios, even where each folio is under its own', async () => {
    const folios = [await privateFolio(s.api), await privateFolio(s.api), await privateFolio(s.api)]
    const times: number[] = []
    for (let round = 0; round < 4; round++) for (const id of folios) times.push((await timed(guess(s.api, id, `wrong ${round}`))).ms)
    // 12 wrong keys, at most 4 per folio: the client's own budget of 10 is what slows the last two.
    expect(Math.max(...times.slice(0, LIMITS.perClient))).toBeLessThan(AT_ONCE_MS)
    expect(times.slice(LIMITS.perClient).every((ms) => ms >= SLOWED_MS)).toBe(true)
    // Another client, and this one's right key elsewhere, are not slowed.
    const other = testApi(`http://${lan}:${new URL(s.ts.url).port}`)
    const otherRight = await timed(guess(other, folios[0]!, KEY))
    expect(otherRight.value.body).toEqual({ success: true })
    expect(otherRight.ms).toBeLessThan(AT_ONCE_MS)
  })

  it('bounds 600 guesses a minute from one address to the budget and a short queue', async () => {
    const id = await privateFolio(s.api)
    // From the network address: this machine's loopback client is over its own budget already.
    const client = testApi(`http://${lan}:${new URL(s.ts.url).port}`)
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => guess(client, id, `fast ${i}`)))
    // All 60 arrive before the first delay ends: the budget and the queue, nothing more.
    expect(replies.filter((r) => r.status === 200).length).toBe(LIMITS.perFolio + LIMITS.queue)
    for (const reply of replies.filter((r) => r.status !== 200)) expectRefused(reply)
    // Viewers' other calls are not part of it.
    expect((await client.send(getPublicFolio, { params: { id } })).status).toBe(200)
  })
})

describe('FOLIO_TRUST_PROXY: a tunnel server or proxy of the operator that appends X-Forwarded-For', () => {
  const s = useServer({ config: { keyGuesses: LIMITS, trustProxy: true } })

  it('tells clients apart by the hop it appended, so a newcomer is not queued behind a guesser', async () => {
    const id = await privateFolio(s.api)
    const tunnel = testApi(s.ts.server.tunnelTarget)
    const guesser = { 'x-forwarded-for': '192.0.2.1, 203.0.113.66' }
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => guess(tunnel, id, `g${i}`, guesser)))
    expect(replies.filter((r) => r.status === 200).length).toBe(LIMITS.perFolio + LIMITS.queue)
    // Only the last hop counts: the guesser cannot pass for the newcomer by prepending its address.
    const newcomer = await timed(guess(tunnel, id, KEY, { 'x-forwarded-for': '203.0.113.66, 203.0.113.7' }))
    expect(newcomer.value.body).toEqual({ success: true })
    expect(newcomer.ms).toBeLessThan(AT_ONCE_MS)
    const again = await timed(guess(tunnel, id, 'still wrong', guesser))
    expect(again.value.body).toEqual({ success: false })
    expect(again.ms).toBeGreaterThanOrEqual(SLOWED_MS)
  })
})
