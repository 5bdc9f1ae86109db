import type { ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { aiConversation, setWorkspaceAi } from '../src/api/ai.js'
import { addressRange, isPublicAddress, privateHostAllowed, privateHostsFrom } from '../src/domain/public-address.js'
import { destinationProblem, guardedFetch, type OutboundPolicy, OutboundRefused, OutboundUnreachable, type Resolve } from '../src/server/http/outbound-guard.js'
import { postJson } from '../src/server/engagement/webhook-delivery.js'
import { testApi } from './helpers/api.js'
import { answer, ollamaText, openaiText, page } from './helpers/fake-ai.js'
import { type HeardRequest, loopbackListener, type LoopbackListener, TEST_CERT } from './helpers/listeners.js'
import { bearer, obtainTokens } from './helpers/oauth.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'
import { createWorkspace } from './helpers/workspaces.js'

/**
 * One guard for every request the server makes on a user's behalf (server/http/outbound-guard.ts):
 * AI providers, web_fetch, chat webhooks. Loopback listeners stand in for the private network;
 * each counts the connections made to it, so "refused" means "never dialled". Names resolve
 * through a stand-in for DNS, and a listener on 127.0.0.8 stands in for a public host where a
 * test says so (isPublic).
 */

/** A stand-in for DNS: these names, and nothing else. */
const names =
  (map: Record<string, string>): Resolve =>
  async (hostname) => {
    const address = map[hostname.replace(/\.$/, '')]
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return [{ address, family: address.includes(':') ? 6 : 4 }]
  }
const DNS = names({ 'ai.test': '127.0.0.7', 'public.test': '127.0.0.8', 'other.test': '127.0.0.7', 'closed.test': '127.0.0.7' })
/** 127.0.0.8 plays a public host; every other address is what it is. */
const isPublic = (address: string) => address === '127.0.0.8' || isPublicAddress(address)

/** What no caller may ever be told: the remote's TLS and socket words. */
const SOCKET_WORDS = /self.signed|certificate|altname|wrong version|ECONN|EHOST|ENOTFOUND|socket|getaddrinfo|TLS|SSL/i

describe('which addresses are public (ipaddr.js ranges)', () => {
  it.each([
    ['127.0.0.7', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.7', 'loopback'],
    ['::ffff:7f00:7', 'loopback'],
    ['::127.0.0.7', 'ipv4Compatible'],
    ['::7f00:7', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['192.0.2.1', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
  ])('%s is %s: refused', (address, range) => {
    expect(addressRange(address)).toBe(range)
    expect(isPublicAddress(address)).toBe(false)
  })

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '::ffff:808:808', '2606:4700:4700::1111', '[2a00:1450:4001::200e]'])('%s is public', (address) => {
    expect(addressRange(address)).toBe('unicast')
    expect(isPublicAddress(address)).toBe(true)
  })

  it('a name is no address', () => {
    expect(addressRange('example.com')).toBeUndefined()
    expect(isPublicAddress('example.com')).toBe(false)
  })

  it('FOLIO_ALLOW_PRIVATE_HOSTS: names, addresses and ranges; anything else is refused loudly', () => {
    const list = privateHostsFrom(' Ollama.Internal , 10.0.0.5, fd00::/8, [::1] ')
    expect(list.names).toEqual(['ollama.internal'])
    expect(privateHostAllowed(list, 'ollama.internal', '10.9.9.9')).toBe(true)
    expect(privateHostAllowed(list, 'other.internal', '10.0.0.5')).toBe(true)
    expect(privateHostAllowed(list, '10.0.0.5')).toBe(true)
    expect(privateHostAllowed(list, 'x', 'fd12::1')).toBe(true)
    expect(privateHostAllowed(list, 'x', '::1')).toBe(true)
    expect(privateHostAllowed(list, 'x', '::ffff:10.0.0.5')).toBe(true)
    expect(privateHostAllowed(list, 'other.internal', '10.0.0.6')).toBe(false)
    expect(privateHostAllowed(privateHostsFrom(undefined), 'localhost', '127.0.0.1')).toBe(false)
    expect(() => privateHostsFrom('10.0.0.0/99')).toThrow('FOLIO_ALLOW_PRIVATE_HOSTS: "10.0.0.0/99"')
    expect(() => privateHostsFrom('http://x')).toThrow('neither a host name')
  })

  it('judges a URL without a network call when it is saved', () => {
    for (const url of [
      'https://localhost/v1',
      'https://models.localhost./v1',
      'https://127.0.0.7/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.7]/',
      'https://[::127.0.0.7]/',
      'https://169.254.169.254/',
      'http://0.0.0.0/',
      'https://[fd00::1]/',
      'https://192.0.2.1/',
    ]) {
      expect([url, destinationProblem(url, {})]).toEqual([url, 'points into a private network'])
    }
    expect(destinationProblem('https://api.openai.com/v1', {})).toBeUndefined()
    expect(destinationProblem('ftp://example.com', {})).toBe('must be an http(s) URL')
    expect(destinationProblem('https://127.0.0.7/', { allowPrivate: true })).toBeUndefined()
    expect(destinationProblem('https://127.0.0.7/', { privateHosts: privateHostsFrom('127.0.0.0/8') })).toBeUndefined()
    expect(destinationProblem('https://localhost/', { privateHosts: privateHostsFrom('localhost') })).toBeUndefined()
  })
})

describe('the guard, where the socket connects', () => {
  let target: LoopbackListener
  let local: LoopbackListener
  let standIn: LoopbackListener
  let tlsTarget: LoopbackListener
  beforeAll(async () => {
    target = await loopbackListener({
      handle: (req, res) => {
        if (req.url === '/same-origin') return void res.writeHead(307, { location: '/echo' }).end()
        if (req.url === '/cut') {
          res.writeHead(200, { 'content-type': 'text/plain' })
          res.write('first part')
          return void setTimeout(() => res.socket?.destroy(), 20)
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ heard: req.url }))
      },
    })
    local = await loopbackListener({ host: '127.0.0.1' })
    tlsTarget = await loopbackListener({ tls: true })
    standIn = await loopbackListener({
      host: '127.0.0.8',
      handle: (req: HeardRequest, res) => {
        const to: Record<string, string> = {
          '/to-target': `${target.url}/hit`,
          '/to-name': `http://ai.test:${target.port}/hit`,
          '/to-mapped': `http://[::ffff:127.0.0.7]:${target.port}/hit`,
          '/to-metadata': 'http://169.254.169.254/latest/meta-data',
          '/loop': '/loop',
          '/to-file': 'file:///etc/passwd',
        }
        if (req.url === '/see-other') return void res.writeHead(303, { location: `${target.url}/echo` }).end()
        if (to[req.url]) return void res.writeHead(req.url === '/to-target' ? 307 : 302, { location: to[req.url]! }).end()
        res.writeHead(200, { 'content-type': 'text/plain' }).end('public stand-in')
      },
    })
  })
  afterAll(() => Promise.all([target, local, standIn, tlsTarget].map((l) => l.close())))

  const guarded = (policy: OutboundPolicy = {}) => guardedFetch({ resolve: DNS, isPublic, ...policy })
  const refused = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(OutboundRefused)
    return error as OutboundRefused
  }

  it('refuses loopback given as an address, in every spelling, before connecting', async () => {
    const p = target.port
    for (const url of [
      `http://127.0.0.7:${p}/`,
      `http://[::1]:${p}/`,
      `http://[::ffff:127.0.0.7]:${p}/`,
      `http://[::ffff:7f00:7]:${p}/`,
      `http://[::127.0.0.7]:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://2130706439:${p}/`,
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00::1]/',
      'http://192.0.2.1/',
    ]) {
      expect((await refused(guarded()(url))).message).toContain('is not a public address')
    }
    expect(target.connections()).toBe(0)
  })

  it('refuses a name that resolves to loopback: the real localhost, and a name DNS points there', async () => {
    await refused(guardedFetch({})(`http://localhost:${local.port}/`))
    await refused(guarded()(`http://ai.test:${target.port}/`))
    await refused(guarded()(`http://AI.TEST.:${target.port}/`))
    expect((await refused(guarded()(`http://ai.test:${target.port}/`))).message).toBe(
      "ai.test is not a public address: the server does not connect to private, loopback or reserved networks on a user's behalf.",
    )
    expect([local.connections(), target.connections()]).toEqual([0, 0])
  })

  it('judges every redirect hop: a public host that redirects into loopback gets nowhere', async () => {
    const fetch = guarded()
    expect(await (await fetch(`${standIn.url}/plain`)).text()).toBe('public stand-in')
    for (const hop of ['/to-target', '/to-name', '/to-mapped', '/to-metadata']) await refused(fetch(`${standIn.url}${hop}`, { method: 'POST', body: '{}' }))
    expect((await refused(fetch(`${standIn.url}/to-file`))).message).toBe('A redirect to file: is not followed.')
    expect(standIn.requests.map((r) => r.url)).toEqual(['/plain', '/to-target', '/to-name', '/to-mapped', '/to-metadata', '/to-file'])
    expect(target.connections()).toBe(0)
  })

  it('lets a private destination through where the operator allows it', async () => {
    const before = target.requests.length
    expect(await (await guarded({ allowPrivate: true })(`${target.url}/a`)).json()).toEqual({ heard: '/a' })
    expect(await (await guarded({ privateHosts: privateHostsFrom('ai.test') })(`http://ai.test:${target.port}/b`)).json()).toEqual({ heard: '/b' })
    expect(await (await guarded({ privateHosts: privateHostsFrom('127.0.0.0/8') })(`${target.url}/c`)).json()).toEqual({ heard: '/c' })
    // Another name is not allowed by this one, though it resolves to the same address.
    await refused(guarded({ privateHosts: privateHostsFrom('ai.test') })(`http://other.test:${target.port}/d`))
    expect(target.requests.slice(before).map((r) => r.url)).toEqual(['/a', '/b', '/c'])
  })

  it('follows redirects as fetch does, at most maxRedirects, and leaves credentials at their origin', async () => {
    const fetch = guarded({ privateHosts: privateHostsFrom('127.0.0.7') })
    const before = target.requests.length
    const headers = { authorization: 'Bearer sk-secret', 'x-api-key': 'sk-ant-secret', 'content-type': 'application/json', 'user-agent': 'folio-test' }
    const crossed = await fetch(`${standIn.url}/to-target`, { method: 'POST', headers, body: '{"a":1}' })
    expect([crossed.status, crossed.url]).toEqual([200, `${target.url}/hit`])
    const [hit] = target.requests.slice(before)
    expect(hit).toMatchObject({ method: 'POST', url: '/hit', body: '{"a":1}' })
    expect(hit!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'folio-test' })
    expect(hit!.headers.authorization).toBeUndefined()
    expect(hit!.headers['x-api-key']).toBeUndefined()
    expect(standIn.requests.at(-1)!.headers.authorization).toBe('Bearer sk-secret')

    await fetch(`${target.url}/same-origin`, { method: 'POST', headers, body: '{}' })
    expect(target.requests.at(-1)).toMatchObject({ url: '/echo', method: 'POST', headers: { authorization: 'Bearer sk-secret' } })
    await fetch(`${standIn.url}/see-other`, { method: 'POST', headers, body: '{"gone":true}' })
    expect(target.requests.at(-1)).toMatchObject({ url: '/echo', method: 'GET', body: '' })

    expect((await refused(fetch(`${standIn.url}/loop`))).message).toBe('127.0.0.8 redirected more than 3 times.')
    const manual = await guarded({ maxRedirects: 0 })(`${standIn.url}/to-target`)
    expect([manual.status, manual.headers.get('location')]).toEqual([307, `${target.url}/hit`])
  })

  it('says "could not be reached" and nothing of the socket or TLS; the detail is for the log', async () => {
    const closed = await loopbackListener()
    await closed.close()
    const refusedConnection = await guarded({ allowPrivate: true })(closed.url).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(refusedConnection).toBeInstanceOf(OutboundUnreachable)
    expect((refusedConnection as OutboundUnreachable).message).toBe('127.0.0.7 could not be reached.')
    expect((refusedConnection as OutboundUnreachable).detail).toContain('ECONNREFUSED')

    const untrusted = await guarded({ allowPrivate: true })(`${tlsTarget.url}/v1`).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(untrusted).toBeInstanceOf(OutboundUnreachable)
    expect((untrusted as Error).message).not.toMatch(SOCKET_WORDS)
    expect((untrusted as OutboundUnreachable).detail).toMatch(/self.signed/)
    const wrongName = await guarded({ privateHosts: privateHostsFrom('other.test'), ca: TEST_CERT })(`https://other.test:${tlsTarget.port}/`).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect((wrongName as Error).message).toBe('other.test could not be reached.')
    expect((wrongName as OutboundUnreachable).detail).toContain('altnames')
    expect(tlsTarget.requests).toEqual([])

    // With the certificate trusted (tests only), the same listener answers.
    expect(await (await guarded({ allowPrivate: true, ca: TEST_CERT })(`${tlsTarget.url}/v1`)).json()).toEqual({ ok: true })
    expect(tlsTarget.requests.map((r) => r.url)).toEqual(['/v1'])
  })

  it('streams the body; a body cut short errors as fetch does ("terminated"), and an abort with its reason', async () => {
    const response = await guarded({ allowPrivate: true })(`${target.url}/cut`)
    expect(response.status).toBe(200)
    await expect(response.text()).rejects.toThrow('terminated')
    const controller = new AbortController()
    const reason = Object.assign(new Error('The client closed the connection.'), { name: 'AbortError' })
    controller.abort(reason)
    await expect(guarded({ allowPrivate: true })(`${target.url}/late`, { signal: controller.signal })).rejects.toBe(reason)
  })
})

