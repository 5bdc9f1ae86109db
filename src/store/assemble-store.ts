import type { Storage } from 'unstorage'
import { AiRecords } from './repositories/ai-records.js'
import { BlobStore } from './content/blob-store.js'
import { ChangeFeed } from './change-feed.js'
import { EngagementRepository } from './repositories/engagement-repository.js'
import { FolioRepository } from './repositories/folio-repository.js'
import { FolioViews } from './repositories/folio-views.js'
import { IntegrationsRepository } from './repositories/integrations-repository.js'
import type { Locks } from './coordination/locks.js'
import { Plans } from './repositories/plans.js'
import type { PubSub } from './coordination/pub-sub.js'
import { SettingsRepository } from './repositories/settings-repository.js'
import type { SharedState } from './coordination/shared-state.js'
import { WorkspaceRepository } from './repositories/workspace-repository.js'
import { WorkspaceUsage } from './repositories/workspace-usage.js'

/** How often, at most, a key unknown here makes an instance walk the workspaces again (several instances). */
export const WORKSPACE_REFRESH_MS = 1_000

export interface StoreBehaviour {
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

export interface StoreFoundation extends StoreBehaviour {
  storage: Storage
  /** Per-key serialisation: KeyedMutex for one instance; across instances, one whose onStale fires. */
  locks: Locks
  /** What several instances must agree on: sessions, codes, rate windows, counters. */
  shared: SharedState
  /** Messages between instances: given, the store's changes travel on it (change-feed.ts). */
  pubSub?: PubSub
  /** Where plans.json is (the flat-file store watches it for the operator's edits); names the store in messages. */
  dataDir: string
  /** The storage is a database several instances share (plans.json is read again on a timer, not watched as a file). */
  inDatabase?: boolean
}

/** The repositories of one store, built over one storage and one set of locks. */
export interface StoreRepositories {
  storage: Storage
  locks: Locks
  blobs: BlobStore
  folios: FolioRepository
  engagement: EngagementRepository
  views: FolioViews
  settings: SettingsRepository
  shared: SharedState
  /** Each workspace's chat webhooks (Cloud). */
  integrations: IntegrationsRepository
  /** Cloud: workspaces, members, accounts and the workspaces' keys (hashed); load() it before use. */
  workspaces: WorkspaceRepository
  /** Cloud: storage bytes per workspace, each distinct content once. */
  usage: WorkspaceUsage
  /** Cloud: plans.json (load() it in Cloud mode; until then the defaults). */
  plans: Plans
  /** Each folio's AI conversation and each workspace's AI settings. */
  ai: AiRecords
  /** Several instances: the change feed between them (undefined for one instance). */
  changes?: ChangeFeed
}

/**
 * Builds the repositories over a storage, its locks and shared state: the flat-file store
 * (openStore: durable fs driver, KeyedMutex, FileSharedState, no feed) and the PostgreSQL one
 * (kv driver, PgLocks, PgSharedState, PgPubSub) are the same repositories. Nothing is read yet:
 * the caller migrates, loads the workspaces and recovers deletions.
 */
export function assembleStore(foundation: StoreFoundation): StoreRepositories {
  const { storage, locks, shared, pubSub, dataDir } = foundation
  const warn = foundation.warn ?? ((m: string) => console.warn(m))
  const blobs = new BlobStore(storage, { locks })
  const usage = new WorkspaceUsage(storage, locks, blobs, warn)
  const purged = foundation.storageUsage
    ? (entry: { id: string; workspaceId: string }, contents: string[]) => usage.forgetFolio(entry.workspaceId, entry.id, contents)
    : undefined
  const folios = new FolioRepository(storage, blobs, locks, { warn, assetPointers: foundation.assetPointers, purged })
  const engagement = new EngagementRepository(storage, locks, folios, { warn, maxReanchored: foundation.maxReanchored })
  const views = new FolioViews(folios, engagement)
  const settings = new SettingsRepository(storage, locks)
  const integrations = new IntegrationsRepository(storage, locks)
  // One instance holds every workspace it will ever be asked for; several refresh on a miss.
  const workspaces = new WorkspaceRepository(storage, locks, { refreshEveryMs: pubSub ? WORKSPACE_REFRESH_MS : undefined })
  const plans = new Plans(storage, dataDir, warn, { inDatabase: foundation.inDatabase })
  const ai = new AiRecords(storage, locks)
  const changes = pubSub && new ChangeFeed(pubSub, { folios, engagement, views, workspaces, integrations, settings }, warn)
  return { storage, locks, blobs, folios, engagement, views, settings, shared, integrations, workspaces, usage, plans, ai, changes }
}

/** Waits for every write in progress, then lets go of the storage (the caller closes the shared state, locks and pub/sub it opened). */
export async function closeRepositories(store: StoreRepositories): Promise<void> {
  store.plans.stop()
  await store.engagement.idle()
  await store.usage.idle()
  await store.locks.idle()
  await store.folios.idle()
  await store.blobs.idle()
  store.changes?.close()
  await store.storage.dispose()
}
