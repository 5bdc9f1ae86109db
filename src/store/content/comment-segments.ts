import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import { commentNumber, nextCommentNumber, type StoredComment } from '../../domain/comments.js'
import { CorruptDocumentError } from '../engine/json-io.js'
import { keys } from '../keys.js'
import { CommentLimitError, CommentNotFoundError } from '../store-errors.js'

/**
 * A run of a folio's comments in id order, one file: `folios/<id>/comments/s<first>.json`.
 * `first` is the number of the first id it took; `last` the highest it ever gave, so the newest
 * segment holds the folio's high-water mark even when that comment was deleted.
 */
interface Segment {
  first: number
  last: number
  comments: StoredComment[]
}

/** Where a folio's comments are and how much they weigh, without their contents. */
interface Summary {
  starts: number[]
  counts: Map<number, number>
  bytes: Map<number, number>
}

/** New comments go to the newest segment until it passes this: a write rewrites at most this much. */
export const COMMENT_SEGMENT_BYTES = 64 * 1024

export interface CommentLimits {
  /** Comments a folio may hold (soft-deleted ones count: they take room until the owner removes them). */
  maxComments: number
  /** Bytes its comments may take on disk. */
  maxBytes: number
}

/** One flush's changes to a folio's comments; commit() writes the segments it touched. */
export interface CommentBatch {
  /** `now` is the clock the id is taken from (tests, imports). */
  add(make: (id: string) => StoredComment, limits: CommentLimits, now?: number): Promise<StoredComment>
  /**
   * Replaces a comment by what `change` returns (undefined: removes it for good), or throws
   * CommentNotFoundError. `change` may throw to refuse; nothing changes then.
   */
  update(commentId: string, change: (comment: StoredComment) => StoredComment | undefined): Promise<StoredComment | undefined>
  /** The comment as this batch has it (changes so far included); undefined when there is none. */
  get(commentId: string): Promise<StoredComment | undefined>
  /** The comments after this one (ids grow: the newer ones) that `keep` accepts, oldest first. */
  after(commentId: string, keep: (comment: StoredComment) => boolean): Promise<StoredComment[]>
  commit(): Promise<void>
}

const sizeOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

/**
 * A folio's comments in segments, as history keeps versions (history-segments.ts): adding a
 * comment rewrites the newest segment (at most 64 KB), resolving or deleting one rewrites the
 * segment holding it, found from its id (ids grow, so segments are in id order). Neither grows
 * with the number of comments.
 *
 * Writers hold the folio's comment lock (engagement-repository.ts). Readers take none: a read
 * caches what it read only if no write came in between (a generation per folio).
 */
