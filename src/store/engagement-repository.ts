import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import { applyBeacon, type Beacon } from '../domain/analytics.js'
import { nextCommentId } from '../domain/comments.js'
import { mergeReactions, type Reactions, sanitizeReactions } from '../domain/reactions.js'
import type { FolioRepository } from './folio-repository.js'
import type { KeyedMutex } from './keyed-mutex.js'
import { keys } from './keys.js'
import { readJson, writeJson } from './json-io.js'
import { type Analytics, type Comment, EMPTY_ANALYTICS } from '../domain/model.js'

export type EngagementKind = 'comments' | 'reactions' | 'analytics'

export class CommentNotFoundError extends Error {
  constructor(readonly commentId: string) {
    super(`No comment ${commentId} on this folio`)
  }
}

export type NewComment = Omit<Comment, 'id' | 'createdAt' | 'resolved'>

interface Op<T> {
  change: (doc: T) => T
  resolve: (doc: T | undefined) => void
  reject: (error: unknown) => void
}

interface Queue {
  id: string
  kind: EngagementKind
  ops: Op<any>[]
  draining: boolean
}

const EMPTY: Record<EngagementKind, () => object> = {
  comments: () => [],
  reactions: () => ({}),
  analytics: () => ({ ...EMPTY_ANALYTICS }),
}

/**
 * What viewers add to a folio: comments, reactions and analytics, each in its own small key.
 *
 * Writes use group commit, as databases do: updates to one key queue up while the previous
 * flush is on disk, then one atomic, fsync'd write applies them all, and every request is
 * answered once the flush holding its update is durable. A burst of 1,000 beacons costs a few
 * writes, not 1,000, and none is lost. Each key has its own lock, so a beacon never waits for
 * a version write.
 */
export class EngagementRepository {
  readonly #storage: Storage
  readonly #locks: KeyedMutex
  readonly #folios: FolioRepository
  readonly #cache = new LRUCache<string, object>({ max: 30_000 })
  readonly #queues = new Map<string, Queue>()
  readonly #listeners = new Set<(id: string, kind: EngagementKind) => void>()
  readonly #draining = new Set<Promise<void>>()

  constructor(storage: Storage, locks: KeyedMutex, folios: FolioRepository) {
    this.#storage = storage
    this.#locks = locks
    this.#folios = folios
    folios.onChange((id, change) => {
      if (change === 'deleted') for (const kind of ['comments', 'reactions', 'analytics'] as const) this.#cache.delete(`${id}#${kind}`)
    })
  }

  onChange(listener: (id: string, kind: EngagementKind) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  async #read<T extends object>(id: string, kind: EngagementKind): Promise<T> {
    const cacheKey = `${id}#${kind}`
    const cached = this.#cache.get(cacheKey) as T | undefined
    if (cached) return cached
    const value = (await readJson<T>(this.#storage, keys[kind](id))) ?? (EMPTY[kind]() as T)
    this.#cache.set(cacheKey, value)
    return value
  }

  /**
   * Queues a change of one engagement key; resolves with the document as it stood right after
   * this change, once that is durable; undefined when the folio does not exist. `change` must
   * not mutate its argument.
   */
  #update<T extends object>(id: string, kind: EngagementKind, change: (doc: T) => T): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve, reject) => {
      const key = `${id}#${kind}`
      let queue = this.#queues.get(key)
      if (!queue) this.#queues.set(key, (queue = { id, kind, ops: [], draining: false }))
      queue.ops.push({ change, resolve, reject } as Op<T>)
      if (!queue.draining) {
        queue.draining = true
        const task = this.#drain(key, queue)
        this.#draining.add(task)
        void task.finally(() => this.#draining.delete(task))
      }
    })
  }

