import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { aiCreate } from '../src/api/ai.js'
import { ApiClientError, createClient } from '../src/client/index.js'
import { useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (error: unknown) => {
      if (!(error instanceof ApiClientError)) throw error
      return { status: error.status, error: error.error }
    },
  )

describe('aiCreate in OSS', () => {
  const server = useServer()

  it('is a Cloud endpoint: 403 Endpoint not available in OSS, whatever the body', async () => {
    const api = createClient({ server: server.ts.url })
    expect(await failure(api.call(aiCreate, { body: { prompt: 'A deck about otters' } }))).toEqual({ status: 403, error: 'Endpoint not available in OSS' })
    expect(await failure(api.call(aiCreate, { body: {} as never }))).toEqual({ status: 403, error: 'Endpoint not available in OSS' })
  })
})

describe('aiCreate in Cloud', () => {
  const server = useCloudServer()

  it('needs the key, then a non-empty prompt', async () => {
    const anonymous = createClient({ server: server.ts.url })
    expect(await failure(anonymous.call(aiCreate, { body: { prompt: 'x' } }))).toEqual({ status: 401, error: 'Unauthorized' })
    const api = createClient({ server: server.ts.url, key: server.workspace.apiKey })
    expect(await failure(api.call(aiCreate, { body: { prompt: '   ' } }))).toEqual({ status: 400, error: 'A non-empty prompt is required.' })
    expect(await failure(api.call(aiCreate, { body: {} as never }))).toEqual({ status: 400, error: 'A non-empty prompt is required.' })
  })
})

describe('the OSS key made on first start', () => {
  const server = useServer()

  it('is stored readable by its owner only', async () => {
    const file = join(server.ts.dataDir, 'settings', 'api-key.json')
    // Written to the files at the journal's checkpoint (or now): as it then lies on disk.
    await server.ts.server.store.writeBack()
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect((await stat(join(server.ts.dataDir, 'settings'))).mode & 0o777).toBe(0o700)
  })
})
