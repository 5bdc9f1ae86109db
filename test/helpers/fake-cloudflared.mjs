#!/usr/bin/env node
// A stand-in for Cloudflare's `cloudflared tunnel --url <local>` quick tunnel: Cloudflare's edge is
// the one part of the Cloudflare provider that cannot run here. It takes the same arguments,
// prints the same banner lines (on stderr, as cloudflared does) with a URL of its own loopback
// "edge", and forwards every request there to the local URL with CF-Connecting-IP set to the
// viewer's address (overwriting whatever the viewer sent, as the edge does). Viewers are told
// apart by connecting from addresses of their own (127.0.0.2, 127.0.0.3, …).
//
// FAKE_CLOUDFLARED_PIDS: a file it appends its pid to (the tests check none outlives folio).
// FAKE_CLOUDFLARED_FAIL: exit with this message at once, as a broken install would.
import { appendFileSync } from 'node:fs'
import { createServer, request } from 'node:http'

const args = process.argv.slice(2)
const target = args[args.indexOf('--url') + 1]
const log = (message) => process.stderr.write(`${new Date().toISOString()} INF ${message}\n`)

if (process.env.FAKE_CLOUDFLARED_PIDS) appendFileSync(process.env.FAKE_CLOUDFLARED_PIDS, `${process.pid}\n`)
if (process.env.FAKE_CLOUDFLARED_FAIL) {
  process.stderr.write(`${new Date().toISOString()} ERR ${process.env.FAKE_CLOUDFLARED_FAIL}\n`)
  process.exit(1)
}
if (args[0] !== 'tunnel' || !target?.startsWith('http://')) {
  process.stderr.write(`fake cloudflared: expected "tunnel --url http://…", got ${JSON.stringify(args)}\n`)
  process.exit(2)
}

const edge = createServer((viewer, answer) => {
  const headers = { ...viewer.headers, 'cf-connecting-ip': viewer.socket.remoteAddress.replace(/^::ffff:/, '') }
  const upstream = request(new URL(viewer.url, target), { method: viewer.method, headers }, (response) => {
    answer.writeHead(response.statusCode, response.headers)
    response.pipe(answer)
  })
  upstream.on('error', () => {
    answer.writeHead(502)
    answer.end('fake cloudflared: the local service did not answer')
  })
  viewer.pipe(upstream)
})

log('Thank you for trying Cloudflare Tunnel. Doing so, without a Cloudflare account, is a quick way to experiment and try it out.')
log('Requesting new quick Tunnel on trycloudflare.com...')
edge.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${edge.address().port}`
  const width = 92
  log(`+${'-'.repeat(width)}+`)
  log(`|  ${'Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):'.padEnd(width - 2)}|`)
  log(`|  ${url.padEnd(width - 2)}|`)
  log(`+${'-'.repeat(width)}+`)
  log(`Starting tunnel tunnelID=00000000-0000-0000-0000-000000000000`)
  setTimeout(() => log('Registered tunnel connection connIndex=0 connection=00000000 event=0 ip=198.41.192.7 location=test protocol=quic'), 50)
})

const stop = () => {
  log('Initiating graceful shutdown due to signal terminated ...')
  edge.close()
  edge.closeAllConnections()
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
