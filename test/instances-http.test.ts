import { afterEach, expect, it } from 'vitest'
import { createFolio, getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { rotateKey } from '../src/api/keys.js'
import { testApi } from './helpers/api.js'
import { openEvents } from './helpers/events.js'
import { instanceServers } from './helpers/instance-servers.js'
import { startInstances } from './helpers/instances.js'

/**
 * Two Cloud servers (the real app, hot cache and live streams) over two assembled stores that
 * share ONE storage, one lock table and one message bus (test/helpers/instances.ts): what a
 * client sees when a balancer sends its requests to either.
 */

let running: Awaited<ReturnType<typeof startInstances>> | undefined
const instances = instanceServers()
const serve = instances.serve
afterEach(async () => {
  await instances.closeAll()
  await running?.close()
  running = undefined
  expect(instances.problems.splice(0)).toEqual([])
})

/** Asks until `check` holds: another instance's change is seen once its message arrives. */
async function eventually<T>(ask: () => Promise<T>, check: (value: T) => boolean, ms = 3_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await ask()
    if (check(value)) return value
    if (Date.now() > end) throw new Error(`still ${JSON.stringify(value).slice(0, 300)} after ${ms} ms`)
    // Not faster: the plan counts these requests too.
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

it('serves on B what was made on A: a new workspace’s key, its folios, new versions (hot cache and list included), live events, and refuses a key rotated on A', async () => {
  running = await startInstances(2)
  const [a, b] = running.instances
  const urlA = await serve(a!.store)
  const urlB = await serve(b!.store)
  // B hears nothing of the workspace: its key is found in the storage on the miss.
  b!.bus.disconnect()
  const { apiKey } = await a!.store.workspaces.create({ name: 'Team', owner: { name: 'o' } })
  const onA = testApi(urlA, { key: apiKey })
  const onB = testApi(urlB, { key: apiKey })
  expect((await onB.send(listFolios)).status).toBe(200)
  expect((await testApi(urlB, { key: `folio_live_${'0'.repeat(48)}` }).send(listFolios)).status).toBe(401)
  b!.bus.reconnect()

  const created = await onA.send(createFolio, { body: { title: 'Shared', status: 'published', defaultFiles: { 'index.html': '<h1>one</h1>' } } })
  expect(created.status).toBe(201)
  const id: string = created.body.project?.id ?? created.body.id
  // B answers it, twice (the second from its hot cache), and lists it.
  for (let i = 0; i < 2; i++) expect((await onB.send(getFolio, { params: { id } })).body.latestVersionId).toBe('v1')
  expect((await onB.send(listFolios)).body.map((f: { id: string }) => f.id)).toEqual([id])
  const events = await openEvents(testApi(urlB), id)

  expect(
    (await onA.send(updateFolio, { params: { id }, body: { title: 'Shared 2', files: { 'index.html': '<h1>two</h1>' }, commitMessage: 'second' } })).status,
  ).toBe(200)
  // B's hot cache and list drop it when B hears of the change; its open share page hears the version.
  await eventually(
    () => onB.send(getFolio, { params: { id } }),
    (reply) => reply.body.latestVersionId === 'v2',
  )
  expect((await onB.send(getFolio, { params: { id } })).body).toMatchObject({ title: 'Shared 2', latestVersionId: 'v2' })
  expect((await onB.send(listFolios)).body).toMatchObject([{ id, title: 'Shared 2', latestVersionId: 'v2' }])
  expect((await events.next('version', (data) => data.latestVersionId === 'v2')).data.activeFileList).toEqual(['index.html'])
  await events.cancel()

  // A write on B right after builds on A's version (under the lock), whatever B heard.
  expect(
    (await onB.send(updateFolio, { params: { id }, body: { files: { 'index.html': '<h1>three</h1>' }, commitMessage: 'third' } })).body.project.latestVersionId,
  ).toBe('v3')

  const rotated = await onA.send(rotateKey)
  expect(rotated.status).toBe(200)
  await eventually(
    () => onB.send(listFolios),
    (reply) => reply.status === 401,
  )
  const withNewKey = testApi(urlB, { key: rotated.body.apiKey })
  expect(
    (
      await eventually(
        () => withNewKey.send(listFolios),
        (reply) => reply.status === 200,
      )
    ).body,
  ).toHaveLength(1)
})
