import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { KeyedMutex } from '../src/store/coordination/keyed-mutex.js'
import type { Locks } from '../src/store/coordination/locks.js'
import { lockIdOf, PgLocks, type PgLocksOptions } from '../src/store/pg/pg-locks.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'

/**
 * Locks across instances on one database (store/pg/pg-locks.ts). An "instance" is a PgLocks
 * with its own lock connection plus a pool of its own, as a folio server would have; the work
 * under a lock is a read-modify-write of a counter row through that pool (two statements with a
 * pause between), which loses increments whenever two instances interleave.
 */

const root = resolve(import.meta.dirname, '..')
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms))

let db: TestDatabase
let admin: pg.Pool
beforeAll(async () => {
  db = await freshDatabase()
  admin = db.pool(2)
  await admin.query('CREATE TABLE counters (key text PRIMARY KEY, n integer NOT NULL)')
})
afterAll(() => db?.drop())

const opened: PgLocks[] = []
const stillHeld: Array<() => void> = []
afterEach(async () => {
  for (const release of stillHeld.splice(0)) release()
  await Promise.all(opened.splice(0).map((locks) => locks.close()))
})

interface Instance {
  locks: PgLocks
  pool: pg.Pool
  warnings: string[]
}

async function instance(options: PgLocksOptions = {}): Promise<Instance> {
  const warnings: string[] = []
  const locks = await PgLocks.start(db.url, { warn: (m) => warnings.push(m), ...options })
  opened.push(locks)
  return { locks, pool: db.pool(4), warnings }
}

/** Reads, waits a moment, writes back one more: two of these interleaving lose one. */
async function increment(pool: pg.Pool, key: string): Promise<void> {
  const { rows } = await pool.query<{ n: number }>('SELECT n FROM counters WHERE key = $1', [key])
  await pause(Math.random() < 0.5 ? 0 : 1)
  await pool.query('INSERT INTO counters (key, n) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET n = excluded.n', [key, (rows[0]?.n ?? 0) + 1])
}

const counter = async (key: string) => (await admin.query<{ n: number }>('SELECT n FROM counters WHERE key = $1', [key])).rows[0]?.n ?? 0

/** `total` increments of `key`, all started at once, spread round-robin over the instances. */
async function incrementEverywhere(instances: Array<{ locks: Locks; pool: pg.Pool }>, key: string, total: number): Promise<number> {
  await Promise.all(
    Array.from({ length: total }, (_, i) => instances[i % instances.length]!).map(({ locks, pool }) => locks.run(key, () => increment(pool, key))),
  )
  return counter(key)
}

/** The advisory lock ids a backend holds now. */
async function advisoryLocksOf(pid: number | undefined): Promise<string[]> {
  const { rows } = await admin.query<{ classid: number; objid: number }>(
    "SELECT classid, objid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid = $1",
    [pid],
  )
  return rows.map((r) => BigInt.asIntN(64, (BigInt(r.classid) << 32n) | BigInt(r.objid)).toString()).sort()
}

async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Holds `key` on `locks` until the returned release() is called; resolves once held. */
async function holding(locks: Locks, key: string): Promise<{ release: () => void; done: Promise<void> }> {
  let release!: () => void
  let held!: () => void
  const isHeld = new Promise<void>((resolve) => (held = resolve))
  const done = locks.run(key, () => {
    held()
    return new Promise<void>((resolve) => stillHeld.push((release = resolve)))
  })
  await isHeld
  return { release, done }
}

