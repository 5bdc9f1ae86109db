import { expect, it } from 'vitest'
import type { SharedState } from '../../src/store/coordination/shared-state.js'

/**
 * What every SharedState must do, whatever keeps it (flat files now, PostgreSQL in issue 15).
 * `open` gives a fresh, empty state; `reopen` the same state after a restart (or undefined where
 * nothing survives one); `clock` moves the implementation's notion of now.
 */
export interface SharedStateSubject {
  open(): Promise<SharedState>
  reopen(): Promise<SharedState>
  clock: { now: number }
}

export function sharedStateContract(make: () => Promise<SharedStateSubject>): void {
  it('counts hits in fixed windows and starts again when one ends', async () => {
    const { open, clock } = await make()
    const state = await open()
    const first = await state.hit('rl:a', 60_000)
    const second = await state.hit('rl:a', 60_000)
    expect([first.count, second.count]).toEqual([1, 2])
    expect(second.resetAt).toBe(first.resetAt)
    expect(first.resetAt).toBeGreaterThan(clock.now)
    expect(first.resetAt - clock.now).toBeLessThanOrEqual(60_000)
    expect((await state.hit('rl:b', 60_000)).count).toBe(1)
    clock.now = first.resetAt
    expect(await state.hit('rl:a', 60_000)).toEqual({ count: 1, resetAt: first.resetAt + 60_000 })
  })

  it('adds to counters until they expire, and keeps them across a restart', async () => {
    const { open, reopen, clock } = await make()
    const state = await open()
    const end = clock.now + 1_000
    expect(await state.count('ai:ws')).toBe(0)
    expect(await state.add('ai:ws', 1, end)).toBe(1)
    expect(await Promise.all([state.add('ai:ws', 2, end), state.add('ai:ws', 3, end)])).toEqual([3, 6])
    const again = await reopen()
    expect(await again.count('ai:ws')).toBe(6)
    clock.now = end
    expect(await again.count('ai:ws')).toBe(0)
    expect(await again.add('ai:ws', 1, end + 1_000)).toBe(1)
  })

  it('keeps records until they expire, across a restart', async () => {
    const { open, reopen, clock } = await make()
    const state = await open()
    const version = await state.set('session:1', { email: 'a@example.com' }, clock.now + 500)
    expect(version).toEqual(expect.any(Number))
    expect(await state.get('session:1')).toEqual({ value: { email: 'a@example.com' }, version, expiresAt: clock.now + 500 })
    const again = await reopen()
    expect((await again.get('session:1'))?.value).toEqual({ email: 'a@example.com' })
    clock.now += 500
    expect(await again.get('session:1')).toBeUndefined()
    expect(await again.list('session:')).toEqual([])
  })

  it('hands out copies: changing what get returned changes nothing stored', async () => {
    const { open, clock } = await make()
    const state = await open()
    await state.set('r', { n: 1 }, clock.now + 1_000)
    const got = await state.get<{ n: number }>('r')
    got!.value.n = 99
    expect((await state.get<{ n: number }>('r'))?.value.n).toBe(1)
  })

  it('compare-and-set: only the writer that read the current version wins', async () => {
    const { open, clock } = await make()
    const state = await open()
    const later = clock.now + 10_000
    const v1 = (await state.set('code:s', { attempts: 0 }, later)) as number
    const results = await Promise.all([state.set('code:s', { attempts: 1 }, later, v1), state.set('code:s', { attempts: 1 }, later, v1)])
    expect(results.filter((r) => r !== false)).toHaveLength(1)
    expect(await state.set('code:s', { attempts: 2 }, later, v1)).toBe(false)
    expect((await state.get('code:s'))?.value).toEqual({ attempts: 1 })
    // null: create only when nothing is there.
    expect(await state.set('code:s', { attempts: 0 }, later, null)).toBe(false)
    expect(await state.set('code:new', { attempts: 0 }, later, null)).toEqual(expect.any(Number))
    // An expired record is nothing: create-only succeeds over it.
    await state.set('code:old', {}, clock.now + 1)
    clock.now += 1
    expect(await state.set('code:old', { fresh: true }, later, null)).toEqual(expect.any(Number))
  })

  it('versions never repeat, even after a delete and a restart', async () => {
    const { open, reopen, clock } = await make()
    const state = await open()
    const later = clock.now + 10_000
    const v1 = (await state.set('k', 1, later)) as number
    expect(await state.delete('k')).toBe(true)
    const v2 = (await state.set('k', 2, later)) as number
    expect(v2).not.toBe(v1)
    const again = await reopen()
    const v3 = (await again.set('k', 3, later)) as number
    expect(new Set([v1, v2, v3]).size).toBe(3)
    expect(await again.set('k', 4, later, v2)).toBe(false)
  })

  it('deletes only the version asked for, and says whether it removed anything', async () => {
    const { open, reopen, clock } = await make()
    const state = await open()
    const v = (await state.set('inv:x', { role: 'member' }, clock.now + 10_000)) as number
    expect(await state.delete('inv:x', v + 1)).toBe(false)
    expect(await state.delete('inv:x', v)).toBe(true)
    expect(await state.delete('inv:x')).toBe(false)
    expect(await (await reopen()).get('inv:x')).toBeUndefined()
  })

  it('lists the live records under a prefix', async () => {
    const { open, clock } = await make()
    const state = await open()
    await state.set('signin:ws1:a', { n: 1 }, clock.now + 10_000)
    await state.set('signin:ws1:b', { n: 2 }, clock.now + 10)
    await state.set('signin:ws2:c', { n: 3 }, clock.now + 10_000)
    expect((await state.list('signin:ws1:')).map((r) => r.key).sort()).toEqual(['signin:ws1:a', 'signin:ws1:b'])
    clock.now += 10
    const live = await state.list<{ n: number }>('signin:ws1:')
    expect(live.map((r) => [r.key, r.value.n])).toEqual([['signin:ws1:a', 1]])
  })
}
