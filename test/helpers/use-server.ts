import { afterAll, beforeAll, expect } from 'vitest'
import { type TestApi, testApi } from './api.js'
import { startTestServer, type TestServer } from './server.js'

/**
 * Nothing in the server's log: an unhandled error, a 500 or a warning is a bug even when every
 * answer looked right. A test that provokes a line on purpose asserts that line itself.
 */
export function expectCleanLog(ts: TestServer): void {
  expect(ts.logs, `the log of the server at ${ts.url}`).toEqual([])
}

/**
 * For a test that provokes log lines on purpose: the log holds exactly these lines, in order (an
 * error's stack, on the lines after, is not compared). They are taken out, so the final check
 * sees only what comes after.
 */
export function expectLogged(ts: TestServer, lines: string[]): void {
  expect(
    ts.logs.map((entry) => entry.split('\n')[0]!.trimEnd()),
    `the log of the server at ${ts.url}`,
  ).toEqual(lines)
  ts.logs.splice(0)
}

/** Closes a server a test file started itself, then holds it to a clean log. */
export async function closeClean(ts: TestServer | undefined): Promise<void> {
  if (!ts) return
  await ts.close()
  expectCleanLog(ts)
}

type ServerOptions = Parameters<typeof startTestServer>[0]

/**
 * A real server for the test file (or the describe it is called in), started before its tests and
 * closed after them with a clean log. Options may be a function, for what an earlier beforeAll made.
 */
export function useServer(options: ServerOptions | (() => ServerOptions) = {}) {
  let ts: TestServer | undefined
  let api: TestApi | undefined
  beforeAll(async () => {
    ts = await startTestServer(typeof options === 'function' ? options() : options)
    api = testApi(ts.url)
  })
  afterAll(() => closeClean(ts))
  return {
    get ts(): TestServer {
      if (!ts) throw new Error('the server starts in beforeAll')
      return ts
    },
    get api(): TestApi {
      if (!api) throw new Error('the server starts in beforeAll')
      return api
    },
  }
}