describe('mutual exclusion across instances', () => {
  it('the race is real: two in-memory mutexes (one per instance) lose increments', async () => {
    const pools = [db.pool(4), db.pool(4)]
    const total = await incrementEverywhere(
      pools.map((pool) => ({ locks: new KeyedMutex(), pool })),
      'control',
      300,
    )
    expect(total).toBeLessThan(300)
  })

  it('two instances: 300 concurrent increments end at exactly 300', async () => {
    const instances = [await instance(), await instance()]
    expect(await incrementEverywhere(instances, 'two', 300)).toBe(300)
    expect(instances.flatMap((i) => i.warnings)).toEqual([])
  })

  it('three instances: 300 concurrent increments end at exactly 300', async () => {
    const instances = [await instance(), await instance(), await instance()]
    expect(await incrementEverywhere(instances, 'three', 300)).toBe(300)
  })

  it('nested and concurrent: 50 holders per instance each nest 3 of 5 keys; every increment counts, on one connection per instance', async () => {
    const instances = [await instance(), await instance()]
    const keys = ['n:a', 'n:b', 'n:c', 'n:d', 'n:e']
    const nested = ({ locks, pool }: Instance, chosen: string[]) => {
      const step = (i: number): Promise<void> =>
        i === chosen.length ? Promise.all(chosen.map((k) => increment(pool, k))).then(() => {}) : locks.run(chosen[i]!, () => step(i + 1))
      return step(0)
    }
    const sessions = await Promise.all(instances.map((i) => i.locks.sessionPid()))
    // While the work runs, every advisory lock in the database is held by one of the two sessions.
    const holders = new Set<number>()
    const sampling = setInterval(async () => {
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT DISTINCT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      )
      for (const row of rows) holders.add(row.pid)
    }, 5)
    const work = instances.flatMap((inst) => Array.from({ length: 50 }, (_, i) => nested(inst, [keys[i % 5]!, keys[(i + 1) % 5]!, keys[(i + 2) % 5]!].sort())))
    await within(30_000, Promise.all(work), '100 nested holders').finally(() => clearInterval(sampling))
    // Each key is in 3 of every 5 choices: 60 of the 100 holders.
    expect(await Promise.all(keys.map(counter))).toEqual([60, 60, 60, 60, 60])
    expect([...holders].sort()).toEqual([...sessions].sort())
  })

  it('runAll takes keys in sorted order: opposite orders on two instances never deadlock', async () => {
    const [a, b] = [await instance(), await instance()]
    const keys = ['r:x', 'r:y', 'r:z']
    const heldInside: string[][] = []
    const pidA = await a.locks.sessionPid()
    await within(
      30_000,
      Promise.all([
        ...Array.from({ length: 30 }, (_, i) =>
          a.locks.runAll(keys, async () => {
            if (i === 0) heldInside.push(await advisoryLocksOf(pidA))
            await increment(a.pool, 'r:total')
          }),
        ),
        ...Array.from({ length: 30 }, () => b.locks.runAll([...keys].reverse(), () => increment(b.pool, 'r:total'))),
      ]),
      'runAll in opposite orders',
    )
    expect(await counter('r:total')).toBe(60)
    expect(heldInside).toEqual([keys.map(lockIdOf).sort()])
  })
})

