import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import { type AnalyticsDoc, applyBeacon, applyBotView, type Beacon } from '../../domain/analytics.js'
import { addLink, linkStatus, MAX_LINKS, type NewLink, revokeLink } from '../../domain/recipient-links.js'
import { isOnPage, isOpen, isReply, newestThreads, pinnedVersion } from '../../domain/comment-threads.js'
import {
  type CommentActor,
  type CommentRequest,
  isDeleted,
  moderate,
  ownerComment,
  pageComment,
  publicComment,
  type StoredComment,
} from '../../domain/comments.js'
import { applyReactionRequest, type ReactionRequest, type Reactions } from '../../domain/reactions.js'
import { type AnchorMove, CommentAnchors } from './comment-anchors.js'
import { type CommentBatch, type CommentLimits, CommentSegments } from '../content/comment-segments.js'
import type { FolioRepository } from './folio-repository.js'
import { GroupCommit, type Pending } from '../coordination/group-commit.js'
import type { Locks } from '../coordination/locks.js'
import { keys } from '../keys.js'
import { engagementLock, lockedThing } from '../coordination/lock-keys.js'
import { readJson, writeJson } from '../engine/json-io.js'
import { CommentForbiddenError, CommentNotFoundError, InvalidReplyError } from '../store-errors.js'
import { type Comment, type CommentModeration, EMPTY_ANALYTICS } from '../../domain/model.js'

export type EngagementKind = 'comments' | 'reactions' | 'analytics'
type DocumentKind = 'reactions' | 'analytics'

/** What a new comment brings; the store gives it its id, date and state. */
export type NewComment = Omit<Comment, 'id' | 'createdAt' | 'resolved' | 'deletedAt' | 'deletedBy'> & { authorTokenHash?: string }

interface DocumentJob<T> extends Pending {
  change: (doc: T) => T
  resolve: (doc: T | undefined) => void
}

interface CommentJob<R> extends Pending {
  apply: (batch: CommentBatch) => Promise<R>
  resolve: (result: R | undefined) => void
}

const EMPTY: Record<DocumentKind, () => object> = {
  reactions: () => ({}),
  analytics: () => ({ ...EMPTY_ANALYTICS }),
}

/**
 * What viewers add to a folio: comments (in segments, comment-segments.ts), reactions and
 * analytics (one small key each). Every write goes through group commit (group-commit.ts): a
 * burst of requests costs a few durable writes. Each folio and kind has its own lock, so a
 * beacon never waits for a version write.
 */
export class EngagementRepository {
  readonly #storage: Storage
  readonly #folios: FolioRepository
  readonly #commit: GroupCommit
  readonly #comments: CommentSegments
  /** Reactions and analytics documents: a few hundred bytes each, weighed as they are. */
  readonly #documents = new LRUCache<string, object>({ maxSize: 8 * 1024 * 1024, sizeCalculation: (doc) => 64 + JSON.stringify(doc).length })
  /** Bumped by every write and drop of a document: a read that spans one does not cache what it read. */
  #documentsChanged = 0
  readonly #listeners = new Set<(id: string, kind: EngagementKind) => void>()
  readonly #anchors: CommentAnchors

