import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server, type Socket, connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { getHealth, getReadiness } from '../src/api/health.js'
import { createLogger, formatLine, LogLevels } from '../src/log/logger.js'
import { type RunningServer, startServer } from '../src/server/serve.js'
import { testApi, type TestApi } from './helpers/api.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'

/*
 * Issue 25, part 6: PostgreSQL goes away under a running server (a restart, a failover, the
 * network between them). Writes then answer 503 DATABASE_UNAVAILABLE with Retry-After, not a
 * 500; /readyz says why; and once the database is back, writes work again with no restart.
 *
 * The outage is a real one as the server sees it: its every connection goes through a TCP
 * forwarder to the run's PostgreSQL, and the forwarder stops (open connections cut, new ones
 * refused: ECONNREFUSED), then listens again on the same port.
 */

/** A TCP forwarder to `target`, on a port of its own, that can be taken down and brought back. */
async function startForwarder(target: { host: string; port: number }) {
  let server: Server | undefined
  const sockets = new Set<Socket>()
  let port = 0
  const up = async () => {
    if (server) return
    server = createServer((client) => {
      const upstream = connect(target.port, target.host)
      for (const s of [client, upstream]) {
        sockets.add(s)
        s.on('close', () => sockets.delete(s))
        s.on('error', () => {})
      }
      client.pipe(upstream).pipe(client)
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
    })
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  }
  await up()
  return {
    get port() {
      return port
    },
    up,
    async down() {
      const closing = server ? new Promise((resolve) => server!.close(resolve)) : Promise.resolve()
      for (const s of sockets) s.destroy()
      sockets.clear()
      server = undefined
      await closing
    },
  }
}

let db: TestDatabase
let work: string
let forwarder: Awaited<ReturnType<typeof startForwarder>>
let server: RunningServer
let api: TestApi
const logs: string[] = []

beforeAll(async () => {
  db = await freshDatabase()
  const target = new URL(db.url)
  forwarder = await startForwarder({ host: target.hostname, port: Number(target.port) })
  const through = new URL(db.url)
  through.port = String(forwarder.port)
  work = await mkdtemp(join(tmpdir(), 'folio-pg-outage-'))
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir: work,
    database: { url: through.toString(), poolSize: 4 },
    mode: 'oss',
    config: { apiKey: undefined, ai: {} },
    logger: createLogger({ level: LogLevels.warn, reporters: [{ log: (line) => logs.push(formatLine(line, false)) }] }),
  })
  api = testApi(server.url)
}, 60_000)

afterAll(async () => {
  await forwarder?.up().catch(() => {})
  await server?.close()
  await forwarder?.down()
  await db?.drop()
  await rm(work, { recursive: true, force: true })
})

describe('a PostgreSQL outage', () => {
  it('answers writes 503 DATABASE_UNAVAILABLE with Retry-After, /readyz 503 and /healthz 200 meanwhile; after it, writes work again with no restart', async () => {
    const id = await api.create('Outage', { 'index.html': '<h1>before</h1>' })

    await forwarder.down()
    const started = Date.now()
    const write = await api.send(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>during</h1>' } } })
    expect([write.status, write.body.error]).toEqual([503, 'DATABASE_UNAVAILABLE'])
    expect(write.body.message).toMatch(/database/i)
    expect(Number(write.headers.get('retry-after'))).toBeGreaterThan(0)
    // Answered, not held until the database comes back (nor for the whole of a client's timeout).
    expect(Date.now() - started).toBeLessThan(20_000)

    const ready = await api.send(getReadiness)
    expect([ready.status, ready.body.error]).toEqual([503, 'NOT_READY'])
    expect(ready.body.message).toMatch(/cannot be reached/)
    expect((await api.send(getHealth)).status).toBe(200)

    await forwarder.up()
    // The pool and the lock connection come back by themselves (the lock session retries every 5 s at most).
    let after = await api.send(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>after</h1>' } } })
    for (let tries = 0; after.status !== 200 && tries < 40; tries++) {
      await new Promise((r) => setTimeout(r, 500))
      after = await api.send(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>after</h1>' } } })
    }
    expect(after.status, after.text).toBe(200)
    expect((await api.send(getReadiness)).status).toBe(200)
    const folio = await api.send(getFolio, { params: { id } })
    // The write refused during the outage made no version; the one after it did.
    expect(folio.body.versions.map((v: { versionId: string }) => v.versionId)).toEqual(['v1', 'v2'])
    expect(folio.body.versions[1].files).toEqual({ 'index.html': '<h1>after</h1>' })
    // No 500 was logged: the outage is answered, not an unhandled error.
    expect(logs.filter((line) => /Unhandled error/.test(line))).toEqual([])
  })
})
