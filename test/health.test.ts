import { rm } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { getHealth, getReadiness } from '../src/api/health.js'
import { createApp, createServerContext } from '../src/server/app.js'
import { defaultConfig } from '../src/server/config.js'
import { openStore } from '../src/store/index.js'
import { readReply, type TestApi } from './helpers/api.js'
import { makeDataDir } from './helpers/server.js'
import { useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'

/** GET /healthz and /readyz: what a load balancer asks, with no credential, in both modes. */

/** Each mode's server, and its API with no credential. */
const modes: Array<[string, () => () => TestApi]> = [
  [
    'OSS',
    () => {
      const s = useServer()
      return () => s.api
    },
  ],
  [
    'Cloud',
    () => {
      const s = useCloudServer()
      return () => s.anonymous
    },
  ],
]

describe.each(modes)('%s', (_mode, use) => {
  const api = use()

  it('/healthz answers 200 {status: ok}, never cached', async () => {
    const reply = await api().send(getHealth)
    expect([reply.status, reply.body, reply.headers.get('cache-control')]).toEqual([200, { status: 'ok' }, 'no-store'])
  })

  it('/readyz answers 200 {status: ready} while the store is open', async () => {
    const reply = await api().send(getReadiness)
    expect([reply.status, reply.body, reply.headers.get('cache-control')]).toEqual([200, { status: 'ready' }, 'no-store'])
  })
})

describe('/readyz once the store is closing', () => {
  it('answers 503 NOT_READY, saying why; /healthz still 200', async () => {
    const dataDir = await makeDataDir()
    const store = await openStore({ dataDir })
    const app = createApp(createServerContext({ store, config: defaultConfig(), log: () => {} }))
    await store.close()
    try {
      const ready = await readReply(await app.fetch(new Request('http://127.0.0.1/readyz')))
      expect([ready.status, ready.body]).toEqual([503, { error: 'NOT_READY', message: 'the store is closing (the server is stopping)' }])
      expect((await app.fetch(new Request('http://127.0.0.1/healthz'))).status).toBe(200)
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})
