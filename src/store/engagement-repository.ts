import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import { mergeReactions, type Reactions } from '../domain/reactions.js'
import type { FolioRepository } from './folio-repository.js'
import type { KeyedMutex } from './keyed-mutex.js'
import { keys } from './keys.js'
import { readJson, writeJson } from './json-io.js'
import { type Analytics, type Comment, EMPTY_ANALYTICS } from './types.js'

type Kind = 'comments' | 'reactions' | 'analytics'

/**
 * What viewers add to a folio: comments, reactions and analytics, each in its own small key
 * under its own lock, so a reaction never rewrites the folio and a beacon never waits for a
 * version write.
 */
export class EngagementRepository {
  readonly #storage: Storage
  readonly #locks: KeyedMutex
  readonly #folios: FolioRepository
  readonly #cache = new LRUCache<string, object>({ max: 30_000 })
  readonly #listeners = new Set<(id: string, kind: Kind) => void>()

  constructor(storage: Storage, locks: KeyedMutex, folios: FolioRepository) {
    this.#storage = storage
    this.#locks = locks
    this.#folios = folios
    folios.onChange((id, change) => {
      if (change === 'deleted') for (const kind of ['comments', 'reactions', 'analytics'] as const) this.#cache.delete(`${id}#${kind}`)
    })
  }

  onChange(listener: (id: string, kind: Kind) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  async #read<T extends object>(id: string, kind: Kind, empty: T): Promise<T> {
    const cacheKey = `${id}#${kind}`
    const cached = this.#cache.get(cacheKey) as T | undefined
    if (cached) return cached
    const value = (await readJson<T>(this.#storage, keys[kind](id))) ?? empty
    this.#cache.set(cacheKey, value)
    return value
  }

  /** Read-modify-write of one engagement key; undefined when the folio does not exist. */
  async #update<T extends object>(id: string, kind: Kind, empty: T, change: (current: T) => T): Promise<T | undefined> {
    return this.#locks.run(`${id}#${kind}`, async () => {
      if (!(await this.#folios.get(id))) return undefined
      const next = change(await this.#read(id, kind, empty))
      await writeJson(this.#storage, keys[kind](id), next)
      this.#cache.set(`${id}#${kind}`, next)
      for (const listener of this.#listeners) listener(id, kind)
      return next
    })
  }

  comments(id: string): Promise<Comment[]> {
    return this.#read<Comment[]>(id, 'comments', [])
  }

  reactions(id: string): Promise<Reactions> {
    return this.#read<Reactions>(id, 'reactions', {})
  }

  analytics(id: string): Promise<Analytics> {
    return this.#read<Analytics>(id, 'analytics', { ...EMPTY_ANALYTICS })
  }

  /** Replaces one engagement document wholesale (migrations). */
  replace(id: string, kind: Kind, value: object): Promise<object | undefined> {
    return this.#update<object>(id, kind, {}, () => value)
  }

  mergeReactions(id: string, supplied: Record<string, unknown>): Promise<Reactions | undefined> {
    return this.#update<Reactions>(id, 'reactions', {}, (current) => mergeReactions(current, supplied))
  }
}
