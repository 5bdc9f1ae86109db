import { afterAll, beforeAll, expect } from 'vitest'
import { client } from './http.js'
import { startTestServer, type TestServer } from './server.js'

/**
 * A real server for the whole test file, started before and closed after it; on close, the
 * server must not have logged anything (an unhandled error is a bug even if the answer looked right).
 */
export function useServer(options: Parameters<typeof startTestServer>[0] = {}) {
  let ts: TestServer | undefined
  let api: ReturnType<typeof client> | undefined
  beforeAll(async () => {
    ts = await startTestServer(options)
    api = client(ts.url)
  })
  afterAll(async () => {
    expect(ts?.logs).toEqual([])
    await ts?.close()
  })
  return {
    get ts(): TestServer {
      if (!ts) throw new Error('the server starts in beforeAll')
      return ts
    },
    get api(): ReturnType<typeof client> {
      if (!api) throw new Error('the server starts in beforeAll')
      return api
    },
  }
}
