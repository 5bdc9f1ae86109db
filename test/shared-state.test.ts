import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { rm } from 'node:fs/promises'
import { createStorage } from 'unstorage'
import { afterEach, describe, expect, it } from 'vitest'
import { durableFsDriver } from '../src/store/durable-fs-driver.js'
import { FileSharedState } from '../src/store/shared-state-file.js'
import { makeDataDir } from './helpers/server.js'
import { sharedStateContract } from './helpers/shared-state-contract.js'

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!()
})

/** A data dir, and the state opened (and reopened, as after a restart) on it with a test clock. */
async function fileSubject() {
  const dir = await makeDataDir()
  const clock = { now: Date.UTC(2026, 10, 24, 12, 0, 30) }
  let current: FileSharedState | undefined
  const open = async () => {
    await current?.close()
    const storage = createStorage({ driver: durableFsDriver({ base: dir }) })
    current = await FileSharedState.open(storage, { now: () => clock.now, sweepMs: 3_600_000 })
    return current
  }
  cleanup.push(async () => {
    await current?.close()
    await rm(dir, { recursive: true, force: true })
  })
  return { dir, clock, open, reopen: open }
}

describe('FileSharedState: the SharedState contract', () => {
  sharedStateContract(fileSubject)
})

describe('FileSharedState: on disk', () => {
  const filesIn = async (dir: string) => (await readdir(join(dir, 'shared', 'records')).catch(() => [])).length

  it('sweeps expired records from the disk, and does not load them again', async () => {
    const { dir, clock, open } = await fileSubject()
    const state = await open()
    await state.set('a', 1, clock.now + 100)
    await state.set('b', 2, clock.now + 10_000)
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