describe('staleness', () => {
  it('onStale runs exactly when another instance held the key since this one did', async () => {
    const [a, b] = [await instance(), await instance()]
    const heard: string[] = []
    a.locks.onStale((key) => heard.push(`a:${key}`))
    b.locks.onStale((key) => heard.push(`b:${key}`))
    const touch = (inst: Instance, key: string) => inst.locks.run(key, async () => heard.push(`${inst === a ? 'a' : 'b'} runs ${key}`))

    await touch(a, 's:1') // nobody ever held it
    await touch(a, 's:1') // only a held it
    expect(heard.splice(0)).toEqual(['a runs s:1', 'a runs s:1'])
    await touch(b, 's:1') // b never saw it, a held it
    await touch(b, 's:1')
    expect(heard.splice(0)).toEqual(['b:s:1', 'b runs s:1', 'b runs s:1'])
    await touch(a, 's:1') // b held it since
    await touch(a, 's:1')
    await touch(a, 's:2') // another key is its own story
    expect(heard.splice(0)).toEqual(['a:s:1', 'a runs s:1', 'a runs s:1', 'a runs s:2'])
    await b.locks.runAll(['s:2', 's:1'], async () => {
      heard.push('b runs both')
    })
    await a.locks.runAll(['s:1', 's:2'], async () => {
      heard.push('a runs both')
    })
    expect(heard.splice(0)).toEqual(['b:s:1', 'b:s:2', 'b runs both', 'a:s:1', 'a:s:2', 'a runs both'])
  })

  it('a listener that throws fails the work, and the key is still stale next time; unsubscribed listeners hear nothing', async () => {
    const [a, b] = [await instance(), await instance()]
    await b.locks.run('t:1', async () => {})
    const stop = a.locks.onStale(() => {
      throw new Error('could not drop the cache')
    })
    let ran = false
    await expect(a.locks.run('t:1', async () => (ran = true))).rejects.toThrow('could not drop the cache')
    expect(ran).toBe(false)
    stop()
    const heard: string[] = []
    a.locks.onStale((key) => heard.push(key))
    await a.locks.run('t:1', async () => {})
    expect(heard).toEqual(['t:1'])
  })

  it('remembers a bounded number of keys: a forgotten key counts as stale', async () => {
    const a = await instance({ remember: 2 })
    const heard: string[] = []
    a.locks.onStale((key) => heard.push(key))
    for (const key of ['m:1', 'm:2', 'm:1', 'm:3', 'm:1']) await a.locks.run(key, async () => {})
    expect(heard).toEqual([])
    await a.locks.run('m:2', async () => {}) // pushed out by m:3 and m:1
    expect(heard).toEqual(['m:2'])
  })
})

describe('waiting and releasing', () => {
  it('a waiter is woken by the release (NOTIFY), not by its poll', async () => {
    const [a, b] = [await instance(), await instance({ maxPollMs: 20_000 })]
    const held = await holding(a.locks, 'w:1')
    let tookAt = 0
    const waiting = b.locks.run('w:1', async () => void (tookAt = Date.now()))
    await pause(1_000) // b has tried, and now sleeps 640 ms between polls
    const releasedAt = Date.now()
    held.release()
    await within(2_000, waiting, 'the woken waiter')
    expect(tookAt - releasedAt).toBeLessThan(250)
  })

  it('a release announces itself only when someone failed to take the lock meanwhile', async () => {
    const [a, b] = [await instance(), await instance()]
    const listener = await admin.connect()
    const heard: string[] = []
    listener.on('notification', (n) => heard.push(n.payload ?? ''))
    try {
      await listener.query('LISTEN folio_locks')
      for (let i = 0; i < 20; i++) await a.locks.run('quiet', async () => {})
      await a.locks.idle()
      await pause(100)
      expect(heard).toEqual([])
      const held = await holding(a.locks, 'quiet')
      const waiting = b.locks.run('quiet', async () => {})
      await pause(100)
      held.release()
      await waiting
      await b.locks.idle()
      await pause(100)
      expect(heard).toEqual([lockIdOf('quiet')])
    } finally {
      await listener.query('UNLISTEN *')
      listener.release()
    }
  })

  it('idle() waits for the release in the database; close() ends the lock connection and refuses new work', async () => {
    const [a, b] = [await instance(), await instance()]
    const pid = await a.locks.sessionPid()
    await Promise.all(['i:1', 'i:2', 'i:3'].map((key) => a.locks.run(key, async () => {})))
    await a.locks.idle()
    expect(await advisoryLocksOf(pid)).toEqual([])
    const held = await holding(a.locks, 'i:1')
    const closing = a.locks.close()
    setTimeout(held.release, 100)
    await closing
    await held.done
    await expect(a.locks.run('i:1', async () => {})).rejects.toThrow('the locks are closed')
    const { rows } = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])
    expect(rows).toEqual([])
    await within(
      1_000,
      b.locks.run('i:1', async () => {}),
      'the other instance',
    )
    expect(a.warnings).toEqual([])
  })

  it('an error from the database reaches the caller (no lock table: the database is not migrated)', async () => {
    const empty = await freshDatabase({ empty: true })
    const warnings: string[] = []
    const locks = await PgLocks.start(empty.url, { warn: (m) => warnings.push(m) })
    try {
      await expect(locks.run('e:1', async () => {})).rejects.toMatchObject({ code: '42P01' })
      await expect(locks.run('e:1', async () => {})).rejects.toMatchObject({ code: '42P01' })
      expect(warnings).toEqual([])
    } finally {
      await locks.close()
      await empty.drop()
    }
  })
})

