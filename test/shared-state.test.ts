import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { rm } from 'node:fs/promises'
import { createStorage } from 'unstorage'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type DurableFsDriver, durableFsDriver } from '../src/store/engine/durable-fs-driver.js'
import { PgSharedState } from '../src/store/pg/shared-state-pg.js'
import { FileSharedState } from '../src/store/coordination/shared-state-file.js'
import { MemorySharedState } from '../src/store/coordination/shared-state-memory.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'
import { makeDataDir } from './helpers/server.js'
import { sharedStateContract } from './helpers/shared-state-contract.js'

/**
 * One contract (helpers/shared-state-contract.ts), every implementation: as unstorage runs one
 * driver suite against each of its drivers. Then what is particular to each.
 */

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!()
})

let db: TestDatabase
beforeAll(async () => {
  db = await freshDatabase()
})
afterAll(() => db?.drop())

/** Memory survives no restart: `reopen` is the same state, as another caller in the process sees it. */
async function memorySubject() {
  const clock = { now: Date.UTC(2026, 10, 24, 12, 0, 30) }
  const state = new MemorySharedState({ now: () => clock.now })
  return { clock, open: async () => state, reopen: async () => state }
}

/**
 * PostgreSQL: each test starts from empty tables; `reopen` is a new pool and a new state on the
 * same database, as a restarted (or a second) instance would be.
 */
async function pgSubject() {
  const clock = { now: Date.UTC(2026, 10, 24, 12, 0, 30) }
  const instance = () => {
    const state = new PgSharedState(db.pool(4), { now: () => clock.now, sweepMs: 3_600_000 })
    cleanup.push(() => state.close())
    return state
  }
  return {
    clock,
    async open() {
      await db.pool(1).query('TRUNCATE shared_windows, shared_counters, shared_records')
      return instance()
    },
    reopen: async () => instance(),
  }
}

/** A data dir, and the state opened (and reopened, as after a restart) on it with a test clock. */
async function fileSubject() {
  const dir = await makeDataDir()
  const clock = { now: Date.UTC(2026, 10, 24, 12, 0, 30) }
  let current: FileSharedState | undefined
  let driver: DurableFsDriver | undefined
  const open = async () => {
    await current?.close()
    driver = durableFsDriver({ base: dir }) as DurableFsDriver
    const storage = createStorage({ driver })
    current = await FileSharedState.open(storage, { now: () => clock.now, sweepMs: 3_600_000 })
    return current
  }
  cleanup.push(async () => {
    await current?.close()
    await rm(dir, { recursive: true, force: true })
  })
  /** The files as they are once the journal's writes are in them. */
  const writeBack = () => driver!.writeBack()
  return { dir, clock, open, reopen: open, writeBack }
}

describe('FileSharedState: the SharedState contract', () => {
  sharedStateContract(fileSubject)
})

describe('MemorySharedState: the SharedState contract', () => {
  sharedStateContract(memorySubject)
})

describe('PgSharedState: the SharedState contract', () => {
  sharedStateContract(pgSubject)
})

