// The durable-write baseline of sections 5 and 9: node:http keeping data durably the plain way,
// one write per request: temp file, fsync, rename (what a careful hand-written server does).
//   POST: a view counter (section 5: folio's beacon must be at least as fast while also being
//         atomic across concurrent requests)
//   PUT:  the request body itself, as received, over one document (section 10: a folio version
//         of the same body must come close while keeping every version, not only the last)
//   PUT /parsed: what any server must do first with a version sent as the API sends it: parse
//         the JSON, encode each file's text as UTF-8 and hash it (SHA-256, the content address),
//         then the same durable write of the page's bytes. Section 10's reference for the part
//         of folio's cost that the request format itself sets.
//
// Usage: node raw-durable-server.mjs <dir>   → prints {"url", "pid"} when listening
import { createHash } from 'node:crypto'
import { open, rename } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { listenAndReport } from './listen-and-report.mjs'

const dir = process.argv[2]
let views = 0
let seq = 0

async function durableWrite(name, data) {
  const tmp = join(dir, `${name}.${process.pid}.${++seq}.tmp`)
  const handle = await open(tmp, 'w')
  try {
    await handle.writeFile(data)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(tmp, join(dir, name))
}

function parsedPage(body) {
  const files = Object.values(JSON.parse(body.toString('utf8')).files).map((text) => Buffer.from(text, 'utf8'))
  for (const bytes of files) createHash('sha256').update(bytes).digest('hex')
  return files[0]
}

const server = createServer((req, res) => {
  const chunks = []
  const keepBody = req.method === 'PUT'
  req.on('data', (chunk) => keepBody && chunks.push(chunk))
  req.on('end', () => {
    const write = keepBody
      ? durableWrite('document.json', req.url.startsWith('/parsed') ? parsedPage(Buffer.concat(chunks)) : Buffer.concat(chunks))
      : durableWrite('counter.json', JSON.stringify({ views: ++views }))
    write.then(
      () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"success":true}')
      },
      (error) => {
        res.writeHead(500)
        res.end(String(error))
      },
    )
  })
})

listenAndReport(server)
