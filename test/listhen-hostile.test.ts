import { once } from 'node:events'
import { rm } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio, listFolios } from '../src/api/files.js'
import { type TestApi, testApi } from './helpers/api.js'
import { killHard, spawnServer, type ServerProcess } from './helpers/cli-process.js'
import { makeDataDir, startTestServer } from './helpers/server.js'
import { expectCleanLog } from './helpers/use-server.js'

/**
 * The proof for ARCHITECTURE.md's listhen pitfall: listhen 1.10's http-shutdown was once seen
 * crashing the process (`Cannot set properties of null (setting '_isIdle')`) when a connection
 * was torn down early. Here the built `folio serve` (main listener from listhen, request log on)
 * takes every hostile case we know, in a child process so that a crash shows as an exit; after
 * each case it must still answer, and its stderr may hold request lines only (no stack, no
 * warning). The last case closes it gracefully while connections die around it.
 */
let server: ServerProcess
let api: TestApi
let id: string
let dataDir: string
let stderr = ''
const extra: ServerProcess[] = []

beforeAll(async () => {
  dataDir = await makeDataDir()
  server = await spawnServer(dataDir, ['--verbose'])
  server.child.stderr!.on('data', (d) => (stderr += d))
  api = testApi(server.url)
  id = await api.create('Target', { 'index.html': '<h1>Keep me</h1>' })
})
afterAll(async () => {
  for (const s of [server, ...extra]) await killHard(s.child)
  await rm(dataDir, { recursive: true, force: true })
})

const port = () => Number(new URL(server.url).port)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Until the socket can take more, or is gone (events.once would throw on the reset instead). */
const writable = (socket: Socket) =>
  new Promise<void>((resolve) => {
    const done = () => {
      socket.off('drain', done)
      socket.off('close', done)
      resolve()
    }
    socket.once('drain', done)
    socket.once('close', done)
  })

async function open(): Promise<Socket> {
  const socket = connect(port(), '127.0.0.1')
  socket.on('error', () => {}) // resets are what these cases provoke
  await once(socket, 'connect')
  return socket
}

/** Resolves with everything received once `done(received)` says so, or the socket closes. */
function received(socket: Socket, done: (text: string) => boolean = () => false): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      if (done(text)) resolve(text)
    })
    socket.once('close', () => resolve(text))
  })
}

/** The server is alive, answers, and has logged nothing but request lines. */
async function expectStillServing() {
  expect(server.child.exitCode).toBeNull()
  expect((await api.send(getFolio, { params: { id }, query: { files: 'none' } })).status).toBe(200)
  const lines = stderr.split('\n').filter(Boolean)
  expect(lines.filter((line) => !/^\[http\] [A-Z]+ \S+ (\d{3}|cut off) \d+ ms/.test(line))).toEqual([])
}

const putHead = (length: number | 'chunked', folio = id) =>
  `PUT /api/files/${folio} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`

