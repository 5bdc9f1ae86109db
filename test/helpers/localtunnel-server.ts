import { randomBytes } from 'node:crypto'
import { createServer as createHttpServer, type ServerResponse } from 'node:http'
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net'

/**
 * A localtunnel server on loopback, written for the tests from the protocol as the client uses it:
 *
 * - `GET /?new` (or `GET /<subdomain>`) registers a client and answers
 *   `{ id, port, max_conn_count, url }`;
 * - the client opens up to max_conn_count TCP connections to `port` and leaves them idle; each
 *   carries one public connection at a time and is replaced by a new one when it closes;
 * - a connection to `url` (a port of its own per client here, not a subdomain) is paired with an
 *   idle tunnel socket and bytes are piped both ways, untouched, until either side closes.
 *
 * Untouched like the real one: localtunnel/server (lib/Client.js, handleRequest) proxies with the
 * viewer's own headers and appends no X-Forwarded-For, so whatever that header says, the viewer
 * wrote. The server must not tell viewers apart by it (remote.ts); keep this server honest.
 *
 * Like the real server, a client that holds no socket for `forgetAfterMs` is forgotten and its
 * ports close, so a stopped client is visible in tunnels().
 */
export interface LoopbackTunnelServer {
  /** The host to give the client, e.g. http://127.0.0.1:1234. */
  url: string
  /** Clients currently registered. */
  tunnels(): number
  /** Their ids: the subdomains they were given. */
  ids(): string[]
  /** Destroys every client socket, as if the remote server restarted; registrations are forgotten. */
  dropAll(): Promise<void>
  close(): Promise<void>
}

export interface LoopbackTunnelOptions {
  /** max_conn_count told to clients (default 4). */
  maxConnCount?: number
  /** A public connection waits this long for an idle tunnel socket, then gets a 502 (default 2_000). */
  waitForSocketMs?: number
  /** A registered client with no tunnel socket for this long is forgotten (default 1_000). */
  forgetAfterMs?: number
  /**
   * A subdomain asked for that is taken: refused with a 409 (default), or, as localtunnel/server
   * does (ClientManager.newClient), registered under a random id instead.
   */
  takenSubdomain?: 'refuse' | 'random'
}

interface Client {
  id: string
  tunnelPort: TcpServer
  publicPort: TcpServer
  /** Tunnel sockets, idle or carrying a public connection. */
  tunnelSockets: Set<Socket>
  idle: Socket[]
  /** Public connections, waiting or paired. */
  publicSockets: Set<Socket>
  waiting: Array<{ socket: Socket; timer: NodeJS.Timeout }>
  forgetTimer?: NodeJS.Timeout
}

export async function startLoopbackTunnelServer(options: LoopbackTunnelOptions = {}): Promise<LoopbackTunnelServer> {
  const maxConnCount = options.maxConnCount ?? 4
  const waitForSocketMs = options.waitForSocketMs ?? 2_000
  const forgetAfterMs = options.forgetAfterMs ?? 1_000
  const clients = new Map<string, Client>()

  const forget = async (client: Client) => {
    if (clients.get(client.id) !== client) return
    clients.delete(client.id)
    clearTimeout(client.forgetTimer)
    for (const { timer } of client.waiting) clearTimeout(timer)
    for (const socket of [...client.tunnelSockets, ...client.publicSockets]) socket.destroy()
    await Promise.all([client.tunnelPort, client.publicPort].map((server) => new Promise((resolve) => server.close(resolve))))
  }
  const armForget = (client: Client) => {
    clearTimeout(client.forgetTimer)
    client.forgetTimer = setTimeout(() => void forget(client), forgetAfterMs)
  }

  const pair = (publicSocket: Socket, tunnelSocket: Socket) => {
    publicSocket.pipe(tunnelSocket)
    tunnelSocket.pipe(publicSocket)
    // The client opens a fresh tunnel socket when this one closes; the public side gets what was
    // already piped before its end.
    publicSocket.once('close', () => tunnelSocket.destroy())
    tunnelSocket.once('close', () => publicSocket.end(() => publicSocket.destroy()))
  }

  const onTunnelSocket = (client: Client, socket: Socket) => {
    socket.on('error', () => {})
    client.tunnelSockets.add(socket)
    clearTimeout(client.forgetTimer)
    socket.once('close', () => {
      client.tunnelSockets.delete(socket)
      client.idle = client.idle.filter((s) => s !== socket)
      if (client.tunnelSockets.size === 0 && clients.get(client.id) === client) armForget(client)
    })
    const waiter = client.waiting.shift()
    if (waiter) {
      clearTimeout(waiter.timer)
      return pair(waiter.socket, socket)
    }
    // Idle sockets are read (the client sends nothing on them) so that their end is noticed.
    socket.resume()
    socket.once('end', () => {
      if (client.idle.includes(socket)) socket.destroy()
    })
    client.idle.push(socket)
  }

  const onPublicSocket = (client: Client, socket: Socket) => {
    socket.on('error', () => {})
    client.publicSockets.add(socket)
    socket.once('close', () => client.publicSockets.delete(socket))
    const tunnelSocket = client.idle.shift()
    if (tunnelSocket) {
      tunnelSocket.pause()
      return pair(socket, tunnelSocket)
    }
    // Left paused, so the request waits in the socket until a tunnel socket is free.
    const timer = setTimeout(() => {
      client.waiting = client.waiting.filter((w) => w.socket !== socket)
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: 19\r\nConnection: close\r\n\r\nno tunnel available')
    }, waitForSocketMs)
    client.waiting.push({ socket, timer })
  }

  const register = async (id: string): Promise<Client> => {
    const client: Client = {
      id,
      tunnelPort: createTcpServer(),
      publicPort: createTcpServer(),
      tunnelSockets: new Set(),
      idle: [],
      publicSockets: new Set(),
      waiting: [],
    }
    client.tunnelPort.on('connection', (socket) => onTunnelSocket(client, socket))
    client.publicPort.on('connection', (socket) => onPublicSocket(client, socket))
    await Promise.all([client.tunnelPort, client.publicPort].map((server) => listen(server)))
    clients.set(id, client)
    armForget(client)
    return client
  }

  const control = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://loopback')
    const wanted = url.pathname.slice(1)
    const isNew = url.searchParams.has('new') && wanted === ''
    if (req.method !== 'GET' || (!isNew && !/^[a-z0-9-]{4,63}$/.test(wanted))) return reply(res, 404, { message: 'Not a tunnel request' })
    const taken = !isNew && clients.has(wanted)
    if (taken && options.takenSubdomain !== 'random') return reply(res, 409, { message: `${wanted} is taken` })
    register(isNew || taken ? randomBytes(6).toString('hex') : wanted).then(
      (client) =>
        reply(res, 200, {
          id: client.id,
          port: port(client.tunnelPort),
          max_conn_count: maxConnCount,
          url: `http://127.0.0.1:${port(client.publicPort)}`,
        }),
      (error: Error) => reply(res, 500, { message: error.message }),
    )
  })
  await listen(control)

  const dropAll = async () => {
    await Promise.all([...clients.values()].map(forget))
  }
  return {
    url: `http://127.0.0.1:${port(control)}`,
    tunnels: () => clients.size,
    ids: () => [...clients.keys()],
    dropAll,
    async close() {
      await dropAll()
      const closed = new Promise((resolve) => control.close(resolve))
      control.closeAllConnections()
      await closed
    },
  }
}

function reply(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

function listen(server: TcpServer): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
}

function port(server: TcpServer): number {
  return (server.address() as AddressInfo).port
}
