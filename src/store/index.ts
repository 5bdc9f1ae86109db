import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { createStorage } from 'unstorage'
import { assembleStore, closeRepositories, type StoreBehaviour, type StoreRepositories } from './assemble-store.js'
import { lockDataDir } from './engine/data-dir-lock.js'
import { type DurableFsDriver, durableFsDriver } from './engine/durable-fs-driver.js'
import { closeFiles, openToOthers } from './engine/file-modes.js'
import { KeyedMutex } from './coordination/keyed-mutex.js'
import { migrate } from './migrations.js'
import { SETTINGS_FOLDER } from './repositories/settings-repository.js'
import type { Readiness } from './readiness.js'
import { FileSharedState } from './coordination/shared-state-file.js'
import { IMPORT_MARKER, UnfinishedCopyError } from './engine/storage-copy.js'

export { BlobMissingError } from './content/blob-store.js'
export { CorruptDocumentError } from './engine/json-io.js'
export { DataDirBusyError } from './engine/data-dir-lock.js'
export { UnfinishedCopyError } from './engine/storage-copy.js'
export { FormatTooNewError, CURRENT_FORMAT } from './migrations.js'
export {
  CommentForbiddenError,
  CommentLimitError,
  CommentNotFoundError,
  DatabaseUnavailableError,
  InsufficientStorageError,
  InvalidFilePathError,
  InvalidReplyError,
  UnknownAssetError,
  VersionConflictError,
  VersionNotFoundError,
} from './store-errors.js'
export type { EngagementKind, NewComment } from './repositories/engagement-repository.js'
export type { CommentLimits } from './content/comment-segments.js'
export type { FilesMode } from './repositories/folio-views.js'
export type { StoredIntegration } from './repositories/integrations-repository.js'
export { type Account, type Member, type Workspace, DEFAULT_PLAN, UnknownWorkspaceError, WorkspaceRepository } from './repositories/workspace-repository.js'
export type { SharedState, Versioned, WindowCount } from './coordination/shared-state.js'
export type { Readiness } from './readiness.js'
export { DEFAULT_PLANS, type Plan, type PlanTable, Plans, PlansInvalidError } from './repositories/plans.js'
export { WorkspaceUsage } from './repositories/workspace-usage.js'
export { assembleStore, closeRepositories, type StoreBehaviour, type StoreFoundation, type StoreRepositories, WORKSPACE_REFRESH_MS } from './assemble-store.js'
export { CHANGES_CHANNEL, ChangeFeed } from './change-feed.js'
export type { Locks } from './coordination/locks.js'
export { type FinishedList, LIST_CACHE_ENTRY_BYTES } from './repositories/workspace-lists.js'

export interface FolioStore extends StoreRepositories {
  dataDir: string
  /** Whether it serves requests now: the flat-file store from open until close begins, while its disk has room for writes (GET /readyz). */
  readiness(): Promise<Readiness>
  /** Waits for every write in progress, then releases the data dir. */
  close(): Promise<void>
  /**
   * Makes the files of the data dir hold every write acknowledged so far, fsync'd, as a clean stop
   * leaves them (the flat-file store holds recent writes in its journal and in memory): before
   * copying the folder while the server runs, and for tests that read the files. PostgreSQL: nothing to do.
   */
  writeBack(): Promise<void>
}

export interface OpenStoreOptions extends StoreBehaviour {
  dataDir: string
  /** What the store did that a person may want to know (migrations, recovered deletions). */
  log?: (message: string) => void
}

/** Opens (creating, migrating and recovering as needed) the flat-file store in `dataDir`. */
export async function openStore(options: OpenStoreOptions): Promise<FolioStore> {
  const dataDir = resolve(options.dataDir)
  const log = options.log ?? ((m: string) => console.warn(m))
  const warn = options.warn ?? log
  // Folio data holds access keys: keep a new data dir private to its user.
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const unlock = await lockDataDir(dataDir)
  let shared: FileSharedState | undefined
  try {
    const driver = durableFsDriver({ base: dataDir }) as DurableFsDriver
    const storage = createStorage({ driver })
    if (await storage.hasItem(IMPORT_MARKER)) throw new UnfinishedCopyError('data dir')
    const fileState = (shared = await FileSharedState.open(storage))
    const store = assembleStore({ ...options, storage, locks: new KeyedMutex(), shared: fileState, dataDir, warn })
    const { folios, engagement } = store
    await migrate({ dataDir, storage, folios, engagement, log })
    // The signing secret and the API key are the owner's alone, whatever copied them here.
    await closeFiles(join(dataDir, SETTINGS_FOLDER))
    if (await openToOthers(dataDir)) {
      warn(`${dataDir} can be read by other users of this machine, and it holds the server's secrets and private folios' access keys: run chmod 700 ${dataDir}`)
    }
    await store.workspaces.load()
    const recovered = await folios.recover()
    if (recovered) log(`Finished ${recovered} deletion(s) interrupted by a previous stop.`)
    let closing = false
    return {
      ...store,
      dataDir,
      async readiness() {
        if (closing) return { ready: false, reason: 'the store is closing (the server is stopping)' }
        const full = driver.diskFullSince()
        // Writes would be refused (507): a load balancer sends them elsewhere until space is freed.
        if (full)
          return {
            ready: false,
            reason: `the disk holding the data dir is full (since ${full.toISOString()}): writes are refused until space is freed there, reads go on`,
          }
        return { ready: true }
      },
      async writeBack() {
        await driver.writeBack()
      },
      async close() {
        closing = true
        await fileState.close()
        await closeRepositories(store)
        await unlock()
      },
    }
  } catch (error) {
    await shared?.close()
    await unlock()
    throw error
  }
}
