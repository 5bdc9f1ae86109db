import { mkdir, stat } from 'node:fs/promises'
import { describeDatabase } from '../../domain/database-url.js'
import { join, resolve } from 'node:path'
import { createStorage } from 'unstorage'
import { openStore } from '../../store/index.js'
import { lockDataDir } from '../../store/engine/data-dir-lock.js'
import { durableFsDriver, journalHoldsWrites } from '../../store/engine/durable-fs-driver.js'
import { pgKvDriver } from '../../store/pg/kv-driver.js'
import { createPool, errorCode, isTransient } from '../../store/pg/pool.js'
import { keys } from '../../store/keys.js'
import { copyStorage, type CopyProgress, CopyRefusedError, type CopyResult } from '../../store/engine/storage-copy.js'
import { migrate, migrationStatus, type MigrationStatus } from '../../store/pg/migrate.js'

export type { MigrationStatus, CopyProgress }
export { describeDatabase }

/*
 * folio db migrate|status: the schema of a PostgreSQL database, without starting a server. The
 * URL's password never reaches a message: they name host, port and database only.
 */

/** A failure to reach or use the database, as a sentence a person can act on. */
export class DatabaseUnavailableError extends Error {}

async function withPool<T>(url: string, fn: (pool: ReturnType<typeof createPool>) => Promise<T>, max = 1): Promise<T> {
  if (!URL.canParse(url)) throw new DatabaseUnavailableError('the database URL is not a URL: use postgres://user:password@host:5432/database')
  const pool = createPool(url, { max })
  try {
    return await fn(pool)
  } catch (error) {
    // A driver or server error (a socket code, a SQLSTATE) is about reaching or using the
    // database; anything else (DatabaseTooNewError, MigrationChangedError) says enough itself.
    const code = (error as { code?: unknown }).code
    // A file system error (import and export read and write a data dir) names its path: not the database's.
    if ((typeof code !== 'string' && !isTransient(error)) || typeof (error as { path?: unknown }).path === 'string') throw error
    const detail = error instanceof Error && error.message !== code ? ` (${error.message})` : ''
    throw new DatabaseUnavailableError(`${describeDatabase(url)}: ${errorCode(error)}${detail}`)
  } finally {
    await pool.end().catch(() => {})
  }
}

/** Applies what is pending (under the migration lock); returns what this call applied and the status after. */
export function migrateDatabase(url: string): Promise<{ applied: Array<{ id: number; name: string }>; status: MigrationStatus }> {
  return withPool(url, async (pool) => {
    const applied = await migrate(pool)
    return { applied: applied.map(({ id, name }) => ({ id, name })), status: await migrationStatus(pool) }
  })
}

export function databaseStatus(url: string): Promise<MigrationStatus> {
  return withPool(url, (pool) => migrationStatus(pool))
}

/** Import and export read and write this many keys at once, each on its own connection. */
const COPY_CONNECTIONS = 8

export interface CopyReport extends CopyResult {
  from: string
  to: string
}

/**
 * folio db import <dir>: every key of an OSS (or Cloud) data dir into the database. The data dir
 * is opened as a server would open it (its lock held, so no server writes to it meanwhile; an
 * older format upgraded; a crash's journal replayed), then copied key by key (storage-copy.ts).
 */
export function importDataDir(url: string, dataDir: string, onProgress?: (p: CopyProgress) => void): Promise<CopyReport> {
  return withPool(
    url,
    async (pool) => {
      // openStore makes a new store where there is none: a mistyped folder would import an empty one.
      const isDataDir = await Promise.all([
        ...[keys.format, keys.legacyDatabase].map((file) =>
          stat(join(dataDir, file)).then(
            () => true,
            () => false,
          ),
        ),
        journalHoldsWrites(dataDir),
      ])
      if (!isDataDir.includes(true))
        throw new CopyRefusedError(
          `${resolve(dataDir)} is not a folio data dir (it has no ${keys.format}): name the folder folio serve --data uses (default ./.folio).`,
        )
      await migrate(pool)
      const source = await openStore({ dataDir, log: () => {} })
      const target = createStorage({ driver: pgKvDriver({ pool }) })
      try {
        const result = await copyStorage(source.storage, target, { source: `data dir ${resolve(dataDir)}`, onProgress })
        return { ...result, from: resolve(dataDir), to: describeDatabase(url) }
      } finally {
        await target.dispose()
        await source.close()
      }
    },
    COPY_CONNECTIONS,
  )
}

/** folio db export <dir>: the database's store written out as a data dir a flat-file server opens. */
export function exportToDataDir(url: string, dataDir: string, onProgress?: (p: CopyProgress) => void): Promise<CopyReport> {
  return withPool(
    url,
    async (pool) => {
      await migrate(pool)
      const target = resolve(dataDir)
      await mkdir(target, { recursive: true, mode: 0o700 })
      const unlock = await lockDataDir(target)
      const storage = createStorage({ driver: durableFsDriver({ base: target }) })
      const source = createStorage({ driver: pgKvDriver({ pool }) })
      try {
        const result = await copyStorage(source, storage, { source: `database ${describeDatabase(url)}`, onProgress })
        return { ...result, from: describeDatabase(url), to: target }
      } finally {
        await source.dispose()
        await storage.dispose()
        await unlock()
      }
    },
    COPY_CONNECTIONS,
  )
}