describe('chat webhooks go through the guard at every delivery', () => {
  let receiver: LoopbackListener
  beforeAll(async () => {
    receiver = await loopbackListener()
  })
  afterAll(() => receiver.close())

  it('a webhook name that resolves into loopback is refused when it is delivered to; the operator may allow it', async () => {
    const url = `http://hooks.test:${receiver.port}/services/T/B/secret`
    const resolve = names({ 'hooks.test': '127.0.0.7' })
    const policy = { resolve, isPublic, maxRedirects: 0 }
    expect(destinationProblem(url, policy)).toBeUndefined()
    await expect(postJson(url, { text: 'hi' }, { timeoutMs: 2_000, policy })).rejects.toThrow('hooks.test is not a public address')
    await expect(postJson(`http://[::ffff:127.0.0.7]:${receiver.port}/x`, { text: 'hi' }, { timeoutMs: 2_000, policy })).rejects.toThrow(
      'points into a private network',
    )
    expect(receiver.connections()).toBe(0)
    expect(await postJson(url, { text: 'hi' }, { timeoutMs: 2_000, policy: { ...policy, privateHosts: privateHostsFrom('hooks.test') } })).toEqual({
      status: 200,
      retryAfterMs: undefined,
    })
    expect(receiver.requests.map((r) => JSON.parse(r.body))).toEqual([{ text: 'hi' }])
  })
})

