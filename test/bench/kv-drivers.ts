/**
 * µs per storage call on each driver the store runs on: the durable fs driver (a temp data
 * dir) and the PostgreSQL driver on a local embedded server, with durability off (as the test
 * server runs) and on (fsync and synchronous_commit, as production runs). A measurement to read,
 * not a goal: not part of `npm run bench`.
 *
 *   node --import tsx test/bench/kv-drivers.ts
 *
 * Calls go through unstorage, as the repositories make them; 100 KB values, random (nothing to
 * compress) and HTML (PostgreSQL compresses it in TOAST). "1 at a time" is a call's latency;
 * "8 at once" is µs per call with 8 in flight (the throughput of a busy instance; the pool
 * holds 8 connections).
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStorage, type Driver, type Storage } from 'unstorage'
import { durableFsDriver } from '../../src/store/engine/durable-fs-driver.js'
import { migrate } from '../../src/store/pg/migrate.js'
import { pgKvDriver } from '../../src/store/pg/kv-driver.js'
import { createPool } from '../../src/store/pg/pool.js'
import { startCluster } from '../helpers/pg-cluster.js'
import { htmlLines } from './lib/content.js'

const SIZE = 100 * 1024
const KEYS = 64
const CALLS = Number(process.env.KV_CALLS ?? 400)
const ROUNDS = 3

const values = {
  random: randomBytes(SIZE),
  html: Buffer.from(htmlLines(SIZE, 3).join('\n').slice(0, SIZE)),
}

/** µs per call: `calls` calls of `fn`, `parallel` in flight at once, the median of ROUNDS rounds. */
async function measure(parallel: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const rounds: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    let next = 0
    const started = process.hrtime.bigint()
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < CALLS) await fn(next++)
      }),
    )
    rounds.push(Number(process.hrtime.bigint() - started) / 1_000 / CALLS)
  }
  return rounds.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!
}

async function measureDriver(name: string, driver: Driver): Promise<Record<string, string>> {
  const storage: Storage = createStorage({ driver })
  const key = (i: number) => `bench:blobs:${String(i % KEYS).padStart(2, '0')}`
  const row: Record<string, string> = { driver: name }
  for (const [kind, value] of Object.entries(values)) {
    // Warm-up: every key exists, connections are open, statements are prepared.
    for (let i = 0; i < KEYS; i++) await storage.setItemRaw(key(i), value)
    for (const parallel of [1, 8]) {
      const write = await measure(parallel, (i) => storage.setItemRaw(key(i), value))
      const read = await measure(parallel, async (i) => {
        const got = (await storage.getItemRaw(key(i))) as Buffer
        if (got.length !== value.length) throw new Error(`read ${got.length} bytes, wrote ${value.length}`)
      })
      row[`set ${kind} ×${parallel}`] = write.toFixed(0)
      row[`get ${kind} ×${parallel}`] = read.toFixed(0)
    }
  }
  row['has (missing) ×1'] = (await measure(1, (i) => storage.hasItem(`bench:missing:${i}`))).toFixed(0)
  await storage.dispose()
  return row
}

async function measurePg(name: string, durable: boolean): Promise<Record<string, string>> {
  const cluster = await startCluster({ durable })
  try {
    const pool = createPool(cluster.url, { max: 8 })
    try {
      await migrate(pool)
      return await measureDriver(name, pgKvDriver({ pool }))
    } finally {
      await pool.end()
    }
  } finally {
    await cluster.stop()
  }
}

const rows: Array<Record<string, string>> = []
const dir = await mkdtemp(join(tmpdir(), 'folio-kv-bench-'))
try {
  rows.push(await measureDriver('durable fs', durableFsDriver({ base: dir })))
} finally {
  await rm(dir, { recursive: true, force: true })
}
rows.push(await measurePg('pg, durability off (tests)', false))
rows.push(await measurePg('pg, durable (production)', true))

console.log(`µs per call, ${SIZE / 1024} KB values, ${CALLS} calls a round, median of ${ROUNDS} rounds:`)
console.table(rows)
