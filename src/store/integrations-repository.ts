import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import { readJson, writeJson } from './json-io.js'
import { keys } from './keys.js'

/** A chat webhook of a workspace, as stored (its format already decided). */
export interface StoredIntegration {
  url: string
  format: 'slack' | 'discord' | 'teams'
}

interface IntegrationsDocument {
  integrations: StoredIntegration[]
  updatedAt: string
}

/**
 * Each workspace's chat integrations (workspaces/<ws>/integrations.json, Cloud). Read on every
 * new comment, so kept in memory; the file holds the webhooks' secrets and is written 0600 like
 * everything in the data dir.
 */
export class IntegrationsRepository {
  readonly #storage: Storage
  readonly #cache = new LRUCache<string, StoredIntegration[]>({ max: 10_000 })

  constructor(storage: Storage) {
    this.#storage = storage
  }

  async get(workspaceId: string): Promise<StoredIntegration[]> {
    const cached = this.#cache.get(workspaceId)
    if (cached) return cached
    const document = await readJson<IntegrationsDocument>(this.#storage, keys.workspaceIntegrations(workspaceId))
    const integrations = Array.isArray(document?.integrations) ? document.integrations : []
    this.#cache.set(workspaceId, integrations)
    return integrations
  }

  async set(workspaceId: string, integrations: StoredIntegration[]): Promise<void> {
    const document: IntegrationsDocument = { integrations, updatedAt: new Date().toISOString() }
    await writeJson(this.#storage, keys.workspaceIntegrations(workspaceId), document)
    this.#cache.set(workspaceId, integrations)
  }
}