describe('a Cloud workspace’s AI base URL', () => {
  let provider: LoopbackListener
  let standIn: LoopbackListener
  let closedPort: number
  let ts: TestServer
  let open: TestServer
  const reply = (req: HeardRequest, res: ServerResponse) =>
    openaiText(answer('Done.', { 'index.html': page('Reached') }))(res, { ...req, body: JSON.parse(req.body) })

  beforeAll(async () => {
    provider = await loopbackListener({ tls: true, handle: reply })
    // A public provider (as far as the guard is told) that redirects into the private network.
    standIn = await loopbackListener({
      tls: true,
      host: '127.0.0.8',
      handle: (_req, res) => void res.writeHead(307, { location: `${provider.url}/v1/chat/completions` }).end(),
    })
    const closed = await loopbackListener()
    closedPort = closed.port
    await closed.close()
    const outbound = { resolve: DNS, isPublic, ca: TEST_CERT }
    ts = await startTestServer({
      mode: 'cloud',
      config: { ai: { FOLIO_AI_SECRET: 'test secret' }, outbound: { ...outbound, privateHosts: privateHostsFrom('other.test,closed.test') } },
    })
    // The operator of this one allows private providers (FOLIO_AI_ALLOW_PRIVATE=1).
    open = await startTestServer({ mode: 'cloud', config: { ai: { FOLIO_AI_SECRET: 'test secret' }, outbound: { ...outbound, aiAllowPrivate: true } } })
  })
  afterAll(async () => {
    await Promise.all([closeClean(ts), closeClean(open)])
    await Promise.all([provider.close(), standIn.close()])
  })

  const converse = async (server: TestServer, baseURL: string) => {
    const ws = await createWorkspace(server)
    const saved = await ws.api.send(setWorkspaceAi, { body: { provider: 'openai', apiKey: 'sk-workspace-key', model: 'm', baseURL } })
    expect([baseURL, saved.status]).toEqual([baseURL, 200])
    const id = await ws.api.create('Guarded', { 'index.html': page('Guarded') })
    return ws.api.send(aiConversation, { params: { id }, body: { userPrompt: 'Change it' } })
  }

  it('refuses a private address when it is saved, in every spelling: 400, and nothing is dialled', async () => {
    const ws = await createWorkspace(ts)
    const p = provider.port
    for (const baseURL of [
      `https://127.0.0.7:${p}/v1`,
      `https://[::1]:${p}/v1`,
      `https://[::ffff:127.0.0.7]:${p}/v1`,
      `https://[::127.0.0.7]:${p}/v1`,
      `https://localhost:${p}/v1`,
      `https://models.localhost:${p}/v1`,
      'https://169.254.169.254/v1',
    ]) {
      const reply = await ws.api.send(setWorkspaceAi, { body: { provider: 'openai', apiKey: 'k', baseURL } })
      expect([baseURL, reply.status, reply.body.error]).toEqual([baseURL, 400, 'INVALID_BODY'])
      expect(reply.body.message).toContain('FOLIO_AI_ALLOW_PRIVATE')
    }
    expect(provider.connections()).toBe(0)
  })

  it('refuses, at the request, a name that resolves into loopback and a public provider that redirects there; the caller learns nothing of the socket', async () => {
    for (const baseURL of [`https://ai.test:${provider.port}/v1`, `https://public.test:${standIn.port}/v1`]) {
      const reply = await converse(ts, baseURL)
      expect([reply.status, reply.body.error]).toEqual([500, 'AI failed to generate HTML content.'])
      expect(reply.body.message).toMatch(/^The AI provider \(openai, model m\) could not be reached: (ai\.test|127\.0\.0\.7) is not a public address/)
    }
    expect(standIn.requests).toHaveLength(1)
    expect(provider.connections()).toBe(0)
  })

  it('says only "could not be reached" when a provider the operator allowed fails on TLS or refuses the connection', async () => {
    for (const [baseURL, host] of [
      [`https://other.test:${provider.port}/v1`, 'other.test'],
      [`https://closed.test:${closedPort}/v1`, 'closed.test'],
    ] as const) {
      const reply = await converse(ts, baseURL)
      expect([reply.status, reply.body.message]).toEqual([500, `The AI provider (openai, model m) could not be reached: ${host} could not be reached.`])
      expect(reply.body.message).not.toMatch(SOCKET_WORDS)
    }
    // other.test is allowed, so the connection was made; its certificate names ai.test, not other.test.
    expect(provider.connections()).toBe(1)
    expect(provider.requests).toEqual([])
  })

  it('reaches a private provider where the operator allows it (FOLIO_AI_ALLOW_PRIVATE=1)', async () => {
    const reply = await converse(open, `https://127.0.0.7:${provider.port}/v1`)
    expect(reply.status).toBe(200)
    expect(reply.body.proposedFiles['index.html']).toContain('Reached')
    expect(provider.requests.map((r) => [r.url, r.headers.authorization])).toEqual([['/v1/chat/completions', 'Bearer sk-workspace-key']])
  })
})

