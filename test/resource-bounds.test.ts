import { connect, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { updateFolio } from '../src/api/files.js'
import { folioEvents, verifyAccessKey } from '../src/api/sharing.js'
import { recordAnalytics } from '../src/api/engagement.js'
import { uploadFile } from '../src/api/uploads.js'
import { contractPath } from '../src/client/index.js'
import { type TestApi, testApi } from './helpers/api.js'
import { eventually } from './helpers/browser.js'
import { lanAddresses } from './helpers/cli-process.js'
import { tinyPng } from './helpers/images.js'
import { useServer } from './helpers/use-server.js'

/** What one client can hold of the server: live-update streams, and sockets with slow bodies. */
const lan = lanAddresses()[0]

async function openStream(api: TestApi, id: string) {
  const res = await api.request(folioEvents, { params: { id } })
  if (res.status !== 200) return { status: res.status, body: JSON.parse(await res.text()), headers: res.headers, close: async () => {} }
  const reader = res.body!.getReader()
  await reader.read() // the first comment: the stream is open
  return { status: 200, body: undefined, headers: res.headers, close: () => reader.cancel() }
}

describe('live-update streams', () => {
  const s = useServer({ host: '0.0.0.0', config: { limits: { eventStreamsPerClient: 3, eventStreams: 5 } } })

  it('are capped per client and per server, with a 429 that says which, and freed when closed', async () => {
    const id = await s.api.create('Watched', { 'index.html': 'x' }, { status: 'published' })
    const mine = [await openStream(s.api, id), await openStream(s.api, id), await openStream(s.api, id)]
    expect(mine.map((m) => m.status)).toEqual([200, 200, 200])
    const fourth = await openStream(s.api, id)
    expect(fourth.status).toBe(429)
    expect(fourth.body.error).toBe('Too many requests')
    expect(fourth.body.message).toContain('3 live-update streams')
    expect(Number(fourth.headers.get('retry-after'))).toBeGreaterThan(0)

    const neighbour = testApi(`http://${lan}:${new URL(s.ts.url).port}`)
    const theirs = [await openStream(neighbour, id), await openStream(neighbour, id)]
    expect(theirs.map((t) => t.status)).toEqual([200, 200])
    const full = await openStream(neighbour, id)
    expect(full.status).toBe(429)
    expect(full.body.message).toContain('5 live-update streams in all')

    await mine[0]!.close()
    const again = await eventually(async () => {
      const attempt = await openStream(s.api, id)
      return attempt.status === 200 ? attempt : false
    }, 'a slot freed by a closed stream')
    for (const stream of [...mine.slice(1), ...theirs, again]) await stream.close()
    const last = await eventually(async () => {
      const attempt = await openStream(neighbour, id)
      return attempt.status === 200 ? attempt : false
    }, 'every slot but one free again')
    await last.close()
  })
})

/** A raw request: headers, then whatever the test sends of the body; resolves with what came back once the socket closes. */
function rawRequest(url: string, head: string) {
  const { hostname, port } = new URL(url)
  const socket: Socket = connect(Number(port), hostname)
  socket.on('error', () => {})
  let received = ''
  socket.on('data', (d) => (received += d))
  const started = performance.now()
  const closed = new Promise<{ text: string; ms: number }>((resolve) =>
    socket.once('close', () => resolve({ text: received, ms: performance.now() - started })),
  )
  socket.write(head)
  return { socket, closed, received: () => received }
}

const LIMITS = { bodyIdleMs: 600, bodyGraceMs: 1_000, bodyMinBytesPerSecond: 1_024, headersTimeoutMs: 1_000 }

describe('slow bodies', () => {
  const s = useServer({ config: { limits: LIMITS } })
  const target = (id: string) => contractPath(updateFolio, { id })
  const put = (id: string, length: number) =>
    `PUT ${target(id)} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

  it('answer 408 when the body stops arriving, on the main listener and the tunnel’s', async () => {
    const id = await s.api.create('Target', { 'index.html': 'x' }, { status: 'published' })
    // Through the tunnel a PUT needs the key (refused before its body): a viewer's POST then.
    const prove = `POST ${contractPath(verifyAccessKey, { id })} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`
    for (const [url, head] of [
      [s.ts.url, put(id, 100)],
      [s.ts.server.tunnelTarget, prove],
    ] as const) {
      const request = rawRequest(url, `${head}{"title": `)
      const { text, ms } = await request.closed
      expect(text).toMatch(/^HTTP\/1\.1 408 /)
      expect(text.toLowerCase()).toContain('connection: close')
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'Request timeout', message: expect.stringContaining('no bytes for 0.6 s') })
      expect(ms).toBeGreaterThanOrEqual(LIMITS.bodyIdleMs - 50)
      expect(ms).toBeLessThan(LIMITS.bodyIdleMs + 1_000)
    }
  })

  it('answer 408 to an analytics beacon whose body stalls (a malformed beacon is a success, a stalled one is not)', async () => {
    const id = await s.api.create('Target', { 'index.html': 'x' }, { status: 'published' })
    const beacon = `POST ${contractPath(recordAnalytics, { id })} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`
    const { text } = await rawRequest(s.ts.url, `${beacon}{"isInitial": `).closed
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('answer 408 to a trickle that never stops but stays under the minimum rate', async () => {
    const id = await s.api.create('Target')
    const request = rawRequest(s.ts.url, `${put(id, 10_000)}{"title": "`)
    const drip = setInterval(() => request.socket.write('a'), 100)
    const { text, ms } = await request.closed
    clearInterval(drip)
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
    expect(text).toContain('slower than 1 KB/s')
    expect(ms).toBeLessThan(LIMITS.bodyGraceMs + 1_000)
  })

  it('let a body finish that arrives slowly but steadily, longer than the grace: the allowance grows with its size', async () => {
    const id = await s.api.create('Target')
    const body = JSON.stringify({ title: 'Slow but steady', description: 'x'.repeat(3_000) })
    const request = rawRequest(s.ts.url, put(id, Buffer.byteLength(body)))
    let sent = 0
    const started = performance.now()
    // 1.5 KB/s, in 150-byte pieces: above the minimum rate, for about two seconds.
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        request.socket.write(body.slice(sent, sent + 150))
        sent += 150
        if (sent >= body.length) {
          clearInterval(timer)
          resolve()
        }
      }, 100)
    })
    expect(performance.now() - started).toBeGreaterThan(LIMITS.bodyGraceMs)
    await eventually(async () => request.received().includes('\r\n\r\n{'), 'the answer')
    expect(request.received()).toMatch(/^HTTP\/1\.1 200 /)
    request.socket.destroy()
  })

  it('close the connection when a body nobody reads (answered early) stops arriving', async () => {
    const id = await s.api.create('Target')
    // An upload into an unknown folio is refused before its body is read.
    const head = `POST ${contractPath(uploadFile, { id: 'nope12345678' })} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nx-file-path: a.png\r\nContent-Length: 100000\r\n\r\n`
    const request = rawRequest(s.ts.url, head)
    request.socket.write(tinyPng())
    const { text, ms } = await request.closed
    expect(text).toMatch(/^HTTP\/1\.1 404 /)
    expect(ms).toBeLessThan(LIMITS.bodyIdleMs + 1_500)
    expect((await s.api.send(updateFolio, { params: { id }, body: { title: 'still serving' } })).status).toBe(200)
  })

  it('close a connection whose headers never end (tunnel listener: node’s headersTimeout)', async () => {
    const request = rawRequest(s.ts.server.tunnelTarget, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')
    const drip = setInterval(() => request.socket.write('a'), 100)
    const { text, ms } = await request.closed
    clearInterval(drip)
    expect(text).toMatch(/^HTTP\/1\.1 408 /)
    expect(ms).toBeLessThan(LIMITS.headersTimeoutMs + 1_500)
  })
})
