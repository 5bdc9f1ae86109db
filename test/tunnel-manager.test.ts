import { createServer, get, type IncomingHttpHeaders, type Server } from 'node:http'
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { TunnelState } from '../src/tunnel/tunnel-manager.js'
import { createTunnels, type Tunnels, type TunnelsOptions } from '../src/tunnel/tunnels.js'
import { type LoopbackTunnelServer, startLoopbackTunnelServer } from './helpers/localtunnel-server.js'

/**
 * The manager with the real localtunnel client, against a loopback localtunnel server and a plain
 * local HTTP server that stands in for folio's tunnel listener.
 */
let local: Server
let localPort: number
const seen: IncomingHttpHeaders[] = []

let loopback: LoopbackTunnelServer
const managers: Tunnels[] = []
/** Stand-in servers of single tests, with their connections, closed after each test. */
const extraServers: Array<{ server: TcpServer; sockets: Set<Socket> }> = []
function track<T extends TcpServer>(server: T): T {
  const sockets = new Set<Socket>()
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  extraServers.push({ server, sockets })
  return server
}

function manager(options: Partial<TunnelsOptions> = {}): Tunnels {
  const created = createTunnels({
    ports: { localtunnel: localPort, cloudflare: 0 },
    host: loopback.url,
    startTimeoutMs: 5_000,
    retryDelayMs: 100,
    maxRetryDelayMs: 400,
    ...options,
  })
  managers.push(created)
  return created
}

/** One GET on a connection of its own (no pooled sockets pin a tunnel socket between steps). */
function fetchOnce(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, timeout: 10_000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)))
    req.on('error', reject)
  })
}

/** What a viewer gets from the public URL: the answer, or why there was none. */
const reach = (url: string) =>
  fetchOnce(url).then(
    (r) => `${r.status} ${r.body}`,
    (error: Error) => `unreachable: ${error.message}`,
  )

async function tcpServer(onConnection: (socket: Socket) => void = () => {}): Promise<TcpServer> {
  const server = track(createTcpServer(onConnection))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

async function closedPort(): Promise<number> {
  const server = await tcpServer()
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

beforeAll(async () => {
  local = createServer((req, res) => {
    seen.push(req.headers)
    res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from local')
  })
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve))
  localPort = (local.address() as AddressInfo).port
})

afterAll(async () => {
  const closed = new Promise((resolve) => local.close(resolve))
  local.closeAllConnections()
  await closed
})

beforeEach(async () => {
  loopback = await startLoopbackTunnelServer({ maxConnCount: 2 })
  seen.length = 0
})

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()))
  await loopback.close()
  for (const { server, sockets } of extraServers.splice(0)) {
    const closed = new Promise((resolve) => server.close(resolve))
    for (const socket of sockets) socket.destroy()
    await closed
  }
})

