import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { createStorage, type Storage } from 'unstorage'
import { BlobStore } from './blob-store.js'
import { lockDataDir } from './data-dir-lock.js'
import { durableFsDriver } from './durable-fs-driver.js'
import { closeFiles, openToOthers } from './file-modes.js'
import { EngagementRepository } from './engagement-repository.js'
import { FolioRepository } from './folio-repository.js'
import { FolioViews } from './folio-views.js'
import { IntegrationsRepository } from './integrations-repository.js'
import { KeyedMutex } from './keyed-mutex.js'
import { migrate } from './migrations.js'
import { SETTINGS_FOLDER, SettingsRepository } from './settings-repository.js'
import type { Readiness } from './readiness.js'
import type { SharedState } from './shared-state.js'
import { FileSharedState } from './shared-state-file.js'
import { Plans } from './plans.js'
import { WorkspaceRepository } from './workspace-repository.js'
import { WorkspaceUsage } from './workspace-usage.js'

export { BlobMissingError } from './blob-store.js'
export { CorruptDocumentError } from './json-io.js'
export { DataDirBusyError } from './data-dir-lock.js'
export { FormatTooNewError, CURRENT_FORMAT } from './migrations.js'
export {
  CommentForbiddenError,
  CommentLimitError,
  CommentNotFoundError,
  InvalidFilePathError,
  InvalidReplyError,
  UnknownAssetError,
  VersionConflictError,
  VersionNotFoundError,
} from './store-errors.js'
export { type EngagementKind, type NewComment } from './engagement-repository.js'
export type { CommentLimits } from './comment-segments.js'
export type { FilesMode } from './folio-views.js'
export type { StoredIntegration } from './integrations-repository.js'
export { type Account, type Member, type Workspace, DEFAULT_PLAN, UnknownWorkspaceError, WorkspaceRepository } from './workspace-repository.js'
export type { SharedState, Versioned, WindowCount } from './shared-state.js'
export type { Readiness } from './readiness.js'
export { DEFAULT_PLANS, type Plan, type PlanTable, Plans } from './plans.js'
export { WorkspaceUsage } from './workspace-usage.js'
export { type FinishedList, LIST_CACHE_ENTRY_BYTES } from './workspace-lists.js'

export interface FolioStore {
  dataDir: string
  storage: Storage
  blobs: BlobStore
  folios: FolioRepository
  engagement: EngagementRepository
  views: FolioViews
  settings: SettingsRepository
  /** What several instances must agree on: sessions, codes, rate windows, counters. */
  shared: SharedState
  /** Each workspace's chat webhooks (Cloud). */
  integrations: IntegrationsRepository
  /** Cloud: workspaces, members, accounts and the workspaces' keys (hashed). */
  workspaces: WorkspaceRepository
  /** Cloud: storage bytes per workspace, each distinct content once. */
  usage: WorkspaceUsage
  /** Cloud: plans.json (load() it in Cloud mode; until then the defaults). */
  plans: Plans
  /** Whether it serves requests now: the flat-file store from open until close begins (GET /readyz). */
  readiness(): Promise<Readiness>
  /** Waits for every write in progress, then releases the data dir. */
  close(): Promise<void>
}

export interface OpenStoreOptions {
  dataDir: string
  /** What the store did that a person may want to know (migrations, recovered deletions). */
  log?: (message: string) => void
  /** Something wrong that the store worked around (damaged files left out of a list). */
  warn?: (message: string) => void
  /** How many pins one re-anchoring run looks at, at most (the folio's comment ceiling). */
  maxReanchored?: number
  /**
   * Cloud mode (spec, Version): versions show images as `asset://<sha256>` pointers into the
   * content-addressed store, and accept them back. The data on disk is the same either way.
   */
  assetPointers?: boolean
  /**
   * Cloud: deleting a folio gives back the storage its contents counted (WorkspaceUsage). OSS
   * counts nothing, so its deletions skip the work.
   */
  storageUsage?: boolean
}

/** Opens (creating, migrating and recovering as needed) the flat-file store in `dataDir`. */
export async function openStore(options: OpenStoreOptions): Promise<FolioStore> {
  const dataDir = resolve(options.dataDir)
  const log = options.log ?? ((m: string) => console.warn(m))
  const warn = options.warn ?? log
  // Folio data holds access keys: keep a new data dir private to its user.
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  const unlock = await lockDataDir(dataDir)
  try {
    const storage = createStorage({ driver: durableFsDriver({ base: dataDir }) })
    const locks = new KeyedMutex()
    const blobs = new BlobStore(storage)
    const usage = new WorkspaceUsage(storage, locks, blobs, warn)
    const purged = options.storageUsage ? (entry: { id: string; workspaceId: string }, contents: string[]) => usage.forgetFolio(entry.workspaceId, entry.id, contents) : undefined
    const folios = new FolioRepository(storage, blobs, locks, { warn, assetPointers: options.assetPointers, purged })
    const engagement = new EngagementRepository(storage, locks, folios, { warn, maxReanchored: options.maxReanchored })
    const views = new FolioViews(folios, engagement)
    const settings = new SettingsRepository(storage)
    await migrate({ dataDir, storage, folios, engagement, log })
    // The signing secret and the API key are the owner's alone, whatever copied them here.
    await closeFiles(join(dataDir, SETTINGS_FOLDER))
    if (await openToOthers(dataDir)) {
      warn(`${dataDir} can be read by other users of this machine, and it holds the server's secrets and private folios' access keys: run chmod 700 ${dataDir}`)
    }
    const workspaces = await new WorkspaceRepository(storage, locks).load()
    const plans = new Plans(storage, dataDir, warn)
    const recovered = await folios.recover()
    if (recovered) log(`Finished ${recovered} deletion(s) interrupted by a previous stop.`)
    const shared = await FileSharedState.open(storage)
    let closing = false
    return {
      dataDir,
      storage,
      blobs,
      folios,
      engagement,
      views,
      settings,
      shared,
      integrations: new IntegrationsRepository(storage),
      workspaces,
      usage,
      plans,
      async readiness() {
        return closing ? { ready: false, reason: 'the store is closing (the server is stopping)' } : { ready: true }
      },
      async close() {
        closing = true
        await shared.close()
        plans.stop()
        await engagement.idle()
        await usage.idle()
        await locks.idle()
        await folios.idle()
        await blobs.idle()
        await storage.dispose()
        await unlock()
      },
    }
  } catch (error) {
    await unlock()
    throw error
  }
}
