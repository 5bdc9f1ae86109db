import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, request } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: Buffer
}

/**
 * A pass-through HTTP proxy in front of a real server, on an origin of its own, that records
 * every request the CLI makes: which key it sent where, in which order it called what. The
 * answers are the real server's.
 */
export async function recordingProxy(target: string) {
  const upstream = new URL(target)
  const requests: RecordedRequest[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body })
    const forward = request(
      { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    forward.on('error', () => res.writeHead(502).end())
    forward.end(body)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    /** The JSON bodies sent to `method path` (gzip envelopes are not opened). */
    bodiesOf: (method: string, path: RegExp) =>
      requests.filter((r) => r.method === method && path.test(r.path)).map((r) => JSON.parse(r.body.toString('utf8'))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
