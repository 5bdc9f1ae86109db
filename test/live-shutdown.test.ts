import { expect, it } from 'vitest'
import { testApi } from './helpers/api.js'
import { openEvents } from './helpers/events.js'
import { startTestServer } from './helpers/server.js'
import { expectCleanLog } from './helpers/use-server.js'

// An event stream is a request that never ends by itself: a graceful stop must end open share
// pages' streams at once instead of waiting out its grace period (15 s) for them.
it('stops at once with live-update streams open, and the streams end', async () => {
  const ts = await startTestServer()
  const api = testApi(ts.url)
  const id = await api.create('Live', { 'index.html': '<h1>Hi</h1>' }, { status: 'published' })
  const streams = await Promise.all([openEvents(testApi(ts.server.tunnelTarget), id), openEvents(api, id)])
  const started = performance.now()
  await ts.close()
  expect(performance.now() - started).toBeLessThan(5_000)
  for (const events of streams) await events.ended()
  expectCleanLog(ts)
})
