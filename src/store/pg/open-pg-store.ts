import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { DATABASE_INSTANCE_FILE, describeDatabase } from '../../domain/database-url.js'
import { lockDataDir } from '../engine/data-dir-lock.js'
import { createStorage } from 'unstorage'
import { assembleStore, closeRepositories } from '../assemble-store.js'
import type { FolioStore, OpenStoreOptions } from '../index.js'
import { readJson, writeJson } from '../engine/json-io.js'
import { keys } from '../keys.js'
import { CURRENT_FORMAT, FormatTooNewError } from '../migrations.js'
import { IMPORT_MARKER, UnfinishedCopyError } from '../engine/storage-copy.js'
import { type Database, openDatabase } from './database.js'
import { pgKvDriver } from './kv-driver.js'
import { PgLocks } from './pg-locks.js'

export interface OpenPgStoreOptions extends Omit<OpenStoreOptions, 'dataDir'> {
  /** postgres://user:password@host:5432/database */
  url: string
  /** Connections this instance's pool may hold (the listener and the lock session take one more each). */
  poolSize?: number
  /** This instance's own folder: its admin token, never the store's data. */
  localDir: string
}

/** The database could not be opened (not reachable, refused the role, or not migratable): what to check, never the password. */
export class DatabaseUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    const code = (cause as { code?: unknown }).code
    const detail = cause instanceof Error ? cause.message : String(cause)
    super(
      `Cannot use the database ${describeDatabase(url)}: ${typeof code === 'string' && !detail.includes(code) ? `${code}, ` : ''}${detail}. Check that PostgreSQL runs there and that --database (or FOLIO_DATABASE_URL) names it, with a role that may create tables in it.`,
      { cause },
    )
  }
}

/** A database holding data in a format from before this folio: folio db import upgrades data dirs as it reads them. */
export class FormatTooOldError extends Error {
  constructor(readonly found: number) {
    super(
      `This database holds data in format ${found}, older than this folio's ${CURRENT_FORMAT}: export it with the folio that wrote it (folio db export), then import that data dir with this one.`,
    )
  }
}

/**
 * The store on PostgreSQL: the same repositories as the flat-file store (assemble-store.ts), over
 * the kv driver, with PgLocks for per-key work across instances, PgSharedState, and the change
 * feed on PgPubSub. Any number of instances open the same database; each one's caches are
 * dropped by onStale under a lock and by the feed otherwise (ARCHITECTURE.md, PostgreSQL).
 */
export async function openPgStore(options: OpenPgStoreOptions): Promise<FolioStore> {
  const log = options.log ?? ((m: string) => console.warn(m))
  const warn = options.warn ?? log
  // The instance's own folder, held like a data dir (one instance per folder: its admin token),
  // and marked with the database it serves, so folio admin asks this instance rather than
  // opening a flat store there.
  const localDir = resolve(options.localDir)
  await mkdir(localDir, { recursive: true, mode: 0o700 })
  const unlock = await lockDataDir(localDir)
  let database: Database | undefined
  let locks: PgLocks | undefined
  try {
    await writeFile(join(localDir, DATABASE_INSTANCE_FILE), `PostgreSQL ${describeDatabase(options.url)}\n`, { mode: 0o600 })
    database = await openDatabase({ url: options.url, poolSize: options.poolSize, warn, log }).catch((error: unknown) => {
      throw new DatabaseUnreachableError(options.url, error)
    })
    const storage = createStorage({ driver: pgKvDriver({ pool: database.pool }) })
    if (await storage.hasItem(IMPORT_MARKER)) throw new UnfinishedCopyError('database')
    locks = await PgLocks.start(options.url, { warn })
    const store = assembleStore({ ...options, storage, locks, shared: database.shared, pubSub: database.pubSub, dataDir: localDir, inDatabase: true, warn })
    await stampFormat(store.storage, locks)
    await store.workspaces.load()
    // Another instance may be finishing the same deletion: each step holds the folio's lock.
    const recovered = await store.folios.recover()
    if (recovered) log(`Finished ${recovered} deletion(s) interrupted by a previous stop.`)
    let closing = false
    const [heldLocks, openDb] = [locks, database]
    return {
      ...store,
      dataDir: localDir,
      async writeBack() {},
      async readiness() {
        return closing ? { ready: false, reason: 'the store is closing (the server is stopping)' } : openDb.readiness()
      },
      async close() {
        closing = true
        await closeRepositories(store)
        await heldLocks.close()
        await openDb.close()
        await unlock()
      },
    }
  } catch (error) {
    await locks?.close().catch(() => {})
    await database?.close().catch(() => {})
    await unlock()
    throw error
  }
}

/**
 * A new database gets this folio's format stamp; one already stamped must be in it. Data of an
 * older format came in through folio db import, which upgrades a data dir as it opens it, so an
 * older stamp here means a database written by an older folio: refused, not converted in place
 * under instances that may still be running it.
 */
async function stampFormat(storage: ReturnType<typeof createStorage>, locks: PgLocks): Promise<void> {
  await locks.run(keys.format, async () => {
    const stamp = await readJson<{ format: number }>(storage, keys.format)
    if (!stamp) return writeJson(storage, keys.format, { format: CURRENT_FORMAT, updatedAt: new Date().toISOString() })
    if (stamp.format > CURRENT_FORMAT) throw new FormatTooNewError(stamp.format)
    if (stamp.format < CURRENT_FORMAT) throw new FormatTooOldError(stamp.format)
  })
}
