// The baseline of section 5: node:http keeping a view counter durably the plain way, one
// write per request: temp file, fsync, rename (what a careful hand-written server does).
// folio's beacon must be at least as fast while also being atomic across concurrent requests.
//
// Usage: node raw-durable-server.mjs <dir>   → prints {"url", "pid"} when listening
import { open, rename } from 'node:fs/promises'
import { createServer } from 'node:http'
import { join } from 'node:path'

const dir = process.argv[2]
const target = join(dir, 'counter.json')
let views = 0
let seq = 0

async function durableWrite(data) {
  const tmp = join(dir, `counter.${process.pid}.${++seq}.tmp`)
  const handle = await open(tmp, 'w')
  try {
    await handle.writeFile(data)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(tmp, target)
}

const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    views++
    durableWrite(JSON.stringify({ views })).then(
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

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address()
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid })}\n`)
})

const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
