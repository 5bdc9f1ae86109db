import { once } from 'node:events'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getWorkspace } from '../src/api/workspace.js'
import { testApi } from './helpers/api.js'
import { runCli } from './helpers/cli.js'
import { killHard, spawnServer, type ServerProcess } from './helpers/cli-process.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'

/*
 * The operator of Cloud instances on PostgreSQL: folio admin names a running instance's own
 * folder, that instance carries the operation out, and every other instance sees the result
 * (workspaces, keys, the plans table) because it is the database's.
 */

let db: TestDatabase
let work: string
const dirs: string[] = []
const instances: ServerProcess[] = []

beforeAll(async () => {
  db = await freshDatabase()
  work = await mkdtemp(join(tmpdir(), 'folio-pg-admin-'))
  for (const name of ['a', 'b']) dirs.push(join(work, name))
  instances.push(...(await Promise.all(dirs.map((dir) => spawnServer(dir, ['--database', db.url, '--mode', 'cloud'])))))
}, 60_000)

afterAll(async () => {
  await Promise.all(instances.map((i) => killHard(i.child)))
  await db?.drop()
  await rm(work, { recursive: true, force: true })
})

describe('folio admin with instances on PostgreSQL', () => {
  it('creates a workspace through one instance whose key works on the other, and replaces the plans for both', async () => {
    const made = await runCli(['admin', 'workspace', 'create', '--name', 'Acme', '--data', dirs[0]!, '--json'])
    expect(made.stderr).toBe('')
    const { workspace, apiKey } = made.json()
    const onB = testApi(instances[1]!.url, { key: apiKey })
    const seen = await onB.send(getWorkspace)
    expect(seen.status).toBe(200)
    expect(seen.body).toMatchObject({ id: workspace.id, plan: 'free' })

    const plansFile = join(work, 'plans.json')
    await writeFile(
      plansFile,
      JSON.stringify({
        free: { requestsPerMinute: 500, aiMessagesPerMonth: 2, storageBytes: 1_000_000 },
        pro: { requestsPerMinute: 70, aiMessagesPerMonth: 20, storageBytes: 10_000_000 },
      }),
    )
    const replaced = await runCli(['admin', 'plans', plansFile, '--data', dirs[1]!, '--json'])
    expect(replaced.code).toBe(0)
    expect(replaced.json().free.requestsPerMinute).toBe(500)

    // Instance A reads the database's plans again within seconds.
    const onA = testApi(instances[0]!.url, { key: apiKey })
    const deadline = Date.now() + 5_000
    let limit: number | undefined
    while (Date.now() < deadline && (limit = (await onA.send(getWorkspace)).body?.limits?.requestsPerMinute) !== 500)
      await new Promise((r) => setTimeout(r, 100))
    expect(limit).toBe(500)
    expect((await runCli(['admin', 'plans', '--data', dirs[0]!, '--json'])).json()).toMatchObject({ pro: { requestsPerMinute: 70 } })
  })

  it('refuses a plans table it cannot use, and says what a plan needs', async () => {
    const broken = join(work, 'broken.json')
    await writeFile(broken, JSON.stringify({ free: { requestsPerMinute: 'lots' } }))
    const refused = await runCli(['admin', 'plans', broken, '--data', dirs[0]!])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('Each plan needs requestsPerMinute, aiMessagesPerMonth and storageBytes.')
    const notJson = join(work, 'not.json')
    await writeFile(notJson, 'free: 7')
    expect((await runCli(['admin', 'plans', notJson, '--data', dirs[0]!])).stderr).toContain('is not JSON')
  })

  it("will not open a flat store in a stopped instance's folder: it says to start the instance", async () => {
    const dir = join(work, 'stopped')
    const stopped = await spawnServer(dir, ['--database', db.url, '--mode', 'cloud'])
    const exited = once(stopped.child, 'exit')
    stopped.child.kill('SIGTERM')
    await exited
    const refused = await runCli(['admin', 'workspace', 'list', '--data', dir])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/is the folder of an instance serving PostgreSQL 127\.0\.0\.1:\d+\/test_\w+: start it/)
    // Nothing was opened there: the folder holds no flat store of its own.
    expect(await readdir(dir).then((names) => names.filter((n) => n !== 'database-instance.txt'))).toEqual([])
  })
})
