// The baseline of section 13: the same folder as a folio, served the plainest common way, by a
// static file server with compression (what `npx serve`-like setups and most hosts do): node:http
// + compression (gzip for compressible types over 1 KB) + serve-static (index.html for "/",
// ETag and Last-Modified, Cache-Control: public, max-age=0, so a repeat view revalidates).
// Plain .mjs, no tsx: a loader would not be part of the baseline.
//
// Usage: node static-server.mjs <folder>   → prints {"url", "pid"} when listening
import { createServer } from 'node:http'
import compression from 'compression'
import serveStatic from 'serve-static'
import { listenAndReport } from './listen-and-report.mjs'

const compress = compression()
const serve = serveStatic(process.argv[2])

const server = createServer((req, res) => {
  compress(req, res, () => {
    serve(req, res, () => {
      res.statusCode = 404
      res.setHeader('content-type', 'text/plain; charset=utf-8')
      res.end('Not found')
    })
  })
})

listenAndReport(server)
