import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger, formatLine, type LogLevel, LogLevels } from '../../src/log/logger.js'
import type { ConfigOverrides } from '../../src/server/config.js'
import { type RunningServer, startServer } from '../../src/server/serve.js'

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
  const server = await startServer({
    port: 0,
    host: options.host ?? '127.0.0.1',
    dataDir,
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
    },
  }
}
