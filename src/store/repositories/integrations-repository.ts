import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import type { Principal } from '../../domain/principal.js'
import { readJson, writeJson } from '../engine/json-io.js'
import { keys } from '../keys.js'
import { KeyedMutex } from '../coordination/keyed-mutex.js'
import { integrationsLock, lockedThing } from '../coordination/lock-keys.js'
import type { Locks } from '../coordination/locks.js'

/** A chat webhook of a workspace, as stored (its format already decided). */
export interface StoredIntegration {
  url: string
  format: 'slack' | 'discord' | 'teams'
  /** Who configured it (absent in what was saved before this was recorded): the credential's kind and who held it. */
  configuredBy?: { credential: Principal['via']; name: string; email?: string }
  /** When (ISO 8601). */
  configuredAt?: string
}

interface IntegrationsDocument {
  integrations: StoredIntegration[]
  updatedAt: string
}

/**
 * Each workspace's chat integrations (workspaces/<ws>/integrations.json, Cloud). Read on every
 * new comment, so kept in memory (another instance's write drops it: onStale, change-feed.ts);
 * the file holds the webhooks' secrets and is written 0600 like everything in the data dir.
 */
export class IntegrationsRepository {
  readonly #storage: Storage
  readonly #locks: Locks
  readonly #cache = new LRUCache<string, StoredIntegration[]>({ max: 10_000 })
  readonly #listeners = new Set<(workspaceId: string) => void>()
  /** Bumped by every write and drop: a read that spans one does not keep what it read. */
  #changed = 0

  constructor(storage: Storage, locks: Locks = new KeyedMutex()) {
    this.#storage = storage
    this.#locks = locks
    locks.onStale((key) => {
      const thing = lockedThing(key)
      if (thing.kind === 'integrations') this.forget(thing.id)
    })
  }

  /** Called after a workspace's integrations are written here (change-feed.ts tells the other instances). */
  onChange(listener: (workspaceId: string) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Drops what is kept of a workspace's integrations (another instance wrote them); of all, without an id. */
  forget(workspaceId?: string): void {
    this.#changed++
    if (workspaceId === undefined) this.#cache.clear()
    else this.#cache.delete(workspaceId)
  }

  async get(workspaceId: string): Promise<StoredIntegration[]> {
    const cached = this.#cache.get(workspaceId)
    if (cached) return cached
    const changed = this.#changed
    const document = await readJson<IntegrationsDocument>(this.#storage, keys.workspaceIntegrations(workspaceId))
    const integrations = Array.isArray(document?.integrations) ? document.integrations : []
    // Unless it was written or dropped meanwhile: what was read may be older.
    if (!this.#cache.has(workspaceId) && changed === this.#changed) this.#cache.set(workspaceId, integrations)
    return integrations
  }

  async set(workspaceId: string, integrations: StoredIntegration[]): Promise<void> {
    const document: IntegrationsDocument = { integrations, updatedAt: new Date().toISOString() }
    await this.#locks.run(integrationsLock(workspaceId), async () => {
      await writeJson(this.#storage, keys.workspaceIntegrations(workspaceId), document)
      this.#changed++
      this.#cache.set(workspaceId, integrations)
    })
    for (const listener of this.#listeners) listener(workspaceId)
  }
}