export class CommentSegments {
  readonly #storage: Storage
  readonly #segments = new LRUCache<string, { segment: Segment; bytes: number }>({
    maxSize: 32 * 1024 * 1024,
    sizeCalculation: (entry) => entry.bytes + 64,
  })
  readonly #summaries = new LRUCache<string, Summary>({
    maxSize: 4 * 1024 * 1024,
    sizeCalculation: (summary) => 64 + summary.starts.length * 48,
  })
  readonly #generations = new Map<string, number>()
  /** Bumped when everything is dropped: a read started before must not cache what it read. */
  #epoch = 0

  constructor(storage: Storage) {
    this.#storage = storage
  }

  /** Every comment, oldest first. */
  async all(id: string): Promise<StoredComment[]> {
    const out: StoredComment[] = []
    for (const first of [...(await this.#summary(id)).starts]) out.push(...(await this.#read(id, first)).comments)
    return out
  }

  /** The newest `limit` comments that `keep` accepts, oldest first: reads only as far back as it must. */
  async newest(id: string, limit: number, keep: (comment: StoredComment) => boolean): Promise<StoredComment[]> {
    const starts = [...(await this.#summary(id)).starts]
    const out: StoredComment[] = []
    for (let s = starts.length - 1; s >= 0 && out.length < limit; s--) {
      const { comments } = await this.#read(id, starts[s]!)
      for (let i = comments.length - 1; i >= 0 && out.length < limit; i--) if (keep(comments[i]!)) out.push(comments[i]!)
    }
    return out.reverse()
  }

  /**
   * Visits comments newest first until `visit` returns false: for answers that need a little
   * state across comments (a reply comes after its parent), reading only as far back as they must.
   */
  async scanNewest(id: string, visit: (comment: StoredComment) => boolean): Promise<void> {
    const starts = [...(await this.#summary(id)).starts]
    for (let s = starts.length - 1; s >= 0; s--) {
      const { comments } = await this.#read(id, starts[s]!)
      for (let i = comments.length - 1; i >= 0; i--) if (!visit(comments[i]!)) return
    }
  }

  /** How many comments a folio holds and their bytes on disk. */
  async size(id: string): Promise<{ comments: number; bytes: number }> {
    const summary = await this.#summary(id)
    return { comments: total(summary.counts), bytes: total(summary.bytes) }
  }

  /** Drops what is cached of a folio (deleted, or written by another instance); of all, without an id. */
  forget(id?: string): void {
    if (id === undefined) {
      this.#epoch++
      this.#summaries.clear()
      this.#segments.clear()
      return
    }
    this.#bump(id)
    // The summary names the folio's segments: no walk over the whole cache (other instances' comments call this often).
    const starts = this.#summaries.peek(id)?.starts
    this.#summaries.delete(id)
    if (starts) for (const first of starts) this.#segments.delete(`${id}:${first}`)
    else for (const key of [...this.#segments.keys()]) if (key.startsWith(`${id}:`)) this.#segments.delete(key)
  }

  /** Starts a batch of changes. The caller holds the folio's comment lock until commit() settles. */
  async begin(id: string): Promise<CommentBatch> {
    const cached = await this.#summary(id)
    const starts = [...cached.starts]
    const counts = new Map(cached.counts)
    const bytes = new Map(cached.bytes)
    const dirty = new Map<number, Segment>()
    const segment = async (first: number) => dirty.get(first) ?? (await this.#read(id, first))
    const editable = async (first: number) => {
      let found = dirty.get(first)
      if (!found) {
        const stored = await this.#read(id, first)
        dirty.set(first, (found = { ...stored, comments: [...stored.comments] }))
      }
      return found
    }
    const newest = starts.at(-1)
    let highWater = newest === undefined ? 0 : (await segment(newest)).last

    return {
      add: async (make, limits, now) => {
        if (total(counts) >= limits.maxComments) throw new CommentLimitError('comments', limits.maxComments)
        const n = nextCommentNumber(highWater, now)
        const comment = make(`c_${n}`)
        const size = sizeOf(comment) + 1
        if (total(bytes) + size > limits.maxBytes) throw new CommentLimitError('bytes', limits.maxBytes)
        const open = starts.at(-1)
        let target: Segment
        if (open !== undefined && (bytes.get(open) ?? 0) + size <= COMMENT_SEGMENT_BYTES) target = await editable(open)
        else {
          target = { first: n, last: n, comments: [] }
          dirty.set(n, target)
          starts.push(n)
          bytes.set(n, sizeOf(target))
        }
        target.comments.push(comment)
        target.last = n
        highWater = n
        counts.set(target.first, target.comments.length)
        bytes.set(target.first, (bytes.get(target.first) ?? 0) + size)
        return comment
      },

      update: async (commentId, change) => {
        const n = commentNumber(commentId)
        const first = n === undefined ? undefined : startOf(starts, n)
        if (first === undefined) throw new CommentNotFoundError(commentId)
        const index = (await segment(first)).comments.findIndex((c) => c.id === commentId)
        if (index === -1) throw new CommentNotFoundError(commentId)
        const target = await editable(first)
        const before = target.comments[index]!
        const after = change(before)
        if (after === undefined) target.comments.splice(index, 1)
        else target.comments[index] = after
        counts.set(first, target.comments.length)
        bytes.set(first, (bytes.get(first) ?? 0) - sizeOf(before) + (after ? sizeOf(after) : -1))
        return after
      },

      get: async (commentId) => {
        const n = commentNumber(commentId)
        const first = n === undefined ? undefined : startOf(starts, n)
        return first === undefined ? undefined : (await segment(first)).comments.find((c) => c.id === commentId)
      },

      after: async (commentId, keep) => {
        const n = commentNumber(commentId)
        const from = n === undefined ? undefined : startOf(starts, n)
        if (n === undefined || from === undefined) return []
        const out: StoredComment[] = []
        for (const first of starts) {
          if (first < from) continue
          for (const c of (await segment(first)).comments) if ((commentNumber(c.id) ?? 0) > n && keep(c)) out.push(c)
        }
        return out
      },

      commit: async () => {
        try {
          for (const first of [...dirty.keys()].sort((a, b) => a - b)) {
            const written = await this.#write(id, dirty.get(first)!)
            bytes.set(first, written)
          }
        } catch (error) {
          // Part of the batch may be on disk: what is cached must come from disk again.
          this.forget(id)
          throw error
        }
        if (dirty.size) this.#summaries.set(id, { starts, counts, bytes })
      },
    }
  }

  /** Writes a folio's comments into fresh segments (migrations: the folio has none yet). */
  async import(id: string, comments: StoredComment[]): Promise<void> {
    const batch = await this.begin(id)
    const byNumber = new Map(comments.map((c) => [commentNumber(c.id)!, c]))
    for (const n of [...byNumber.keys()].sort((a, b) => a - b)) {
      // Each keeps its id: numbers ascend from 1 up, so a clock set to n gives exactly n.
      await batch.add(() => byNumber.get(n)!, { maxComments: Infinity, maxBytes: Infinity }, n)
    }
    await batch.commit()
  }

  #generation(id: string): string {
    return `${this.#epoch}:${this.#generations.get(id) ?? 0}`
  }

  #bump(id: string): void {
    this.#generations.set(id, (this.#generations.get(id) ?? 0) + 1)
  }

  async #summary(id: string): Promise<Summary> {
    const cached = this.#summaries.get(id)
    if (cached) return cached
    const generation = this.#generation(id)
    const found = await this.#storage.getKeys(keys.commentsDir(id))
    const starts = found
      .map((key) => /:s(\d+)\.json$/.exec(key)?.[1])
      .filter((first): first is string => first !== undefined)
      .map(Number)
      .sort((a, b) => a - b)
    const summary: Summary = { starts, counts: new Map(), bytes: new Map() }
    for (const first of starts) {
      const { segment, bytes } = await this.#load(id, first)
      summary.counts.set(first, segment.comments.length)
      summary.bytes.set(first, bytes)
    }
    if (this.#generation(id) === generation) this.#summaries.set(id, summary)
    return summary
  }

  async #read(id: string, first: number): Promise<Segment> {
    return (await this.#load(id, first)).segment
  }

  async #load(id: string, first: number): Promise<{ segment: Segment; bytes: number }> {
    const cacheKey = `${id}:${first}`
    const cached = this.#segments.get(cacheKey)
    if (cached) return cached
    const generation = this.#generation(id)
    const key = keys.commentSegment(id, first)
    const raw = await this.#storage.getItemRaw(key)
    if (!raw) throw new CorruptDocumentError(key)
    const text = Buffer.from(raw as Uint8Array).toString('utf8')
    let segment: Segment
    try {
      segment = JSON.parse(text) as Segment
    } catch {
      throw new CorruptDocumentError(key)
    }
    if (typeof segment?.last !== 'number' || !Array.isArray(segment.comments)) throw new CorruptDocumentError(key)
    const loaded = { segment, bytes: Buffer.byteLength(text) }
    if (this.#generation(id) === generation) this.#segments.set(cacheKey, loaded)
    return loaded
  }

  /** Returns the bytes written. */
  async #write(id: string, segment: Segment): Promise<number> {
    const bytes = Buffer.from(JSON.stringify(segment), 'utf8')
    this.#bump(id)
    await this.#storage.setItemRaw(keys.commentSegment(id, segment.first), bytes)
    this.#bump(id)
    this.#segments.set(`${id}:${segment.first}`, { segment, bytes: bytes.length })
    return bytes.length
  }
}

const total = (values: Map<number, number>) => {
  let sum = 0
  for (const v of values.values()) sum += v
  return sum
}

/** The segment holding comment number n: the greatest start ≤ n. */
function startOf(starts: number[], n: number): number | undefined {
  let lo = 0
  let hi = starts.length - 1
  let found: number | undefined
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (starts[mid]! <= n) {
      found = starts[mid]
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}
