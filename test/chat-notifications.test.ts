import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, recordAnalytics } from '../src/api/engagement.js'
import { createFolio, updateFolio } from '../src/api/files.js'
import { getIntegrations, setIntegrations } from '../src/api/integrations.js'
import { isPublicAddress } from '../src/domain/public-address.js'
import { guardedFetch, OutboundRefused } from '../src/server/http/outbound-guard.js'
import { expectLogged, useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'

/** The Cloud server of a describe, its first workspace's key as `auth` (read once it exists). */
function cloudServer(options: Parameters<typeof useCloudServer>[0] = {}) {
  const cloud = useCloudServer(options)
  return {
    s: {
      get ts() {
        return cloud.ts
      },
      get api() {
        return cloud.anonymous
      },
    },
    auth: {
      get authorization() {
        return cloud.workspace.auth.authorization
      },
    },
  }
}

interface Received {
  at: number
  body: any
}

/**
 * A chat tool's incoming webhook on loopback: records what it is sent and answers with the
 * status `answer` gives for the n-th request (or holds the request, for a receiver that hangs).
 */
async function receiver(answer: (n: number) => number | 'hang' = () => 200) {
  const received: Received[] = []
  const waiting: Array<() => void> = []
  const held: ServerResponse[] = []
  let finished = 0
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.on('close', () => finished++)
    let text = ''
    req.on('data', (chunk: Buffer) => (text += chunk))
    req.on('end', () => {
      received.push({ at: Date.now(), body: JSON.parse(text) })
      waiting.splice(0).forEach((wake) => wake())
      const status = answer(received.length)
      if (status === 'hang') return void held.push(res)
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T000/B000/secretpart`,
    received,
    /** Requests that have ended (answered, or given up by the sender). */
    finished: () => finished,
    /** Resolves once `n` requests have arrived (the test's timeout bounds it). */
    async arrivals(n: number): Promise<Received[]> {
      while (received.length < n) await new Promise<void>((resolve) => waiting.push(resolve))
      return received
    },
    close: () => {
      held.forEach((res) => res.destroy())
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

type Receiver = Awaited<ReturnType<typeof receiver>>

describe('Cloud: new comments are posted to the workspace’s chat webhooks', () => {
  // Loopback receivers need the operator's permission; retries are quick so the test is.
  const { s, auth } = cloudServer({ config: { webhooks: { allowPrivate: true, firstRetryMs: 40, attempts: 4, timeoutMs: 400 } } })
  const receivers: Receiver[] = []
  afterAll(() => Promise.all(receivers.map((r) => r.close())))
  const open = async (answer?: (n: number) => number | 'hang') => {
    const r = await receiver(answer)
    receivers.push(r)
    return r
  }

  const configure = (integrations: Array<{ url: string; format?: string }>) => s.api.send(setIntegrations, { body: { integrations }, headers: auth })
  const folioWithKey = async () => {
    const reply = await s.api.send(createFolio, {
      body: { title: 'Q3 <Board> deck', status: 'published', isPrivate: true, accessKey: 'hunter2-secret' },
      headers: auth,
    })
    return reply.body.project as { id: string; latestVersionId: string }
  }
  // The folio is private: the workspace key stands in for a viewer who proved the access key.
  const comment = (id: string, versionId: string, text: string, author = 'Ada') =>
    s.api.send(createComment, { params: { id }, body: { text, versionId, filename: 'index.html', author }, headers: auth })

  it('keeps the webhooks it is given, with their formats, and shows them to the workspace', async () => {
    const reply = await configure([
      { url: 'https://hooks.slack.com/services/T1/B1/x' },
      { url: 'https://discord.com/api/webhooks/1/abc' },
      { url: 'https://example.webhook.office.com/webhookb2/x' },
      { url: 'https://chat.example.org/hooks/y', format: 'discord' },
      { url: 'https://hooks.slack.com/services/T1/B1/x' },
    ])
    expect(reply.status).toBe(200)
    // Each says who configured it (test/integration-managers.test.ts): here the workspace key.
    const by = { configuredBy: { credential: 'api-key', name: 'First' }, configuredAt: expect.any(String) }
    const expected = [
      { url: 'https://hooks.slack.com/services/T1/B1/x', format: 'slack', ...by },
      { url: 'https://discord.com/api/webhooks/1/abc', format: 'discord', ...by },
      { url: 'https://example.webhook.office.com/webhookb2/x', format: 'teams', ...by },
      { url: 'https://chat.example.org/hooks/y', format: 'discord', ...by },
    ]
    expect(reply.body.integrations).toEqual(expected)
    const read = await s.api.send(getIntegrations, { headers: auth })
    expect(read.body.integrations).toEqual(expected)
    expect(read.headers.get('cache-control')).toBe('no-store')
    expect((await s.api.send(getIntegrations)).status).toBe(401)
    expect((await configure([])).body.integrations).toEqual([])
  })

  it('posts title, author, text and share link in each format, and never the access key', async () => {
    const [slack, discord, teams] = [await open(), await open(), await open()]
    expect((await configure([{ url: slack.url }, { url: discord.url, format: 'discord' }, { url: teams.url, format: 'teams' }])).status).toBe(200)
    const folio = await folioWithKey()
    const reply = await comment(folio.id, folio.latestVersionId, 'Ping <!channel> @everyone: slide 3 needs the key hunter2?')
    expect(reply.status).toBe(200)
    const link = `${s.ts.url}/share/${folio.id}`

    const [fromSlack] = await slack.arrivals(1)
    expect(fromSlack!.body.text).toContain(`<${link}|Q3 &lt;Board&gt; deck>`)
    expect(fromSlack!.body.text).toContain('by Ada')
    // A viewer's text cannot ping the channel: Slack's control characters are escaped.
    expect(fromSlack!.body.text).toContain('&lt;!channel&gt;')

    const [fromDiscord] = await discord.arrivals(1)
    expect(fromDiscord!.body.content).toContain(link)
    expect(fromDiscord!.body.allowed_mentions).toEqual({ parse: [] })

    const [fromTeams] = await teams.arrivals(1)
    const card = fromTeams!.body.attachments[0].content
    expect(card.type).toBe('AdaptiveCard')
    expect(card.actions[0].url).toBe(link)
    expect(JSON.stringify(card)).toContain('slide 3 needs the key')

    for (const r of [slack, discord, teams]) {
      const sent = JSON.stringify(r.received)
      expect(sent).not.toContain('hunter2-secret')
      expect(sent).not.toContain('accessKey')
    }
  })

  it('posts the summary of each view of a folio set to notifyViews, and nothing for one that is not', async () => {
    const hook = await open()
    await configure([{ url: hook.url }])
    const quiet = (await s.api.send(createFolio, { body: { title: 'Quiet deck', status: 'published' }, headers: auth })).body.project
    const loud = (await s.api.send(createFolio, { body: { title: 'Board deck', status: 'published' }, headers: auth })).body.project
    expect((await s.api.send(updateFolio, { params: { id: loud.id }, body: { notifyViews: true }, headers: auth })).body.project.notifyViews).toBe(true)
    // Two views, as two viewers' share pages report them (a viewer sends no credential).
    const view = async (id: string) => {
      await s.api.send(recordAnalytics, { params: { id }, body: { isInitial: true } })
      await s.api.send(recordAnalytics, {
        params: { id },
        body: {
          sessionSeconds: 240,
          kind: 'slides',
          total: 12,
          parts: [{ n: 7, s: 100, v: true }],
          furthest: 9,
          end: { seen: 9, total: 12, seconds: 240, longest: 7 },
        },
      })
    }
    await view(quiet.id)
    await view(loud.id)
    const [summary] = await hook.arrivals(1)
    expect(summary!.body.text).toBe(`A viewer read 9 of 12 slides in 4 min, longest on slide 7: <${s.ts.url}/share/${loud.id}|Board deck>`)
    // The quiet folio's view came first: had it been posted, it would have arrived first.
    expect(JSON.stringify(hook.received)).not.toContain('Quiet deck')
    await configure([])
  })

  it('retries a failing receiver with growing waits, and the comment is unaffected', async () => {
    const flaky = await open((n) => (n <= 2 ? 503 : 200))
    await configure([{ url: flaky.url }])
    const folio = await folioWithKey()
    const reply = await comment(folio.id, folio.latestVersionId, 'Third time lucky')
    expect(reply.status).toBe(200)
    expect(reply.body.comment.text).toBe('Third time lucky')
    const tries = await flaky.arrivals(3)
    expect(tries.map((t) => t.body.text)).toEqual(Array(3).fill(tries[0]!.body.text))
    // Back-off: 40 ms, then 4× that.
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(35)
    expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(150)
    // Delivered in the end: nothing to warn about.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(s.ts.logs).toEqual([])
  })

  it('answers the comment at once while a receiver hangs, gives up after its tries, and says so without the secret path', async () => {
    const hanging = await open(() => 'hang')
    const down = await open(() => 500)
    await configure([{ url: hanging.url }, { url: down.url }])
    const folio = await folioWithKey()
    const reply = await comment(folio.id, folio.latestVersionId, 'Anyone there?')
    expect(reply.status).toBe(200)
    // Answered before any try ended: a try to the hanging receiver takes its 400 ms timeout.
    expect(hanging.finished()).toBe(0)
    await hanging.arrivals(4)
    await down.arrivals(4)
    // Each gives up after its 4th try; wait for the last timeout (400 ms) to pass.
    await expect.poll(() => s.ts.logs.length, { timeout: 5_000 }).toBe(2)
    const host = (url: string) => new URL(url).host
    expect(s.ts.logs).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`A chat notification to ${host(down.url)} failed 4 times (last: answered 500)`),
        expect.stringContaining(`A chat notification to ${host(hanging.url)} failed 4 times (last: no answer within 0.4 s)`),
      ]),
    )
    expect(s.ts.logs.join('\n')).not.toContain('secretpart')
    s.ts.logs.splice(0)
    // The folio kept the comment and still takes more (with the webhooks gone: nothing to wait for).
    await configure([])
    expect((await comment(folio.id, folio.latestVersionId, 'Still here')).status).toBe(200)
  })

  it('does not retry a receiver that refuses for good (a removed webhook), and warns once', async () => {
    const gone = await open(() => 404)
    await configure([{ url: gone.url }])
    const folio = await folioWithKey()
    expect((await comment(folio.id, folio.latestVersionId, 'Hello?')).status).toBe(200)
    await gone.arrivals(1)
    await expect.poll(() => s.ts.logs.length).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(gone.received).toHaveLength(1)
    expectLogged(s.ts, [expect.stringContaining(`refused a notification (404)`) as unknown as string])
    await configure([])
  })

  it('refuses URLs that are not http(s), whole', async () => {
    for (const url of ['ftp://example.com/hook', 'javascript:alert(1)', 'not a url']) {
      const reply = await configure([{ url: 'https://hooks.slack.com/services/ok' }, { url }])
      expect(reply.status).toBe(400)
      expect(reply.body.error).toBe('INVALID_BODY')
    }
    expect((await s.api.send(getIntegrations, { headers: auth })).body.integrations).toEqual([])
  })

  it('notifies nothing when a PUT changes a folio without a comment', async () => {
    const quiet = await open()
    await configure([{ url: quiet.url }])
    const folio = await folioWithKey()
    await s.api.send(updateFolio, { params: { id: folio.id }, body: { title: 'Renamed' }, headers: auth })
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(quiet.received).toEqual([])
    await configure([])
  })
})

describe('webhooks into private networks, unless the operator allows them', () => {
  const { s, auth } = cloudServer()

  it.each([
    'http://127.0.0.1:9/hook',
    'http://localhost/hook',
    'http://LOCALHOST./hook',
    'http://[::1]/hook',
    'http://10.1.2.3/x',
    'http://169.254.169.254/latest',
    'http://[::ffff:127.0.0.1]/x',
  ])('refuses %s', async (url) => {
    const reply = await s.api.send(setIntegrations, { body: { integrations: [{ url }] }, headers: auth })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('INVALID_BODY')
    expect(reply.body.message).toContain('FOLIO_WEBHOOKS_ALLOW_PRIVATE')
  })

  it('accepts a public address', async () => {
    const reply = await s.api.send(setIntegrations, { body: { integrations: [{ url: 'https://hooks.slack.com/services/T/B/c' }] }, headers: auth })
    expect(reply.status).toBe(200)
  })
})

describe('OSS mode has no chat integrations (spec: Cloud mode)', () => {
  const s = useServer()
  let id = ''
  beforeAll(async () => {
    id = await s.api.create('OSS', undefined, { status: 'published' })
  })

  it('answers 403 on the endpoints, and comments work as before', async () => {
    for (const reply of [await s.api.send(getIntegrations), await s.api.send(setIntegrations, { body: { integrations: [] } })]) {
      expect(reply.status).toBe(403)
      expect(reply.body.error).toBe('Endpoint not available in OSS')
    }
    expect((await s.api.send(createComment, { params: { id }, body: { text: 'hi', versionId: 'v1', filename: 'index.html' } })).status).toBe(200)
  })
})

describe('the delivery-time address check', () => {
  it('refuses a name that resolves into a private network, whatever was checked when it was saved', async () => {
    const error = await guardedFetch({ maxRedirects: 0 })('http://localhost:9/hook', { method: 'POST', body: '{}' }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(OutboundRefused)
    expect((error as Error).message).toContain('localhost is not a public address')
  })

  it.each([
    ['127.0.0.1', true],
    ['10.0.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:10.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:808:808', false],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['1.1.1.1', false],
    ['2606:4700:4700::1111', false],
  ])('%s is private: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(!expected)
  })
})
