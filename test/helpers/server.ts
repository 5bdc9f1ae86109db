import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, formatLine, type LogLevel, LogLevels } from '../../src/log/logger.js'
import type { ConfigOverrides } from '../../src/server/config.js'
import { type RunningServer, startServer } from '../../src/server/serve.js'
import { freshDatabase, type TestDatabase } from './pg.js'

export interface TestServer {
  url: string
  dataDir: string
  server: RunningServer
  /**
   * The server's log lines (as folio serve prints them, without colours) at `logLevel`, by default
   * warnings and errors: tests assert that nothing unexpected (a 500, a crash) was logged.
   */
  logs: string[]
  /** Stops the server (keeping the data dir, so it can be restarted on it). */
  stop(): Promise<void>
  /** Stops the server and removes its data dir. */
  close(): Promise<void>
}

export async function makeDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'folio-test-'))
}

/**
 * FOLIO_TEST_STORE=pg (the `postgres` project of vitest.config.ts): every test server keeps its
 * store in a PostgreSQL database of its own instead of the data dir, so the same tests hold the
 * HTTP behaviour to the same answers on both stores. A server restarted on the same data dir
 * gets the same database back.
 */
const onPostgres = process.env.FOLIO_TEST_STORE === 'pg'
const databases = new Map<string, { database: Promise<TestDatabase>; servers: number }>()

function databaseFor(dataDir: string): Promise<TestDatabase> {
  let entry = databases.get(dataDir)
  if (!entry) databases.set(dataDir, (entry = { database: freshDatabase(), servers: 0 }))
  entry.servers++
  return entry.database
}

/**
 * Tests of Cloud plans write <data>/plans.json before the server starts, as an operator of one
 * server does; the operator of several instances has that table in the database (folio db
 * import brings a data dir's): the same table, put where this store reads it.
 */
async function plansIntoDatabase(dataDir: string, database: TestDatabase): Promise<void> {
  const plans = await readFile(join(dataDir, 'plans.json')).catch(() => undefined)
  if (!plans) return
  const pool = database.pool(1)
  await pool.query('INSERT INTO folio_kv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', ['plans.json', plans])
  await pool.end()
}

/** Dropped with the last server started on its data dir (a test may restart one on it, and close both). */
async function releaseDatabase(dataDir: string): Promise<void> {
  const entry = databases.get(dataDir)
  if (!entry || --entry.servers > 0) return
  databases.delete(dataDir)
  await (await entry.database).drop()
}

/** The real server (same createApp as `folio serve`) on a random port with a temp data dir. */
export async function startTestServer(
  options: {
    dataDir?: string
    mode?: 'oss' | 'cloud'
    config?: ConfigOverrides
    logLevel?: LogLevel
    /** Where the main listener listens (default 127.0.0.1); 0.0.0.0 or :: to reach it from this machine's network addresses. */
    host?: string
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await makeDataDir())
  const logs: string[] = []
  const database = onPostgres ? await databaseFor(dataDir) : undefined
  if (database) await plansIntoDatabase(dataDir, database)
  const server = await startServer({
    port: 0,
    host: options.host ?? '127.0.0.1',
    dataDir,
    ...(database ? { database: { url: database.url, poolSize: 4 } } : {}),
    mode: options.mode ?? 'oss',
    config: { apiKey: undefined, ai: {}, ...options.config },
    logger: createLogger({ level: options.logLevel ?? LogLevels.warn, reporters: [{ log: (line) => logs.push(formatLine(line, false)) }] }),
  })
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    await server.close()
  }
  return {
    url: server.url,
    dataDir,
    server,
    logs,
    stop,
    async close() {
      await stop()
      await rm(dataDir, { recursive: true, force: true })
      if (database) await releaseDatabase(dataDir)
    },
  }
}