describe('PgSharedState: two instances on one database', () => {
  const twoInstances = async () => {
    const { open, reopen, clock } = await pgSubject()
    return { a: await open(), b: await reopen(), clock }
  }

  it('counts concurrent hits on both exactly: every count from 1 to 400 given once', async () => {
    const { a, b } = await twoInstances()
    const now = Date.UTC(2026, 10, 24, 12, 0, 30)
    const counts = await Promise.all(Array.from({ length: 400 }, (_, i) => (i % 2 ? a : b).hit('rl:ws', 60_000, now)))
    expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1))
    expect(new Set(counts.map((c) => c.resetAt))).toEqual(new Set([Date.UTC(2026, 10, 24, 12, 1, 0)]))
    // The next window starts again at 1, on either instance.
    expect((await a.hit('rl:ws', 60_000, now + 30_000)).count).toBe(1)
    expect((await b.hit('rl:ws', 60_000, now + 30_000)).count).toBe(2)
  })

  it('adds concurrent increments on both exactly', async () => {
    const { a, b, clock } = await twoInstances()
    const values = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).add('ai:ws', 1, clock.now + 60_000)))
    expect(values.sort((x, y) => x - y)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1))
    expect(await b.count('ai:ws')).toBe(300)
  })

  it('compare-and-set: of 40 concurrent writers holding one version, on both instances, exactly one wins', async () => {
    const { a, b, clock } = await twoInstances()
    const later = clock.now + 60_000
    for (let round = 0; round < 5; round++) {
      const current = (await a.get<{ attempts: number }>('code:c')) ?? { version: null, value: { attempts: 0 } }
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).set('code:c', { attempts: current.value.attempts + 1, by: i }, later, current.version)),
      )
      const winners = results.filter((r) => r !== false)
      expect(winners).toHaveLength(1)
      expect((await b.get('code:c'))?.version).toBe(winners[0])
    }
    expect((await a.get<{ attempts: number }>('code:c'))?.value.attempts).toBe(5)
  })

  it('deletes a version once: of concurrent deletes of it on both instances, one says it removed it', async () => {
    const { a, b, clock } = await twoInstances()
    const v = (await a.set('inv:y', {}, clock.now + 60_000)) as number
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).delete('inv:y', v)))
    expect(results.filter(Boolean)).toHaveLength(1)
  })

  it('takes a prefix literally: % and _ in it match only themselves', async () => {
    const { a, clock } = await twoInstances()
    for (const key of ['ws_1:a', 'wsX1:b', 'ws%:c', 'ws%x:d', 'ws\\:e']) await a.set(key, 1, clock.now + 60_000)
    expect((await a.list('ws_')).map((r) => r.key)).toEqual(['ws_1:a'])
    expect((await a.list('ws%:')).map((r) => r.key)).toEqual(['ws%:c'])
    expect((await a.list('ws\\')).map((r) => r.key)).toEqual(['ws\\:e'])
  })

  it('sweeps expired rows; what is live stays', async () => {
    const { a, clock } = await twoInstances()
    await a.set('old', 1, clock.now + 10)
    await a.set('live', 1, clock.now + 60_000)
    await a.add('n', 1, clock.now + 10)
    await a.hit('w', 1_000)
    clock.now += 1_000
    await a.sweep()
    const rows = async (table: string) => (await db.pool(1).query(`SELECT key FROM ${table}`)).rows.map((r) => r.key)
    expect([await rows('shared_records'), await rows('shared_counters'), await rows('shared_windows')]).toEqual([['live'], [], []])
  })
})

describe('FileSharedState: on disk', () => {
  const filesIn = async (dir: string) => (await readdir(join(dir, 'shared', 'records')).catch(() => [])).length

  it('sweeps expired records from the disk, and does not load them again', async () => {
    const { dir, clock, open, writeBack } = await fileSubject()
    const state = await open()
    await state.set('a', 1, clock.now + 100)
    await state.set('b', 2, clock.now + 10_000)
    await writeBack()
    expect(await filesIn(dir)).toBe(2)
    clock.now += 100
    state.sweep()
    await state.close()
    expect(await filesIn(dir)).toBe(1)
    clock.now += 10_000
    const again = await open()
    expect(await again.list('')).toEqual([])
    await again.close()
    expect(await filesIn(dir)).toBe(0)
  })

  it('ends with the last write on disk when writes to one key race', async () => {
    const { clock, open } = await fileSubject()
    const state = await open()
    await Promise.all(Array.from({ length: 50 }, (_, i) => state.set('race', i, clock.now + 10_000)))
    const again = await open()
    expect((await again.get('race'))?.value).toBe(49)
  })

  it('keeps no rate-limit windows on disk', async () => {
    const { dir, open } = await fileSubject()
    const state = await open()
    for (let i = 0; i < 5; i++) await state.hit('rl', 60_000)
    await state.close()
    expect(await readdir(dir)).not.toContain('shared')
  })
})
