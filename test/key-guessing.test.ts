import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { Agent, type OutgoingHttpHeaders, request } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { updateFolio } from '../src/api/files.js'
import { getPublicFolio, verifyAccessKey } from '../src/api/sharing.js'
import type { KeyGuessLimits } from '../src/server/limits/key-guesses.js'
import { type TestApi, testApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

/**
 * POST /api/files/{id}/public proves a private folio's access key: a password. Each client has a
 * budget of wrong keys of its own, then doubling delays, so a guesser slows only itself; a ceiling
 * per folio bounds guessers with many addresses. Whoever is not guessing gets in at once, whatever
 * the others do. Clients here are loopback addresses of their own (127.0.0.2, …: all of 127/8 is
 * loopback on Linux); delays are short so the tests are.
 */
const LIMITS: KeyGuessLimits = {
  perClient: 3,
  perSharedClient: 6,
  baseDelayMs: 200,
  maxDelayMs: 800,
  queue: 1,
  sharedQueue: 3,
  perFolio: 1_000,
  windowMs: 60_000,
  quietMs: 60_000,
}
/** The guard under test, not the requests-per-minute limit that also guards the endpoint. */
const RATE_LIMITS = { public: 1_000_000 }
/** Viewers rely on an answer within this, whatever others do. */
const VIEWER_MS = 2_000
/** Answered at once, with room for a busy machine (where a test tells this from a delay, the delay is longer). */
const AT_ONCE_MS = 1_000
/** Timers may fire a little early. */
const EARLY_MS = 20
const KEY = 'correct horse battery staple'

/** The n-th answer past the burst comes no sooner than this after the first wrong key: base, 2×base, … capped. */
const leastTimeFor = (n: number, limits = LIMITS) =>
  Array.from({ length: n }, (_, i) => Math.min(limits.maxDelayMs, limits.baseDelayMs * 2 ** i)).reduce((a, b) => a + b, 0)

interface Answer {
  status: number
  body: any
  retryAfter: number
  setCookie: string[]
  ms: number
}

const agents: Agent[] = []
afterAll(() => agents.forEach((agent) => agent.destroy()))

/** A client at a loopback address of its own (its socket's peer address is what the server sees). */
function clientAt(server: string, localAddress: string) {
  const agent = new Agent({ keepAlive: true })
  agents.push(agent)
  const target = new URL(server)
  return {
    guess(id: string, accessKey: string, headers: OutgoingHttpHeaders = {}): Promise<Answer> {
      const started = performance.now()
      const body = JSON.stringify({ accessKey })
      return new Promise((resolve, reject) => {
        const req = request(
          {
            host: target.hostname,
            port: target.port,
            path: `/api/files/${id}/public`,
            method: 'POST',
            localAddress,
            agent,
            headers: { 'content-type': 'application/json', ...headers },
          },
          (res) => {
            let text = ''
            res.setEncoding('utf8')
            res.on('data', (chunk) => (text += chunk))
            res.on('end', () =>
              resolve({
                status: res.statusCode!,
                body: JSON.parse(text),
                retryAfter: Number(res.headers['retry-after']),
                setCookie: res.headers['set-cookie'] ?? [],
                ms: performance.now() - started,
              }),
            )
          },
        )
        req.on('error', reject)
        req.end(body)
      })
    },
  }
}
type Client = ReturnType<typeof clientAt>

async function privateFolio(api: TestApi): Promise<string> {
  const id = await api.create('Board pack', { 'index.html': '<h1>Numbers</h1>' }, { status: 'published' })
  await api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: KEY } })
  return id
}

function expectRefused(answer: Answer) {
  expect(answer.status).toBe(429)
  expect(answer.body.error).toBe('Too many requests')
  expect(answer.retryAfter).toBeGreaterThanOrEqual(1)
}