describe('a lost holder', () => {
  it('its lock session terminated: the other instance proceeds within a second; the holder warns, survives and recovers', async () => {
    const [a, b] = [await instance(), await instance()]
    const heardByA: string[] = []
    const heardByB: string[] = []
    a.locks.onStale((key) => heardByA.push(key))
    b.locks.onStale((key) => heardByB.push(key))
    await b.locks.run('l:1', async () => {})
    await a.locks.run('l:2', async () => {})
    const held = await holding(a.locks, 'l:1')
    heardByA.length = heardByB.length = 0
    const waiting = b.locks.run('l:1', async () => {})
    await pause(100)
    const pid = await a.locks.sessionPid()
    const killedAt = Date.now()
    await admin.query('SELECT pg_terminate_backend($1)', [pid])
    await within(1_000, waiting, 'the waiter after the holder’s session ended')
    expect(Date.now() - killedAt).toBeLessThan(1_000)
    expect(heardByB).toEqual(['l:1'])
    for (let waited = 0; !a.warnings.length && waited < 2_000; waited += 20) await pause(20)
    expect(a.warnings).toEqual([
      'locks: the lock connection was lost (57P01); 1 lock was held: until that work ends, other instances may run work under the same keys; every key counts as stale, and new locks wait for a new connection',
    ])
    // New work on the holder waits for the new connection, and then runs; every key is stale to it.
    await within(
      5_000,
      a.locks.run('l:2', async () => {}),
      'a new lock after the loss',
    )
    expect(heardByA).toEqual(['l:2'])
    expect(await a.locks.sessionPid()).not.toBe(pid)
    // The old holder ends: the key's generation moves, so b reads it again next time.
    held.release()
    await held.done
    await a.locks.idle()
    heardByB.length = 0
    await b.locks.run('l:1', async () => {})
    expect(heardByB).toEqual(['l:1'])
    expect(a.warnings).toHaveLength(1)
  })

  it('its lock session terminated in the middle of 300 increments: every run settles, at most the one running loses its exclusion', async () => {
    const [a, b] = [await instance(), await instance()]
    let done = 0
    const runs = Array.from({ length: 300 }, (_, i) => (i % 2 ? b : a)).map(({ locks, pool }) =>
      locks.run('burst', () => increment(pool, 'burst')).then(() => done++),
    )
    for (let waited = 0; done < 60 && waited < 10_000; waited += 5) await pause(5)
    await admin.query('SELECT pg_terminate_backend($1)', [await a.locks.sessionPid()])
    await within(30_000, Promise.all(runs), 'the 300 runs')
    expect(await counter('burst')).toBeGreaterThanOrEqual(299)
    expect(a.warnings).toHaveLength(1)
    expect(a.warnings[0]).toMatch(/^locks: the lock connection was lost \(57P01\)/)
  })

  it('its process killed: the other instance proceeds within a second', async () => {
    const b = await instance()
    const body = `const { PgLocks } = await import('./src/store/pg/pg-locks.ts')
      const locks = await PgLocks.start(process.env.LOCKS_URL)
      void locks.run('k:1', () => { console.log('held'); return new Promise(() => {}) })`
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', body], {
      cwd: root,
      env: { ...process.env, LOCKS_URL: db.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      await within(
        20_000,
        new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve())),
        'the child holding k:1',
      )
      const waiting = b.locks.run('k:1', async () => {})
      await pause(300)
      const killedAt = Date.now()
      child.kill('SIGKILL')
      await within(1_000, waiting, 'the waiter after the holder was killed')
      expect(Date.now() - killedAt).toBeLessThan(1_000)
    } finally {
      child.kill('SIGKILL')
    }
  })
})
