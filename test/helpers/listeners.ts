import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'

/**
 * A self-signed certificate (its own CA, valid 2020–2120) for loopback https listeners standing
 * in for AI providers: localhost, ai.test, public.test, 127.0.0.7, 127.0.0.8 and ::1. Trusted only
 * where a test passes it as `ca` (OutboundSettings.ca); anywhere else it fails as a self-signed
 * certificate does.
 */
export const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBqjCCAU+gAwIBAgIBATAKBggqhkjOPQQDAjAeMRwwGgYDVQQDDBNmb2xpbyB0
ZXN0IHByb3ZpZGVyMCAXDTIwMDEwMTAwMDAwMFoYDzIxMjAwMTAxMDAwMDAwWjAe
MRwwGgYDVQQDDBNmb2xpbyB0ZXN0IHByb3ZpZGVyMFkwEwYHKoZIzj0CAQYIKoZI
zj0DAQcDQgAEqDhCiL/kcOG3Q4u8pVqpJ+R9X0L0ugRJYxp1M7wleq09buG5fOlA
HjbLafcwm2NiURa0hPq+URGU5yRKAV1+I6N8MHowDwYDVR0TAQH/BAUwAwEB/zBI
BgNVHREEQTA/gglsb2NhbGhvc3SCB2FpLnRlc3SCC3B1YmxpYy50ZXN0hwR/AAAH
hwR/AAAIhxAAAAAAAAAAAAAAAAAAAAABMB0GA1UdDgQWBBRW4lyxrQgOgxqDE4yX
SFfflHT+RTAKBggqhkjOPQQDAgNJADBGAiEA0ZyrJ22qADD00aM5l3kaRBDMniUA
umDTapA46Ih+/l4CIQD2ePGkUimVUKXxW8qrV2nu4V+s44e2o4gq5LpcVH2y7w==
-----END CERTIFICATE-----
`

const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgPqN4tGkxHLnVSYq8
8cUp7W2bmevPry4kTySm99/wKnehRANCAASoOEKIv+Rw4bdDi7ylWqkn5H1fQvS6
BEljGnUzvCV6rT1u4bl86UAeNstp9zCbY2JRFrSE+r5REZTnJEoBXX4j
-----END PRIVATE KEY-----
`

export interface HeardRequest {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
}

/**
 * A listener on a loopback address that counts every connection made to it (a TCP connection
 * is counted even when TLS then fails) and records the requests it gets. `handle` answers them
 * (default: 200 with a small JSON body).
 */
export async function loopbackListener(options: { tls?: boolean; host?: string; handle?: (req: HeardRequest, res: http.ServerResponse) => void } = {}) {
  const requests: HeardRequest[] = []
  let connections = 0
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk))
    req.on('end', () => {
      const heard = { method: req.method!, url: req.url!, headers: req.headers, body }
      requests.push(heard)
      if (options.handle) options.handle(heard, res)
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
  }
  const server = options.tls ? https.createServer({ cert: TEST_CERT, key: TEST_KEY }, onRequest) : http.createServer(onRequest)
  server.on('connection', () => connections++)
  // A client that refuses the certificate resets the connection: not the test's failure.
  server.on('tlsClientError', () => undefined)
  const host = options.host ?? '127.0.0.7'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  const hostInUrl = host.includes(':') ? `[${host}]` : host
  return {
    port,
    url: `${options.tls ? 'https' : 'http'}://${hostInUrl}:${port}`,
    requests,
    connections: () => connections,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
export type LoopbackListener = Awaited<ReturnType<typeof loopbackListener>>