describe('tunnel manager', () => {
  it('starts a tunnel that carries public requests to the local port, and reports it when asked again', async () => {
    const tunnel = manager()
    expect(tunnel.status()).toMatchObject({ state: 'stopped', url: null, lastError: null })
    const started = await tunnel.start()
    expect(started.alreadyRunning).toBe(false)
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(tunnel.status()).toMatchObject({ state: 'connected', url: started.url, lastError: null })

    expect(await fetchOnce(`${started.url}/some/page`)).toEqual({ status: 200, body: 'hello from local' })
    // No local_host: the public Host arrives untouched (rewriting it would mangle binary bodies).
    expect(seen.at(-1)?.host).toBe(new URL(started.url).host)

    expect(await tunnel.start()).toEqual({ url: started.url, alreadyRunning: true, provider: 'localtunnel', describe: loopback.url })
    expect(loopback.tunnels()).toBe(1)
  })

  it('asks for a subdomain, and another tunnel server, when start() is told to; reconnects ask the same again', async () => {
    const elsewhere = await startLoopbackTunnelServer({ takenSubdomain: 'random' })
    try {
      const tunnel = manager()
      const started = await tunnel.start({ host: elsewhere.url, subdomain: 'q3-review' })
      expect(started).toMatchObject({ alreadyRunning: false, describe: elsewhere.url, subdomainGranted: true })
      expect(elsewhere.ids()).toEqual(['q3-review'])
      expect(loopback.tunnels()).toBe(0)
      expect(await fetchOnce(`${started.url}/page`)).toEqual({ status: 200, body: 'hello from local' })
      // The server restarts and forgets us: the reconnect asks it for the same name.
      await elsewhere.dropAll()
      await expect.poll(() => elsewhere.ids(), { timeout: 10_000 }).toEqual(['q3-review'])
      await tunnel.stop()
      // A start without options goes back to the manager's own server.
      expect((await tunnel.start()).describe).toBe(loopback.url)
      expect(loopback.tunnels()).toBe(1)
    } finally {
      await elsewhere.close()
    }
  })

  it('says when the tunnel server gives another subdomain than the one asked for (it was taken)', async () => {
    const relay = await startLoopbackTunnelServer({ takenSubdomain: 'random' })
    try {
      const first = manager({ host: relay.url })
      const second = manager({ host: relay.url })
      expect(await first.start({ subdomain: 'my-deck' })).toMatchObject({ subdomainGranted: true })
      const other = await second.start({ subdomain: 'my-deck' })
      expect(other.subdomainGranted).toBe(false)
      expect(relay.ids()).toHaveLength(2)
      expect(await fetchOnce(`${other.url}/x`)).toEqual({ status: 200, body: 'hello from local' })
    } finally {
      await Promise.all(managers.splice(0).map((m) => m.stop()))
      await relay.close()
    }
  })

  it('shares one attempt between concurrent start() calls', async () => {
    const tunnel = manager()
    const first = tunnel.start()
    const second = tunnel.start()
    expect(second).toBe(first)
    const [a, b] = await Promise.all([first, second])
    expect(a.url).toBe(b.url)
    expect(loopback.tunnels()).toBe(1)
  })

  it('stops: nothing public reaches the local server any more, and stopping twice is fine', async () => {
    const tunnel = manager()
    const { url } = await tunnel.start()
    expect(await reach(url)).toBe('200 hello from local')
    const requests = seen.length

    await tunnel.stop()
    expect(tunnel.status()).toMatchObject({ state: 'stopped', url: null, lastError: null })
    await tunnel.stop()
    expect(tunnel.status().state).toBe('stopped')

    expect(await reach(url)).not.toContain('hello from local')
    // Every socket of the client closed, so the server forgets the registration.
    await vi.waitFor(() => expect(loopback.tunnels()).toBe(0), { timeout: 5_000 })
    expect(await reach(url)).toMatch(/^unreachable/)
    expect(seen.length).toBe(requests)

    // And it can start again.
    const again = await tunnel.start()
    expect(await reach(again.url)).toBe('200 hello from local')
  })

  it('rejects quickly, naming the host, when the tunnel server is unreachable', async () => {
    const host = `http://127.0.0.1:${await closedPort()}`
    const tunnel = manager({ host, startTimeoutMs: 1_500 })
    const startedAt = Date.now()
    await expect(tunnel.start()).rejects.toThrow(host)
    expect(Date.now() - startedAt).toBeLessThan(1_500)
    const state = tunnel.status()
    expect(state.state).toBe('stopped')
    expect(state.url).toBeNull()
    expect(state.lastError).toContain(host)
    expect(state.lastError).toContain('ECONNREFUSED')
  })

  it('gives up after startTimeoutMs on a server that never answers, and hangs up on it', async () => {
    const connections: Socket[] = []
    let hungUp = 0
    const silent = await tcpServer((socket) => {
      connections.push(socket)
      socket.resume() // read, never answer: the request's end is noticed
      socket.on('close', () => hungUp++)
    })
    const host = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
    const tunnel = manager({ host, startTimeoutMs: 1_500 })
    const startedAt = Date.now()
    await expect(tunnel.start()).rejects.toThrow(`The tunnel server ${host} did not open a tunnel within 1.5 s.`)
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_400)
    expect(tunnel.status()).toMatchObject({ state: 'stopped', url: null, lastError: expect.stringContaining(host) })
    // The timed-out request was aborted, not left to retry: its connection closes and none follow.
    expect(connections.length).toBe(1)
    await vi.waitFor(() => expect(hungUp).toBe(1), { timeout: 2_000 })
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(connections.length).toBe(1)
  })

  it('rejects when the server grants a tunnel whose port refuses connections', async () => {
    const deadPort = await closedPort()
    const control = track(
      createServer((_req, res) => {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: 'abcd', port: deadPort, max_conn_count: 1, url: 'http://127.0.0.1:1' }))
      }),
    )
    await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve))
    const host = `http://127.0.0.1:${(control.address() as AddressInfo).port}`
    const tunnel = manager({ host, startTimeoutMs: 3_000 })
    await expect(tunnel.start()).rejects.toThrow(`The tunnel server ${host} refused the tunnel connection`)
    expect(tunnel.status()).toMatchObject({ state: 'stopped', url: null, lastError: expect.stringContaining(`127.0.0.1:${deadPort}`) })
  })

  it('reconnects by itself when the server drops the tunnel, saying nothing is reachable meanwhile', async () => {
    const tunnel = manager()
    const states: TunnelState[] = []
    tunnel.onChange((state) => states.push(state))
    const first = await tunnel.start()
    expect(await reach(first.url)).toBe('200 hello from local')

    await loopback.dropAll()
    await vi.waitFor(() => expect(states.map((s) => s.state)).toEqual(['starting', 'connected', 'reconnecting', 'connected']), {
      timeout: 10_000,
      interval: 20,
    })
    const second = tunnel.status().url!
    expect(second).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(second).not.toBe(first.url)
    expect(states[2]).toMatchObject({ url: null, lastError: expect.stringContaining('connection refused') })
    // A new URL after a drop: the old one is named, so whoever shows the tunnel can say links died.
    expect(states.at(-1)).toEqual({ state: 'connected', url: second, lastError: null, provider: 'localtunnel', wall: null, previousUrl: first.url })
    expect(loopback.tunnels()).toBe(1)
    expect(await reach(second)).toBe('200 hello from local')
    expect(await tunnel.start()).toEqual({ url: second, alreadyRunning: true, provider: 'localtunnel', describe: loopback.url })
  })

  it('keeps retrying with back-off while the server is away, and stop() ends the retries', async () => {
    const tunnel = manager({ retryDelayMs: 50, maxRetryDelayMs: 200 })
    await tunnel.start()
    const states: TunnelState[] = []
    tunnel.onChange((state) => states.push(state))

    await loopback.close()
    await vi.waitFor(() => expect(tunnel.status().lastError).toContain('Could not reach the tunnel server'), { timeout: 5_000, interval: 20 })
    expect(tunnel.status()).toMatchObject({ state: 'reconnecting', url: null })

    await tunnel.stop()
    expect(tunnel.status()).toMatchObject({ state: 'stopped', url: null })
    const changes = states.length
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(states.length).toBe(changes)
    expect(tunnel.status().state).toBe('stopped')
  })

  it('tells onChange listeners every transition until they unsubscribe', async () => {
    const tunnel = manager()
    const states: TunnelState[] = []
    const unsubscribe = tunnel.onChange((state) => states.push(state))
    const { url } = await tunnel.start()
    await tunnel.start()
    await tunnel.stop()
    const none = { lastError: null, wall: null, previousUrl: null }
    expect(states).toEqual([
      { state: 'starting', url: null, provider: 'localtunnel', ...none },
      { state: 'connected', url, provider: 'localtunnel', ...none },
      { state: 'stopped', url: null, provider: null, ...none },
    ])
    unsubscribe()
    await tunnel.start()
    expect(states).toHaveLength(3)
  })

  it('cancels a start() that stop() overtakes', async () => {
    const silent = await tcpServer()
    const tunnel = manager({ host: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` })
    const starting = tunnel.start()
    expect(tunnel.status().state).toBe('starting')
    await tunnel.stop()
    await expect(starting).rejects.toThrow('stopped before it connected')
    expect(tunnel.status()).toMatchObject({ state: 'stopped', url: null, lastError: null })
  })
})
