import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PgPubSub, publishStatement } from '../src/store/pg/pub-sub-pg.js'
import { withTransaction } from '../src/store/pg/pool.js'
import { MAX_MESSAGE_BYTES, MessageTooLargeError, type PubSub } from '../src/store/coordination/pub-sub.js'
import { MemoryPubSub } from '../src/store/coordination/pub-sub-memory.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'

/**
 * Messages between instances (issue 15: live events and cache drops reach every instance). One
 * contract for both implementations; "two instances" in memory are one process's one bus, on
 * PostgreSQL two pools with a listener each on one database.
 */

let db: TestDatabase
beforeAll(async () => {
  db = await freshDatabase()
})
afterAll(() => db?.drop())

const closing: PubSub[] = []
afterEach(async () => {
  while (closing.length) await closing.pop()!.close()
})

/** Resolves with the first `count` messages a subscriber hears, failing after `ms`. */
function collect(bus: PubSub, channel: string, count: number, ms = 5_000): Promise<string[]> {
  const heard: string[] = []
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`heard ${heard.length} of ${count} messages on ${channel}: ${heard.join(', ')}`)), ms)
    const stop = bus.subscribe(channel, {
      message(message) {
        heard.push(message)
        if (heard.length < count) return
        clearTimeout(timer)
        stop()
        resolve(heard)
      },
    })
  })
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const implementations: Array<[string, () => Promise<[PubSub, PubSub]>]> = [
  [
    'MemoryPubSub',
    async () => {
      const bus = new MemoryPubSub()
      closing.push(bus)
      return [bus, bus]
    },
  ],
  [
    'PgPubSub',
    async () => {
      const a = await PgPubSub.start(db.pool(2), db.url)
      const b = await PgPubSub.start(db.pool(2), db.url)
      closing.push(a, b)
      return [a, b]
    },
  ],
]

describe.each(implementations)('%s: the PubSub contract', (_name, instances) => {
  it('delivers to subscribers on every instance, the publisher’s own included, in the order published', async () => {
    const [a, b] = await instances()
    const sent = Array.from({ length: 100 }, (_, i) => `f_${i}`)
    const onA = collect(a, 'folio', 100)
    const onB = collect(b, 'folio', 100)
    for (const message of sent) await a.publish('folio', message)
    expect(await onA).toEqual(sent)
    expect(await onB).toEqual(sent)
  })

  it('never delivers inside publish(), and keeps channels apart', async () => {
    const [a, b] = await instances()
    const heard: string[] = []
    b.subscribe('other', { message: (m) => heard.push(`other:${m}`) })
    const onFolio = collect(b, 'folio', 1)
    const publishing = a.publish('folio', 'x')
    expect(heard).toEqual([])
    await publishing
    expect(await onFolio).toEqual(['x'])
    await pause(50)
    expect(heard).toEqual([])
  })

  it('stops delivering once unsubscribed; a failing subscriber does not stop the others', async () => {
    const [a, b] = await instances()
    const gone: string[] = []
    const stop = b.subscribe('folio', { message: (m) => gone.push(m) })
    b.subscribe('folio', {
      message() {
        throw new Error('a subscriber failed')
      },
    })
    stop()
    const still = collect(b, 'folio', 1)
    await a.publish('folio', 'after')
    expect(await still).toEqual(['after'])
    expect(gone).toEqual([])
  })

  it(`carries ${MAX_MESSAGE_BYTES} bytes (UTF-8), and refuses a byte more before sending anything`, async () => {
    const [a, b] = await instances()
    const biggest = 'é'.repeat(MAX_MESSAGE_BYTES / 2)
    const heard = collect(b, 'folio', 1)
    await a.publish('folio', biggest)
    expect(await heard).toEqual([biggest])
    await expect(a.publish('folio', `${biggest}x`)).rejects.toBeInstanceOf(MessageTooLargeError)
    await expect(a.publish('no spaces', 'x')).rejects.toThrow(/channel name/)
  })
})

describe('PgPubSub: through the database', () => {
  it('sends what a transaction published at its COMMIT, and nothing a ROLLBACK undid', async () => {
    const a = await PgPubSub.start(db.pool(2), db.url)
    const b = await PgPubSub.start(db.pool(2), db.url)
    closing.push(a, b)
    const heard: string[] = []
    b.subscribe('folio', { message: (m) => heard.push(m) })
    const pool = db.pool(2)
    await expect(
      withTransaction(pool, async (client) => {
        await client.query(publishStatement('folio', 'rolled-back'))
        throw new Error('the write failed')
      }),
    ).rejects.toThrow('the write failed')
    const committed = withTransaction(pool, async (client) => {
      await client.query(publishStatement('folio', 'committed'))
      await pause(100)
      expect(heard).toEqual([]) // not before COMMIT
    })
    await committed
    await pause(200)
    expect(heard).toEqual(['committed'])
  })

  it('comes back after its connection is killed, says messages may have been missed, and hears the next ones', async () => {
    const warnings: string[] = []
    const a = await PgPubSub.start(db.pool(2), db.url)
    const b = await PgPubSub.start(db.pool(2), db.url, { warn: (m) => warnings.push(m) })
    closing.push(a, b)
    let gaps = 0
    const heard: string[] = []
    b.subscribe('folio', { message: (m) => heard.push(m), gap: () => gaps++ })
    const pid = await b.listenerPid()
    await db.pool(1).query('SELECT pg_terminate_backend($1)', [pid])
    for (let waited = 0; gaps === 0 && waited < 10_000; waited += 20) await pause(20)
    expect(gaps).toBe(1)
    expect(await b.listenerPid()).not.toBe(pid)
    expect(warnings.join('\n')).toContain('57P01')
    await a.publish('folio', 'after the reconnect')
    for (let waited = 0; heard.length === 0 && waited < 5_000; waited += 20) await pause(20)
    expect(heard).toEqual(['after the reconnect'])
  })
})