describe('OSS: the Ollama host of a request', () => {
  let ollama: LoopbackListener
  let ts: TestServer
  beforeAll(async () => {
    ollama = await loopbackListener({
      handle: (req, res) => ollamaText(answer('Done.', { 'index.html': page('Local') }))(res, { ...req, body: JSON.parse(req.body) }),
    })
    ts = await startTestServer({ config: { ai: {} } })
  })
  afterAll(async () => {
    await closeClean(ts)
    await ollama.close()
  })

  it('reaches loopback for the owner (the operator of an OSS server), not for an application the owner authorized with OAuth', async () => {
    const owner = testApi(ts.url)
    const id = await owner.create('Local', { 'index.html': page('Local') })
    const body = { userPrompt: 'Change it', selectedModel: 'ollama:llama3.2', ollamaHost: ollama.url }
    const token = (await obtainTokens(ts.url)).tokens.access_token
    const app = await owner.send(aiConversation, { params: { id }, body, headers: bearer(token) })
    expect([app.status, app.body.message]).toEqual([
      500,
      "The AI provider (ollama, model llama3.2) could not be reached: 127.0.0.7 is not a public address: the server does not connect to private, loopback or reserved networks on a user's behalf.",
    ])
    expect(ollama.connections()).toBe(0)
    const own = await owner.send(aiConversation, { params: { id }, body })
    expect(own.status).toBe(200)
    expect(ollama.requests.map((r) => r.url)).toEqual(['/api/chat'])
  })
})