function expectLetIn(answer: Answer, withinMs: number) {
  expect(answer.status).toBe(200)
  expect(answer.body).toEqual({ success: true })
  expect(answer.setCookie.some((cookie) => cookie.startsWith('folio_access_'))).toBe(true)
  expect(answer.ms).toBeLessThan(withinMs)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** `lanes` guesses at a time, each sent as soon as the one before was answered (429 or not), until `stop`. */
async function guessWithoutPause(client: Client, id: string, lanes: number, stop: () => boolean, started = performance.now()) {
  const answers: (Answer & { at: number })[] = []
  let n = 0
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (!stop()) {
        const answer = await client.guess(id, `wrong ${n++}`)
        answers.push({ ...answer, at: performance.now() - started })
      }
    }),
  )
  return answers
}

/**
 * Guessers in a process of their own (their loops would otherwise hold up the server's own event
 * loop, which no real attacker shares): each address sends `lanes` wrong keys at a time, each as
 * soon as the one before was answered, until told to stop on stdin. It says when a first guess
 * was refused (the folio's ceiling reached, or a client's delay), and at the end what they got.
 */
const GUESSERS = `
import { Agent, request } from 'node:http'
const { url, id, addresses, lanes } = JSON.parse(process.argv[1])
const target = new URL(url)
let stop = false
process.stdin.on('data', () => (stop = true)).resume()
const tally = { answered: 0, refused: 0, odd: [] }
const guess = (agent, localAddress, n) => new Promise((resolve, reject) => {
  const req = request({ host: target.hostname, port: target.port, path: '/api/files/' + id + '/public', method: 'POST', localAddress, agent, headers: { 'content-type': 'application/json' } }, (res) => {
    let text = ''
    res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => {
      const body = JSON.parse(text)
      if (res.statusCode === 200 && body.success === false) tally.answered++
      else if (res.statusCode === 429 && body.error === 'Too many requests' && Number(res.headers['retry-after']) >= 1) tally.refused++
      else tally.odd.push(res.statusCode + ' ' + text)
      if (tally.refused === 1) process.stdout.write('refused\\n')
      resolve()
    })
  })
  req.on('error', reject)
  req.end(JSON.stringify({ accessKey: 'wrong ' + localAddress + ' ' + n }))
})
await Promise.all(addresses.flatMap((address) => {
  const agent = new Agent({ keepAlive: true })
  let n = 0
  return Array.from({ length: lanes }, async () => { while (!stop) await guess(agent, address, n++) })
}))
process.stdout.write(JSON.stringify(tally) + '\\n')
process.exit(0)
`