  async #drain(key: string, queue: Queue): Promise<void> {
    // Let every request that arrived in this turn of the event loop join the first flush.
    await new Promise((r) => setImmediate(r))
    while (queue.ops.length) {
      const batch = queue.ops.splice(0)
      try {
        await this.#locks.run(key, async () => {
          if (!(await this.#folios.get(queue.id))) {
            for (const op of batch) op.resolve(undefined)
            return
          }
          let doc = await this.#read<object>(queue.id, queue.kind)
          const outcomes: Array<() => void> = []
          for (const op of batch) {
            try {
              doc = op.change(doc)
              const after = doc
              outcomes.push(() => op.resolve(after))
            } catch (error) {
              outcomes.push(() => op.reject(error))
            }
          }
          await writeJson(this.#storage, keys[queue.kind](queue.id), doc)
          this.#cache.set(key, doc)
          for (const settle of outcomes) settle()
          for (const listener of this.#listeners) listener(queue.id, queue.kind)
        })
      } catch (error) {
        for (const op of batch) op.reject(error)
      }
    }
    queue.draining = false
    if (this.#queues.get(key) === queue) this.#queues.delete(key)
  }

  /** Resolves once every queued engagement write is on disk (shutdown). */
  async idle(): Promise<void> {
    while (this.#draining.size) await Promise.allSettled([...this.#draining])
  }

  comments(id: string): Promise<Comment[]> {
    return this.#read<Comment[]>(id, 'comments')
  }

  reactions(id: string): Promise<Reactions> {
    return this.#read<Reactions>(id, 'reactions')
  }

  analytics(id: string): Promise<Analytics> {
    return this.#read<Analytics>(id, 'analytics')
  }

  /** Replaces one engagement document wholesale (migrations). */
  replace(id: string, kind: EngagementKind, value: object): Promise<object | undefined> {
    return this.#update<object>(id, kind, () => value)
  }

  async addComment(id: string, input: NewComment): Promise<Comment | undefined> {
    let created: Comment | undefined
    const saved = await this.#update<Comment[]>(id, 'comments', (comments) => {
      created = { ...input, id: nextCommentId(comments), createdAt: new Date().toISOString(), resolved: false }
      return [...comments, created]
    })
    return saved && created
  }

  /** Throws CommentNotFoundError for an unknown comment id; undefined when the folio is gone. */
  async setCommentResolved(id: string, commentId: string, resolved: boolean): Promise<Comment | undefined> {
    let updated: Comment | undefined
    const saved = await this.#update<Comment[]>(id, 'comments', (comments) => {
      const index = comments.findIndex((c) => c.id === commentId)
      if (index === -1) throw new CommentNotFoundError(commentId)
      updated = { ...comments[index]!, resolved }
      return comments.with(index, updated)
    })
    return saved && updated
  }

  async deleteComment(id: string, commentId: string): Promise<boolean | undefined> {
    const saved = await this.#update<Comment[]>(id, 'comments', (comments) => {
      if (!comments.some((c) => c.id === commentId)) throw new CommentNotFoundError(commentId)
      return comments.filter((c) => c.id !== commentId)
    })
    return saved && true
  }

  /** Spec rules: supplied counts set those emoji, others stay. */
  mergeReactions(id: string, supplied: Record<string, unknown>): Promise<Reactions | undefined> {
    return this.#update<Reactions>(id, 'reactions', (current) => mergeReactions(current, supplied))
  }

  /** Adds to counts atomically: two viewers clicking 👍 at once make +2, not +1. */
  incrementReactions(id: string, increments: Record<string, unknown>): Promise<Reactions | undefined> {
    return this.#update<Reactions>(id, 'reactions', (current) => {
      const next: Reactions = { ...current }
      for (const [emoji, by] of Object.entries(sanitizeReactions(increments))) {
        next[emoji as keyof Reactions] = Math.min((current[emoji as keyof Reactions] ?? 0) + by, Number.MAX_SAFE_INTEGER)
      }
      return next
    })
  }

  async recordBeacon(id: string, beacon: Beacon): Promise<boolean> {
    return (await this.#update<Analytics>(id, 'analytics', (current) => applyBeacon(current, beacon))) !== undefined
  }
}
