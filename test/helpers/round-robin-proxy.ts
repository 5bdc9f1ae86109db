import { once } from 'node:events'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RoundRobinProxy {
  url: string
  /** How many requests each upstream was given. */
  counts: number[]
  /** Stops sending to upstream i (as a load balancer does once its health check fails). */
  drop(i: number): void
  close(): Promise<void>
}

/**
 * What a plain HTTP load balancer does in front of several folio instances: each request goes
 * to the next upstream in turn, no stickiness, the body and the answer streamed through (an
 * event stream too). An upstream that cannot be reached answers 502 and is skipped from then on.
 */
export async function startRoundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 })
  const alive = upstreams.map(() => true)
  const counts = upstreams.map(() => 0)
  let next = 0
  const pick = (): number | undefined => {
    for (let tries = 0; tries < upstreams.length; tries++) {
      const i = next++ % upstreams.length
      if (alive[i]) return i
    }
    return undefined
  }
  const server = createServer((req, res) => {
    const i = pick()
    if (i === undefined) {
      res.writeHead(502).end('no upstream')
      return
    }
    counts[i]!++
    const target = new URL(req.url ?? '/', upstreams[i])
    const forwarded = request(target, { method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    forwarded.on('error', () => {
      alive[i] = false
      if (!res.headersSent) res.writeHead(502).end('upstream failed')
      else res.destroy()
    })
    res.on('close', () => forwarded.destroy())
    req.pipe(forwarded)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    drop: (i) => void (alive[i] = false),
    async close() {
      server.closeAllConnections()
      server.close()
      agent.destroy()
    },
  }
}