describe('many addresses guessing one folio', () => {
  const CEILING = { ...LIMITS, perFolio: 30 }
  const s = useServer({ config: { keyGuesses: CEILING, rateLimits: RATE_LIMITS } })

  it('lets a viewer at another address in within 2 s while 10 addresses guess without pause, again and again', async () => {
    const id = await privateFolio(s.api)
    const addresses = Array.from({ length: 10 }, (_, i) => `127.0.0.${i + 2}`)
    const viewer = clientAt(s.ts.url, '127.0.0.12')
    const started = performance.now()
    const guessers = spawn(process.execPath, ['--input-type=module', '-e', GUESSERS, JSON.stringify({ url: s.ts.url, id, addresses, lanes: 3 })], {
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    let output = ''
    const refusedOnce = new Promise<void>((resolve) =>
      guessers.stdout.setEncoding('utf8').on('data', (chunk) => {
        output += chunk
        if (output.startsWith('refused\n')) resolve()
      }),
    )
    const exited = once(guessers, 'exit')
    const visits: Answer[] = []
    try {
      await Promise.race([refusedOnce, exited])
      for (let i = 0; i < 4; i++) {
        await sleep(700)
        visits.push(await viewer.guess(id, KEY))
      }
    } finally {
      guessers.stdin.end('stop')
      await exited
    }
    const seconds = (performance.now() - started) / 1000
    const tally = JSON.parse(output.split('\n').at(-2)!) as { answered: number; refused: number; odd: string[] }

    for (const visit of visits) expectLetIn(visit, VIEWER_MS)
    // Wrong keys are answered {success:false}, or refused with 429 and Retry-After: nothing else.
    expect(tally.odd).toEqual([])
    // The attack went on the whole time (from before the first visit: hundreds of attempts, most
    // refused before any comparison)…
    expect(tally.refused).toBeGreaterThan(100)
    // …and all ten together got no more answers than the folio's ceiling (its bucket, what refilled
    // while they went on, and one first key each as newcomers), far fewer than ten budgets.
    expect(tally.answered).toBeLessThanOrEqual(CEILING.perFolio + Math.ceil((seconds * 1000 * CEILING.perFolio) / CEILING.windowMs) + addresses.length)
    expect(tally.answered).toBeGreaterThanOrEqual(CEILING.perFolio)
  })
})

describe('one client alone', () => {
  const s = useServer({ config: { keyGuesses: LIMITS, rateLimits: RATE_LIMITS } })

  it('gets its burst at once, then answers only as its doubling delays allow; attempts beyond the one waiting get 429', async () => {
    const id = await privateFolio(s.api)
    const guesser = clientAt(s.ts.url, '127.0.0.20')
    const WINDOW_MS = 4_000
    const started = performance.now()
    const answers = await guessWithoutPause(guesser, id, 4, () => performance.now() - started >= WINDOW_MS, started)
    for (const answer of answers.filter((a) => a.status !== 200)) expectRefused(answer)
    const times = answers
      .filter((a) => a.status === 200)
      .map((a) => a.at)
      .sort((a, b) => a - b)
    // At most: the burst, then one answer per delay (200, 400, 800, 800 … ms) in the window and the
    // one waiting when it closed: 3 + 7 + 1.
    const delaysInWindow = Array.from({ length: 100 }, (_, i) => leastTimeFor(i + 1)).filter((ms) => ms <= WINDOW_MS).length
    expect(times.length).toBeLessThanOrEqual(LIMITS.perClient + delaysInWindow + 1)
    // Slowed, not shut out: the delays' answers came (but on a busy machine the last one or two).
    expect(times.length).toBeGreaterThanOrEqual(LIMITS.perClient + delaysInWindow - 2)
    expect(times.slice(0, LIMITS.perClient).every((ms) => ms < AT_ONCE_MS)).toBe(true)
    // The k-th answer past the burst: no sooner than the k delays before it.
    times.slice(LIMITS.perClient).forEach((ms, k) => expect(ms, `answer ${k + 1} past the burst`).toBeGreaterThanOrEqual(leastTimeFor(k + 1) - EARLY_MS))
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0)
    // Viewers' other calls are not part of it.
    expect((await s.api.send(getPublicFolio, { params: { id } })).status).toBe(200)
  })
})

describe('a viewer who mistyped the key', () => {
  const SLOW = { ...LIMITS, perClient: 2, baseDelayMs: 1_500, maxDelayMs: 3_000 }
  const s = useServer({ config: { keyGuesses: SLOW, rateLimits: RATE_LIMITS } })

  it('gets in with the right key after its delay; a second attempt meanwhile gets an honest Retry-After', async () => {
    const id = await privateFolio(s.api)
    const viewer = clientAt(s.ts.url, '127.0.0.30')
    let typoSentAt = 0
    for (const typo of ['correct horse', 'correct horse battery']) {
      typoSentAt = performance.now()
      const answer = await viewer.guess(id, typo)
      expect(answer.body).toEqual({ success: false })
      expect(answer.ms).toBeLessThan(AT_ONCE_MS)
    }
    const right = viewer.guess(id, KEY)
    await sleep(100)
    // Impatient: a second attempt while the first waits is refused, and told when to come back.
    const meanwhile = await viewer.guess(id, KEY)
    const toldAt = performance.now()
    expectRefused(meanwhile)
    expect(meanwhile.retryAfter).toBeLessThanOrEqual(Math.ceil(SLOW.baseDelayMs / 1000))
    expectLetIn(await right, SLOW.baseDelayMs + AT_ONCE_MS)
    // Its delay counts from the last wrong key, which was answered no sooner than it was sent.
    expect(performance.now() - typoSentAt).toBeGreaterThanOrEqual(SLOW.baseDelayMs - EARLY_MS)
    // Back when told: let in at once (the right key forgave the typos).
    await sleep(toldAt + meanwhile.retryAfter * 1000 - performance.now())
    expectLetIn(await viewer.guess(id, KEY), AT_ONCE_MS)
    const typo = await viewer.guess(id, 'typo again')
    expect(typo.body).toEqual({ success: false })
    expect(typo.ms).toBeLessThan(AT_ONCE_MS)
  })
})

describe("the folio's ceiling", () => {
  const CEILING = { ...LIMITS, perClient: 2, perFolio: 4, windowMs: 60_000 }
  const s = useServer({ config: { keyGuesses: CEILING, rateLimits: RATE_LIMITS } })

  it('refuses clients that guessed the folio wrong once it is reached, and still answers clients that never did at once', async () => {
    const id = await privateFolio(s.api)
    const [a, b, c, d] = [40, 41, 42, 43].map((n) => clientAt(s.ts.url, `127.0.0.${n}`)) as [Client, Client, Client, Client]
    for (const guesser of [a, b]) for (let i = 0; i < CEILING.perClient; i++) expect((await guesser.guess(id, `wrong ${i}`)).body).toEqual({ success: false })
    // Four wrong keys: the ceiling. a is within its own budget no more, b neither: both refused,
    // the right key too (decided before it is compared), until the bucket refills one wrong key.
    for (const guesser of [a, b]) {
      const refused = await guesser.guess(id, KEY)
      expectRefused(refused)
      expect(refused.retryAfter).toBeLessThanOrEqual(CEILING.windowMs / CEILING.perFolio / 1000)
    }
    // A newcomer's wrong key is answered, and so is another newcomer's right one.
    const newcomer = await c.guess(id, 'first try')
    expect(newcomer.body).toEqual({ success: false })
    expect(newcomer.ms).toBeLessThan(AT_ONCE_MS)
    expectLetIn(await d.guess(id, KEY), AT_ONCE_MS)
    // Having guessed wrong, c is refused now too.
    expectRefused(await c.guess(id, KEY))
  })
})

describe('guessing through the tunnel (a localtunnel server adds no X-Forwarded-For: one shared client)', () => {
  const s = useServer({ config: { keyGuesses: LIMITS, rateLimits: RATE_LIMITS } })

  it('answers its larger burst and queue of 600 wrong keys, whatever X-Forwarded-For each claims; the rest get 429', async () => {
    const id = await privateFolio(s.api)
    const tunnel = clientAt(s.ts.server.tunnelTarget, '127.0.0.1')
    const started = performance.now()
    const answers = await Promise.all(
      Array.from({ length: 600 }, async (_, i) => {
        const answer = await tunnel.guess(id, `guess ${i}`, { 'x-forwarded-for': `198.51.100.${i % 250}, 203.0.113.${i % 200}` })
        return { ...answer, at: performance.now() - started }
      }),
    )
    const lasted = performance.now() - started
    const answered = answers.filter((a) => a.status === 200)
    for (const answer of answered) expect(answer.body).toEqual({ success: false })
    for (const answer of answers.filter((a) => a.status !== 200)) expectRefused(answer)
    // The burst, then the queue, one after the other after doubling delays (600 connections take a
    // while to open: more come in while the queue empties), and no more than those delays allow.
    const times = answered.map((a) => a.at).sort((a, b) => a - b)
    expect(times.length).toBeGreaterThanOrEqual(LIMITS.perSharedClient + LIMITS.sharedQueue)
    times.slice(LIMITS.perSharedClient).forEach((ms, k) => expect(ms, `answer ${k + 1} past the burst`).toBeGreaterThanOrEqual(leastTimeFor(k + 1) - EARLY_MS))
    const delaysInTime = Array.from({ length: 100 }, (_, i) => leastTimeFor(i + 1)).filter((ms) => ms <= lasted).length
    expect(times.length).toBeLessThanOrEqual(LIMITS.perSharedClient + delaysInTime)

    // A viewer at an address of its own gets in at once…
    expectLetIn(await clientAt(s.ts.url, '127.0.0.50').guess(id, KEY), AT_ONCE_MS)
    // …and so does the right key through the tunnel, but in its turn: there it cannot be told
    // from the guesser, whose queued guesses had the delay up to the cap.
    const remote = await tunnel.guess(id, KEY, { 'x-forwarded-for': '192.0.2.99' })
    expectLetIn(remote, LIMITS.maxDelayMs + AT_ONCE_MS)
    expect(performance.now() - started).toBeGreaterThanOrEqual(leastTimeFor(times.length - LIMITS.perSharedClient + 1) - EARLY_MS)
  })

  it('leaves folios without a key, unknown ids and bodies without a key string out of the count', async () => {
    const open = await s.api.create('Open', { 'index.html': 'x' }, { status: 'published' })
    const id = await privateFolio(s.api)
    const tunnel = clientAt(s.ts.server.tunnelTarget, '127.0.0.1')
    for (let i = 0; i < 20; i++) {
      expect((await tunnel.guess(open, `x${i}`)).body).toEqual({ success: false })
      expect((await tunnel.guess('nope12345678', `x${i}`)).body).toEqual({ success: false })
    }
    const tunnelApi = testApi(s.ts.server.tunnelTarget)
    for (let i = 0; i < 20; i++) expect((await tunnelApi.send(verifyAccessKey, { params: { id }, raw: '{"accessKey": 7}' })).body).toEqual({ success: false })
    expectLetIn(await tunnel.guess(id, KEY), AT_ONCE_MS)
  })
})

describe('FOLIO_TRUST_PROXY: a tunnel server or proxy of the operator that appends X-Forwarded-For', () => {
  const PROXIED = { ...LIMITS, baseDelayMs: 1_000, maxDelayMs: 2_000 }
  const s = useServer({ config: { keyGuesses: PROXIED, rateLimits: RATE_LIMITS, trustProxy: true } })

  it('tells clients apart by the hop it appended, IPv6 ones by their /64', async () => {
    const id = await privateFolio(s.api)
    const proxy = clientAt(s.ts.server.tunnelTarget, '127.0.0.1')
    const guesser = { 'x-forwarded-for': '192.0.2.1, 2001:db8:1:2::1' }
    let lastSentAt = 0
    for (let i = 0; i < PROXIED.perClient; i++) {
      lastSentAt = performance.now()
      const answer = await proxy.guess(id, `g${i}`, guesser)
      expect(answer.body).toEqual({ success: false })
      expect(answer.ms).toBeLessThan(AT_ONCE_MS)
    }
    // Past its budget: another address in the guesser's /64 is the guesser (one who has an
    // address has the /64), slowed, and its next attempt meanwhile is refused.
    const sameNetwork = proxy.guess(id, 'still wrong', { 'x-forwarded-for': '2001:db8:1:2:ffff:ffff:ffff:ffff' })
    await sleep(50)
    expectRefused(await proxy.guess(id, 'and another', { 'x-forwarded-for': '2001:0db8:0001:0002:0:0:0:7' }))
    expect((await sameNetwork).body).toEqual({ success: false })
    expect(performance.now() - lastSentAt).toBeGreaterThanOrEqual(PROXIED.baseDelayMs - EARLY_MS)
    // Only the last hop counts (what comes before it is whatever the client wrote): a newcomer.
    expectLetIn(await proxy.guess(id, KEY, { 'x-forwarded-for': '2001:db8:1:2::1, 203.0.113.7' }), AT_ONCE_MS)
    // One in the next /64 is another client.
    expectLetIn(await proxy.guess(id, KEY, { 'x-forwarded-for': '2001:db8:1:3::1' }), AT_ONCE_MS)
  })
})
