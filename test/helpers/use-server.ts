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

/** Closes a server a test file started itself, then holds it to a clean log. */
export async function closeClean(ts: TestServer | undefined): Promise<void> {
  if (!ts) return
  await ts.close()
  expectCleanLog(ts)
}

/** A real server for the whole test file, started before and closed after it with a clean log. */
export function useServer(options: Parameters<typeof startTestServer>[0] = {}) {
  let ts: TestServer | undefined
  let api: TestApi | undefined
  beforeAll(async () => {
    ts = await startTestServer(options)
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