  constructor(storage: Storage, locks: Locks, folios: FolioRepository, options: { warn?: (message: string) => void; maxReanchored?: number } = {}) {
    this.#storage = storage
    this.#folios = folios
    this.#commit = new GroupCommit(locks)
    this.#comments = new CommentSegments(storage)
    this.#anchors = new CommentAnchors({
      folios,
      comments: (id) => this.#comments.all(id),
      apply: (id, moves) => this.#applyMoves(id, moves),
      warn: options.warn ?? ((m) => console.warn(m)),
      maxComments: options.maxReanchored ?? 1000,
    })
    folios.onNewVersion((id) => this.#anchors.schedule(id))
    folios.onChange((id, change) => {
      if (change !== 'deleted') return
      for (const kind of ['reactions', 'analytics'] as const) this.forget(id, kind)
      this.forget(id, 'comments')
    })
    // Another instance wrote this folio's comments, reactions or analytics since this one held the lock.
    locks.onStale((key) => {
      const thing = lockedThing(key)
      if (thing.kind === 'engagement') this.forget(thing.id, thing.part)
    })
  }

  /** Drops what is cached of a folio's comments, reactions or analytics; of everything, without an id. */
  forget(id?: string, kind?: EngagementKind): void {
    if (id === undefined) {
      this.#documents.clear()
      this.#comments.forget()
    } else if (kind === 'comments') this.#comments.forget(id)
    else if (kind) this.#documents.delete(engagementLock(id, kind))
    this.#documentsChanged++
  }

  /** Another instance changed them (change-feed.ts): caches drop, listeners hear it as a local change. */
  heard(id: string, kind: EngagementKind): void {
    this.forget(id, kind)
    this.#notify(id, kind)
  }

  onChange(listener: (id: string, kind: EngagementKind) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #notify(id: string, kind: EngagementKind): void {
    for (const listener of this.#listeners) listener(id, kind)
  }

  /** Resolves once re-anchoring is done and every queued engagement write is on disk (shutdown). */
  async idle(): Promise<void> {
    await this.#anchors.idle()
    await this.#commit.idle()
  }

  /** Brings the folio's pins to its latest version (after a comment made on an older one). */
  reanchor(id: string): void {
    this.#anchors.schedule(id)
  }

  /**
   * Writes what re-anchoring found, in one batch; a pin changed since it was read (resolved,
   * deleted, moved by a newer run) is left as it is. Open share pages hear about it either way.
   */
  async #applyMoves(id: string, moves: AnchorMove[]): Promise<void> {
    if (moves.length === 0) return this.#notify(id, 'comments')
    await this.#changeComments(id, async (batch) => {
      for (const move of moves) {
        const current = await batch.get(move.commentId)
        const still =
          current && isOpen(current) && current.outdated !== true && pinnedVersion(current) === move.from && current.anchor?.selector === move.selector
        if (still) await batch.update(move.commentId, (c) => ({ ...c, ...move.next }))
      }
    })
  }

  /* ---------- comments ---------- */

  /** The owner's view: every comment, oldest first, soft-deleted ones marked with deletedAt. */
  async comments(id: string): Promise<Comment[]> {
    return (await this.#comments.all(id)).map(ownerComment)
  }

  /**
   * A viewer's list: the newest `limit` comments that are not deleted (threads made on one
   * version, if given), oldest first. A deleted comment's replies go with it.
   */
  async publicComments(id: string, options: { limit: number; versionId?: string }): Promise<Comment[]> {
    const top = (c: StoredComment) => !isDeleted(c) && (options.versionId === undefined || c.versionId === options.versionId)
    return (await this.#threads(id, { limit: options.limit, top, reply: (c) => !isDeleted(c) })).map(publicComment)
  }

  /** What the share page shows: the newest `limit` comments on the page of the latest version, with their open replies. */
  async openComments(id: string, latestVersionId: string, limit: number): Promise<Comment[]> {
    return (await this.#threads(id, { limit, top: isOnPage(latestVersionId), reply: isOpen })).map(pageComment)
  }

  async #threads(id: string, options: Parameters<typeof newestThreads<StoredComment>>[0]): Promise<StoredComment[]> {
    const threads = newestThreads<StoredComment>(options)
    await this.#comments.scanNewest(id, (c) => threads.visit(c))
    return threads.result()
  }

  /** How many comments the folio holds (soft-deleted included) and their bytes on disk. */
  commentSize(id: string): Promise<{ comments: number; bytes: number }> {
    return this.#comments.size(id)
  }

  /**
   * Throws CommentLimitError when the folio is full, InvalidReplyError when parentId names no
   * comment that can be answered; undefined when the folio is gone. An anchored comment starts
   * anchored on the version it was made on.
   */
  async addComment(id: string, input: NewComment, limits: CommentLimits, now?: number): Promise<Comment | undefined> {
    const stored = await this.#changeComments(id, async (batch) => {
      if (input.parentId !== undefined) {
        // Checked in the batch: a delete of the parent flushed before this cannot slip between.
        const parent = await batch.get(input.parentId)
        if (!parent || isDeleted(parent)) throw new InvalidReplyError(`parentId: ${input.parentId} is not a comment of this folio.`)
        if (isReply(parent)) throw new InvalidReplyError(`parentId: ${input.parentId} is a reply itself: answer the comment it answers (${parent.parentId}).`)
      }
      const anchored = input.anchor ? { anchoredVersionId: input.versionId } : {}
      return batch.add((commentId) => ({ ...input, ...anchored, id: commentId, createdAt: new Date().toISOString(), resolved: false }), limits, now)
    })
    return stored && ownerComment(stored)
  }

  /**
   * Resolves, deletes or restores a comment by the folio's rules (domain/comments.ts moderate).
   * Throws CommentNotFoundError (also for a comment this caller may not see) or
   * CommentForbiddenError; undefined when the folio is gone. `removed` when it is gone for good.
   */
  async moderateComment(
    id: string,
    commentId: string,
    request: CommentRequest,
    actor: CommentActor,
    moderation: CommentModeration,
  ): Promise<{ comment: Comment } | { removed: true } | undefined> {
    const after = await this.#changeComments(id, async (batch) => {
      const before = await batch.get(commentId)
      const changed = await batch.update(commentId, (comment) => {
        const outcome = moderate(comment, request, actor, moderation)
        if ('refused' in outcome) {
          if (outcome.refused === 'hidden') throw new CommentNotFoundError(commentId)
          throw new CommentForbiddenError(outcome.reason)
        }
        return outcome.comment
      })
      if (before && !isReply(before)) await this.#followThread(batch, commentId, request, changed)
      return { changed }
    })
    if (!after) return undefined
    return after.changed ? { comment: actor.owner ? ownerComment(after.changed) : publicComment(after.changed) } : { removed: true }
  }

  /**
   * A thread moves as one, in the same batch (one write): resolving or reopening its parent does
   * the same to its replies; removing the parent for good removes them. A soft delete needs no
   * write here: views leave out the replies of a deleted parent, and a restore brings them back.
   */
  async #followThread(batch: CommentBatch, parentId: string, request: CommentRequest, parent: StoredComment | undefined): Promise<void> {
    const removed = parent === undefined
    const resolved = request.kind === 'change' ? request.resolved : undefined
    if (!removed && resolved === undefined) return
    for (const reply of await batch.after(parentId, (c) => c.parentId === parentId)) {
      if (removed) await batch.update(reply.id, () => undefined)
      else if (reply.resolved !== resolved && !isDeleted(reply)) await batch.update(reply.id, (c) => ({ ...c, resolved: resolved! }))
    }
  }

  /** Writes a folio's comments into segments (migrations: the folio has none yet). */
  importComments(id: string, comments: StoredComment[]): Promise<void> {
    return this.#comments.import(id, comments)
  }

  /**
   * Queues a change of a folio's comments; resolves with what `apply` returned once the flush
   * holding it is durable; undefined when the folio does not exist.
   */
  #changeComments<R>(id: string, apply: (batch: CommentBatch) => Promise<R>): Promise<R | undefined> {
    return new Promise<R | undefined>((resolve, reject) => {
      this.#commit.add<CommentJob<R>>(engagementLock(id, 'comments'), { apply, resolve, reject }, (batch) => this.#flushComments(id, batch))
    })
  }

  async #flushComments<R>(id: string, jobs: CommentJob<R>[]): Promise<void> {
    if (!(await this.#folios.get(id))) {
      for (const job of jobs) job.resolve(undefined)
      return
    }
    const batch = await this.#comments.begin(id)
    const outcomes: Array<() => void> = []
    for (const job of jobs) {
      try {
        const result = await job.apply(batch)
        outcomes.push(() => job.resolve(result))
      } catch (error) {
        outcomes.push(() => job.reject(error))
      }
    }
    await batch.commit()
    for (const settle of outcomes) settle()
    this.#notify(id, 'comments')
  }

  /* ---------- reactions and analytics ---------- */

  async #read<T extends object>(id: string, kind: DocumentKind): Promise<T> {
    const cacheKey = engagementLock(id, kind)
    const cached = this.#documents.get(cacheKey) as T | undefined
    if (cached) return cached
    const changed = this.#documentsChanged
    const value = (await readJson<T>(this.#storage, keys[kind](id))) ?? (EMPTY[kind]() as T)
    if (changed === this.#documentsChanged) this.#documents.set(cacheKey, value)
    return value
  }

  /**
   * Queues a change of a reactions or analytics document; resolves with the document as it stood
   * right after this change, once that is durable; undefined when the folio does not exist.
   * `change` must not mutate its argument.
   */
  #update<T extends object>(id: string, kind: DocumentKind, change: (doc: T) => T): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve, reject) => {
      this.#commit.add<DocumentJob<T>>(engagementLock(id, kind), { change, resolve, reject }, (batch) => this.#flushDocument(id, kind, batch))
    })
  }

  async #flushDocument<T extends object>(id: string, kind: DocumentKind, jobs: DocumentJob<T>[]): Promise<void> {
    if (!(await this.#folios.get(id))) {
      for (const job of jobs) job.resolve(undefined)
      return
    }
    let doc: T = await this.#read<T>(id, kind)
    const outcomes: Array<() => void> = []
    for (const job of jobs) {
      try {
        doc = job.change(doc)
        const after = doc
        outcomes.push(() => job.resolve(after))
      } catch (error) {
        outcomes.push(() => job.reject(error))
      }
    }
    await writeJson(this.#storage, keys[kind](id), doc)
    this.#documents.set(engagementLock(id, kind), doc)
    this.#documentsChanged++
    for (const settle of outcomes) settle()
    this.#notify(id, kind)
  }

  reactions(id: string): Promise<Reactions> {
    return this.#read<Reactions>(id, 'reactions')
  }

  analytics(id: string): Promise<AnalyticsDoc> {
    return this.#read<AnalyticsDoc>(id, 'analytics')
  }

  /** Replaces a reactions or analytics document wholesale (migrations). */
  replace(id: string, kind: DocumentKind, value: object): Promise<object | undefined> {
    return this.#update<object>(id, kind, () => value)
  }

  /** Sets and adds counts in one step, by the rules for owners and viewers (domain/reactions.ts). */
  react(id: string, request: ReactionRequest): Promise<Reactions | undefined> {
    return this.#update<Reactions>(id, 'reactions', (current) => applyReactionRequest(current, request))
  }

  /**
   * Counts a beacon. Through a recipient link it counts only while the link lets views in
   * (recipient-links.ts): through a revoked, expired or unknown one nothing is counted.
   */
  async recordBeacon(id: string, beacon: Beacon, now = new Date()): Promise<{ found: boolean; counted: boolean; doc?: AnalyticsDoc }> {
    let counted = true
    const doc = await this.#update<AnalyticsDoc>(id, 'analytics', (current) => {
      const link = beacon.link ? current.links?.[beacon.link] : undefined
      if (beacon.link && (!link || linkStatus(link, now, beacon.isInitial) !== 'active')) {
        counted = false
        return current
      }
      counted = true
      return applyBeacon(current, beacon, now, link ? beacon.link : undefined)
    })
    return { found: doc !== undefined, counted: doc !== undefined && counted, doc }
  }

  /** A preview fetcher or crawler fetched the share page (domain/bots.ts). */
  async recordBotView(id: string): Promise<boolean> {
    return (await this.#update<AnalyticsDoc>(id, 'analytics', applyBotView)) !== undefined
  }

  /** Adds a recipient link; undefined when the folio does not exist, 'full' at MAX_LINKS. */
  async addLink(id: string, linkId: string, link: NewLink, now = new Date()): Promise<AnalyticsDoc | 'full' | undefined> {
    let full = false
    const doc = await this.#update<AnalyticsDoc>(id, 'analytics', (current) => {
      full = Object.keys(current.links ?? {}).length >= MAX_LINKS
      return full ? current : addLink(current, linkId, link, now)
    })
    return full && doc ? 'full' : doc
  }

  /** A comment came through a recipient link that still lets viewers in: counted on it. */
  async countLinkComment(id: string, linkId: string, now = new Date()): Promise<void> {
    await this.#update<AnalyticsDoc>(id, 'analytics', (current) => {
      const link = current.links?.[linkId]
      if (!link || linkStatus(link, now, false) !== 'active') return current
      return { ...current, links: { ...current.links, [linkId]: { ...link, comments: (link.comments ?? 0) + 1 } } }
    })
  }

  /** Revokes one recipient link (its figures stay); undefined when the folio does not exist. */
  revokeLink(id: string, linkId: string, now = new Date()): Promise<AnalyticsDoc | undefined> {
    return this.#update<AnalyticsDoc>(id, 'analytics', (current) => revokeLink(current, linkId, now))
  }
}