describe('listhen as the main listener survives hostile clients', () => {
  it('a client that hangs up mid-body', async () => {
    for (let i = 0; i < 5; i++) {
      const socket = await open()
      socket.write(`${putHead(100_000)}{"files":{"index.html":"half`)
      await sleep(20)
      socket.destroy()
    }
    await expectStillServing()
  })

  it('a declared body far over the limit: 413 while the client is still sending, then it hangs up', async () => {
    const socket = await open()
    const answer = received(socket, (text) => text.includes('\r\n\r\n'))
    socket.write(`${putHead(200 * 1024 * 1024)}{"files":{"index.html":"`)
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    let sent = 0
    let head = ''
    void answer.then((text) => (head = text))
    while (!head && sent < 64 * 1024 * 1024 && !socket.destroyed) {
      if (!socket.write(chunk)) await writable(socket)
      sent += chunk.length
    }
    expect((await answer).split('\r\n')[0]).toMatch(/^HTTP\/1\.1 413\b/)
    expect(sent).toBeLessThan(30 * 1024 * 1024)
    socket.destroy()
    await expectStillServing()
  })

  it('a chunked body past the 64 MB the server drains: it answers 413, then stops reading', async () => {
    const socket = await open()
    const answer = received(socket, (text) => text.includes('\r\n\r\n'))
    socket.write(putHead('chunked'))
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
    let sent = 0
    let stalled = false
    let head = ''
    void answer.then((text) => (head = text))
    while (!stalled && !socket.destroyed && sent < 200 * 1024 * 1024) {
      sent += chunk.length
      if (socket.write(frame)) continue
      // Answered, then nothing taken for half a second: the server has stopped reading (node
      // closes the connection at its keep-alive timeout; no need to wait for that here).
      const drained = writable(socket)
      while (!(await Promise.race([drained.then(() => true), sleep(500).then(() => false)]))) {
        if ((stalled = Boolean(head))) break
      }
    }
    expect((await answer).split('\r\n')[0]).toMatch(/^HTTP\/1\.1 413\b/)
    expect(stalled || socket.destroyed).toBe(true)
    // 20 MB read, up to 64 MB more drained, plus what the sockets buffer.
    expect(sent).toBeLessThan(120 * 1024 * 1024)
    socket.destroy()
    await expectStillServing()
  })

  it('pipelined requests cut off mid-way, before and after the first answer', async () => {
    const pipeline =
      `GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` +
      `GET /api/files/${id}?files=none HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` +
      `${putHead(5000)}{"files":{"index.html":"cut`
    for (const waitForAnswer of [false, true]) {
      for (let i = 0; i < 5; i++) {
        const socket = await open()
        const first = received(socket, (text) => text.includes('HTTP/1.1 200'))
        socket.write(pipeline)
        if (waitForAnswer) await first
        socket.destroy()
      }
    }
    await sleep(50)
    await expectStillServing()
  })

  it('slowloris: half a header, then a reset', async () => {
    const sockets = await Promise.all(Array.from({ length: 10 }, () => open()))
    for (const socket of sockets) socket.write('GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')
    await sleep(100)
    // Meanwhile others are served.
    expect((await api.send(listFolios)).status).toBe(200)
    for (const socket of sockets) socket.resetAndDestroy()
    await sleep(50)
    await expectStillServing()
  })

  it('a graceful close while connections die: in-flight writes finish, the process exits 0', async () => {
    const page = (n: number) => `{"files":{"index.html":"<h1>${n}</h1>${'<p>x</p>'.repeat(20_000)}"},"commitMessage":"write ${n}"}`
    const bodies = Array.from({ length: 16 }, (_, n) => page(n))
    const sockets = await Promise.all(bodies.map(() => open()))
    const answers = sockets.map((socket) => received(socket))
    // Every request is under way: its head and half its body are with the server.
    sockets.forEach((socket, n) => socket.write(putHead(Buffer.byteLength(bodies[n]!)) + bodies[n]!.slice(0, bodies[n]!.length / 2)))
    expect((await api.send(listFolios)).status).toBe(200)
    await sleep(100)

    const exited = once(server.child, 'exit')
    server.child.kill('SIGTERM')
    await sleep(100)
    // Half the clients vanish (some with a reset); the other half finish their uploads.
    sockets.forEach((socket, n) => {
      if (n % 2 === 0) return n % 4 === 0 ? socket.resetAndDestroy() : socket.destroy()
      socket.write(bodies[n]!.slice(bodies[n]!.length / 2))
    })
    const finished = await Promise.all(answers.filter((_, n) => n % 2 === 1))
    const [code] = await exited
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.any(String) })
    const versions = finished.map((text) => {
      expect(text.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 200\b/)
      return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).project.latestVersionId as string
    })
    expect(versions).toHaveLength(8)
    expect(stderr).not.toMatch(/_isIdle|Uncaught|TypeError/)

    // Every acknowledged write is there after a restart.
    const again = await spawnServer(dataDir)
    extra.push(again)
    const full = (await testApi(again.url).send(getFolio, { params: { id }, query: { files: 'none' } })).body
    const stored = full.versions.map((v: { versionId: string }) => v.versionId)
    for (const version of versions) expect(stored).toContain(version)
  })
})

describe('graceful close after hostile clients', () => {
  it('does not wait for pipelined requests whose client hung up before their turn', async () => {
    const ts = await startTestServer()
    const { port } = new URL(ts.url)
    const folio = await testApi(ts.url).create('Target')
    const pipeline =
      `GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` +
      `GET /api/files/${folio}?files=none HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n` +
      `${putHead(5000, folio)}{"files":{"index.html":"cut`
    for (const waitForAnswer of [false, true]) {
      for (let i = 0; i < 5; i++) {
        const socket = connect(Number(port), '127.0.0.1')
        socket.on('error', () => {})
        await once(socket, 'connect')
        const first = received(socket, (text) => text.includes('HTTP/1.1 200'))
        socket.write(pipeline)
        if (waitForAnswer) await first
        socket.destroy()
      }
    }
    await sleep(100)
    const started = Date.now()
    await ts.close()
    // Node never emits 'close' for a queued response whose connection is gone: counting only
    // those kept shutdown waiting for its 15 s limit (or ended the process with exit code 13).
    expect(Date.now() - started).toBeLessThan(5_000)
    expectCleanLog(ts)
  })
})
