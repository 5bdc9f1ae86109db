// The baseline of sections 1, 6 and 7: the least work node:http can do to answer the same bytes, so
// folio's ratio against it is the cost of everything folio adds (routing, auth, validation,
// the store). Plain .mjs, no tsx: a loader would not be part of the baseline.
//
// Usage: node raw-server.mjs <file holding the body> [content-type]   → prints {"url", "pid"} when listening
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { listenAndReport } from './listen-and-report.mjs'

const body = readFileSync(process.argv[2])
const headers = { 'content-type': process.argv[3] ?? 'application/json', 'content-length': String(body.length) }

const server = createServer((_req, res) => {
  res.writeHead(200, headers)
  res.end(body)
})

listenAndReport(server)
