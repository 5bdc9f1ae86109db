import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseReadiness, openDatabase } from '../src/store/pg/database.js'
import { checksumOf, DatabaseTooNewError, migrate, MigrationChangedError, migrationStatus } from '../src/store/pg/migrate.js'
import { MIGRATIONS, type Migration } from '../src/store/pg/migrations.js'
import { createPool } from '../src/store/pg/pool.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'

/** The schema's steps, applied on start under an advisory lock (store/pg/migrate.ts). */

const dropping: TestDatabase[] = []
afterAll(async () => {
  await Promise.all(dropping.map((db) => db.drop()))
})
const emptyDatabase = async () => {
  const db = await freshDatabase({ empty: true })
  dropping.push(db)
  return db
}

/** How the log and readiness name every step at once: "1, 2, …". */
const allSteps = MIGRATIONS.map((m) => m.id).join(', ')

const tables = async (db: TestDatabase) =>
  (await db.pool(1).query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.name)

describe('migrate', () => {
  it('5 instances starting at once: exactly one applies each step, none fails', async () => {
    const db = await emptyDatabase()
    const results = await Promise.all(Array.from({ length: 5 }, () => migrate(db.pool(2))))
    expect(results.map((applied) => applied.map((m) => m.id)).sort((x, y) => y.length - x.length)).toEqual([MIGRATIONS.map((m) => m.id), [], [], [], []])
    const status = await migrationStatus(db.pool(1))
    expect(status).toMatchObject({ current: true, pending: [], unknown: [], changed: [] })
    expect(status.applied.map((m) => m.id)).toEqual(MIGRATIONS.map((m) => m.id))
    expect(await tables(db)).toEqual(['folio_kv', 'folio_lock_generations', 'folio_migrations', 'shared_counters', 'shared_records', 'shared_windows'])
  })

  it('a failing step leaves nothing of itself, keeps the steps before it, and releases the lock', async () => {
    const db = await emptyDatabase()
    const steps: Migration[] = [
      { id: 1, name: 'one', sql: 'CREATE TABLE one (id int)' },
      { id: 2, name: 'two', sql: 'CREATE TABLE two (id int); SELECT no_such_function()' },
    ]
    await expect(migrate(db.pool(2), steps)).rejects.toMatchObject({ code: '42883' })
    expect(await tables(db)).toEqual(['folio_migrations', 'one'])
    const fixed = [steps[0]!, { id: 2, name: 'two', sql: 'CREATE TABLE two (id int)' }]
    // Another instance gets the lock at once: the failed one's session let go of it.
    expect((await migrate(db.pool(2), fixed)).map((m) => m.id)).toEqual([2])
    expect((await migrationStatus(db.pool(1), fixed)).current).toBe(true)
  })

  it('refuses a database a newer folio migrated, and one whose applied step was edited', async () => {
    const db = await emptyDatabase()
    const pool = db.pool(2)
    await migrate(pool)
    await pool.query("INSERT INTO folio_migrations (id, name, checksum, applied_at) VALUES (999, 'from the future', 'x', 0)")
    await expect(migrate(pool)).rejects.toBeInstanceOf(DatabaseTooNewError)
    expect(await databaseReadiness(pool)).toEqual({ ready: false, reason: 'the database was migrated by a newer folio (migration 999)' })
    await pool.query('DELETE FROM folio_migrations WHERE id = 999')
    const edited = MIGRATIONS.map((m) => (m.id === 1 ? { ...m, sql: `${m.sql} -- edited` } : m))
    expect(checksumOf(edited[0]!)).not.toBe(checksumOf(MIGRATIONS[0]!))
    await expect(migrate(pool, edited)).rejects.toBeInstanceOf(MigrationChangedError)
    expect((await migrationStatus(pool, edited)).changed).toEqual([1])
  })
})

describe('readiness and openDatabase', () => {
  let db: TestDatabase
  beforeAll(async () => {
    db = await emptyDatabase()
  })

  it('is not ready while a migration is pending; openDatabase applies it, then it is', async () => {
    expect(await databaseReadiness(db.pool(1))).toEqual({ ready: false, reason: `migration ${allSteps} not applied (folio db migrate)` })
    const logged: string[] = []
    const database = await openDatabase({ url: db.url, poolSize: 3, log: (m) => logged.push(m) })
    try {
      expect(logged).toEqual([`database: applied migration ${allSteps}`])
      expect(await database.readiness()).toEqual({ ready: true })
      expect((await database.shared.hit('rl:x', 60_000)).count).toBe(1)
      expect(database.pool.options.max).toBe(3)
    } finally {
      await database.close()
    }
  })

  it('3 instances opening one new database at once: one migrates, all come up ready and share state and messages', async () => {
    const fresh = await emptyDatabase()
    const logged: string[] = []
    const instances = await Promise.all(Array.from({ length: 3 }, () => openDatabase({ url: fresh.url, poolSize: 2, log: (m) => logged.push(m) })))
    try {
      expect(logged).toEqual([`database: applied migration ${allSteps}`])
      expect(await Promise.all(instances.map((i) => i.readiness()))).toEqual([{ ready: true }, { ready: true }, { ready: true }])
      const counts = await Promise.all(instances.map((i) => i.shared.hit('rl:shared', 60_000)))
      expect(counts.map((c) => c.count).sort()).toEqual([1, 2, 3])
      const heard = new Promise<string>((resolve) => instances[2]!.pubSub.subscribe('folio', { message: resolve }))
      await instances[0]!.pubSub.publish('folio', 'f_1')
      expect(await heard).toBe('f_1')
    } finally {
      await Promise.all(instances.map((i) => i.close()))
    }
  })

  it('is not ready when the database cannot be reached, and says why', async () => {
    const pool = createPool('postgres://postgres:postgres@127.0.0.1:1/nowhere', { max: 1 })
    try {
      expect(await databaseReadiness(pool)).toEqual({ ready: false, reason: 'the database cannot be reached (ECONNREFUSED)' })
    } finally {
      await pool.end()
    }
  })
})
