import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import type { WriteOptions } from '../engine/durable-fs-driver.js'
import { applyDelta, createDelta } from '../../domain/delta.js'
import { keys } from '../keys.js'
import { KeyedMutex } from '../coordination/keyed-mutex.js'
import { blobLock, lockedThing } from '../coordination/lock-keys.js'
import type { Locks } from '../coordination/locks.js'

/**
 * Content-addressed file contents, shared by every version and folio that holds the same bytes.
 *
 * On disk a blob is one byte of encoding and then either the content (FULL) or the 32-byte
 * hash of a newer blob plus a delta against it (DELTA). When a new version replaces a file, the
 * replaced content is rewritten as a delta against its successor (reverse deltas, as RCS does):
 * the newest content stays a plain read, and a history of one-line edits costs a few hundred
 * bytes a version instead of a copy.
 *
 * A blob is kept while anything refers to it: one marker key per owner (a folio id, or
 * `~<hash>` for a blob stored as a delta against it). Deleting the last marker deletes the
 * blob. A blob only ever becomes a delta against a blob created after it, so chains cannot loop:
 * compact() checks that order itself (versions of one folio store their blobs concurrently, so a
 * version's predecessor may have been created later than its own content).
 */
const FULL = 0
const DELTA = 1
/** Deltas pay off only on files of some size. */
const MIN_DELTA_SOURCE = 2048
/** Beyond this many hops a blob that becomes current again is stored whole. */
const MAX_CHAIN_FOR_HEAD = 16
/** How many of the blobs this process created it remembers the order of (compact() needs it). */
const BIRTHS_REMEMBERED = 50_000

export class BlobMissingError extends Error {
  constructor(readonly hash: string) {
    super(`Blob ${hash} is missing from the store`)
  }
}

export interface PutResult {
  hash: string
  size: number
  /** The blob did not exist before this call (a candidate for delta-compressing its predecessor). */
  created: boolean
  /** The owner did not refer to this blob before (its size counts towards the owner's storage). */
  newToOwner: boolean
}

export function hashBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

export class BlobStore {
  readonly #storage: Storage
  readonly #locks: Locks
  /** Contents by hash: bytes never change under their hash, so no other instance can make this stale. */
  readonly #cache: LRUCache<string, Buffer>
  /**
   * The blobs this process created, oldest first, with their rank and whether they are still
   * stored whole. Forgetting the oldest keeps the order right: a blob not in here is older than
   * every blob that is (or was created before this process started).
   */
  readonly #born = new Map<string, { rank: number; whole: boolean }>()
  #births = 0

  /**
   * `locks` is the store's (shared with the other instances on one database); alone, a blob
   * store serialises its own work.
   */
  constructor(storage: Storage, options: { cacheBytes?: number; locks?: Locks } = {}) {
    this.#storage = storage
    this.#locks = options.locks ?? new KeyedMutex()
    // Another instance held this blob's lock since we did: it may have rewritten the blob as a
    // delta (compact) or whole again (materialize), so "stored whole" is no longer known here.
    // The rank stays: it only orders blobs this instance created.
    this.#locks.onStale((key) => {
      const thing = lockedThing(key)
      const born = thing.kind === 'blob' ? this.#born.get(thing.id) : undefined
      if (born) born.whole = false
    })
    this.#cache = new LRUCache<string, Buffer>({
      maxSize: options.cacheBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (b) => Math.max(1, b.length),
      maxEntrySize: 16 * 1024 * 1024,
    })
  }

  /**
   * Stores `bytes` (if new) and records that `owner` refers to it. Idempotent. The reference is
   * written alongside the blob (each is durable before put returns, and a reference left by a
   * crash without its blob only keeps nothing longer); `beforeRef` finishes before the
   * reference is recorded (the folio's own index of its blobs must never miss one that carries
   * its reference). `write`: see WriteOptions (a version's blobs are made durable by its commit).
   */
  async put(bytes: Buffer, owner: string, knownHash?: string, beforeRef?: () => Promise<void>, write?: WriteOptions): Promise<PutResult> {
    const hash = knownHash ?? hashBytes(bytes)
    return this.#locks.run(blobLock(hash), async () => {
      let created = false
      let referred = false
      const writeBlob = async () => {
        if (await this.#storage.hasItem(keys.blob(hash))) return
        await this.#storage.setItemRaw(keys.blob(hash), Buffer.concat([Buffer.of(FULL), bytes]), write)
        created = true
        this.#bear(hash)
      }
      const writeRef = async () => {
        await beforeRef?.()
        const refKey = keys.blobRef(hash, owner)
        if (await this.#storage.hasItem(refKey)) return
        referred = true
        await this.#storage.setItemRaw(refKey, Buffer.alloc(0), write)
      }
      await Promise.all([writeBlob(), writeRef()])
      this.#cache.set(hash, bytes)
      return { hash, size: bytes.length, created, newToOwner: created || referred }
    })
  }

  #bear(hash: string): void {
    this.#born.delete(hash)
    this.#born.set(hash, { rank: ++this.#births, whole: true })
    if (this.#born.size > BIRTHS_REMEMBERED) this.#born.delete(this.#born.keys().next().value!)
  }

  /** Whether `owner` refers to the blob now (its marker is there, so the blob is too). */
  async holds(hash: string, owner: string): Promise<boolean> {
    // Under the blob's lock: a put in progress has written all of its keys or none.
    return this.#locks.run(blobLock(hash), () => this.#storage.hasItem(keys.blobRef(hash, owner)))
  }

  /** Every owner that refers to the blob now: folio ids, and `~<hash>` for deltas against it. */
  async owners(hash: string): Promise<string[]> {
    const prefix = keys.blobRefPrefix(hash)
    // Under the blob's lock, as holds(): a put in progress has written its reference or not.
    const found = await this.#locks.run(blobLock(hash), () => this.#storage.getKeys(keys.blobRefShard(hash)))
    return found.filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length))
  }

  /**
   * Records that `owner` refers to a blob that is already stored; false (and nothing written)
   * when there is no such blob. A restore uses it before it can name an old content again.
   */
  async addRefIfPresent(hash: string, owner: string, beforeRef?: () => Promise<void>): Promise<boolean> {
    return this.#locks.run(blobLock(hash), async () => {
      if (!(await this.#storage.hasItem(keys.blob(hash)))) return false
      await beforeRef?.()
      const refKey = keys.blobRef(hash, owner)
      if (!(await this.#storage.hasItem(refKey))) await this.#storage.setItemRaw(refKey, Buffer.alloc(0))
      return true
    })
  }

  /** The content of a blob stored whole; undefined when it is stored as a delta, or gone. */
  async wholeContent(hash: string): Promise<Buffer | undefined> {
    // A content replaced moments ago is usually still cached, and known to be stored whole.
    const cached = this.#born.get(hash)?.whole ? this.#cache.get(hash) : undefined
    if (cached) return cached
    const raw = (await this.#storage.getItemRaw(keys.blob(hash))) as Buffer | null
    return raw && raw[0] === FULL ? raw.subarray(1) : undefined
  }

  /** Keeps a content rebuilt elsewhere (from a folio's packed history) in the read cache. */
  remember(hash: string, content: Buffer): void {
    this.#cache.set(hash, content)
  }

  async get(hash: string): Promise<Buffer> {
    const cached = this.#cache.get(hash)
    if (cached) return cached
    const content = await this.#resolve(hash)
    this.#cache.set(hash, content)
    return content
  }

  /**
   * Reads a blob through its delta chain, stopping early at a cached ancestor. Every content
   * rebuilt on the way is cached, newest first, so reading a history from old to new walks
   * each link about once instead of once per version (which would be quadratic).
   */
  async #resolve(hash: string): Promise<Buffer> {
    const deltas: Array<{ hash: string; delta: Buffer }> = []
    let current = hash
    let content: Buffer | undefined
    for (;;) {
      const cached = current === hash ? undefined : this.#cache.get(current)
      if (cached) {
        content = cached
        break
      }
      const raw = (await this.#storage.getItemRaw(keys.blob(current))) as Buffer | null
      if (!raw || raw.length === 0) throw new BlobMissingError(current)
      if (raw[0] === FULL) {
        content = raw.subarray(1)
        break
      }
      deltas.push({ hash: current, delta: raw.subarray(33) })
      current = raw.subarray(1, 33).toString('hex')
    }
    for (let i = deltas.length - 1; i >= 0; i--) {
      content = applyDelta(content, deltas[i]!.delta)
      if (i > 0) this.#cache.set(deltas[i]!.hash, content)
    }
    return content
  }

  /**
   * Rewrites `oldHash` as a delta against `newHash` when that saves space. Called after a
   * version replaced the old content by the new one. Only a blob this process created after the
   * old one can be a base (else two versions stored at once could make each other's bases), and
   * only one stored whole: instances rank only the blobs they created, so two of them could
   * each take the other's blob for the newer one; a delta only ever made against a whole blob,
   * with both locks held, can never close a loop.
   */
  async compact(oldHash: string, newHash: string): Promise<void> {
    if (oldHash === newHash) return
    // Both locks, taken in sorted order: two compactions of the same pair, either way round, cannot deadlock.
    await this.#locks.runAll([blobLock(oldHash), blobLock(newHash)], async () => {
      const newBorn = this.#born.get(newHash)
      const oldBorn = this.#born.get(oldHash)
      if (newBorn === undefined || (oldBorn !== undefined && oldBorn.rank > newBorn.rank)) return
      const raw = (await this.#storage.getItemRaw(keys.blob(oldHash))) as Buffer | null
      if (!raw || raw[0] !== FULL || raw.length - 1 < MIN_DELTA_SOURCE) return
      const baseRaw = (await this.#storage.getItemRaw(keys.blob(newHash))) as Buffer | null
      if (!baseRaw || baseRaw.length === 0) throw new BlobMissingError(newHash)
      if (baseRaw[0] !== FULL) return
      const oldContent = raw.subarray(1)
      const delta = createDelta(baseRaw.subarray(1), oldContent)
      if (delta.length > oldContent.length / 2) return
      // The dependency marker first: once the delta is on disk, the base must not vanish.
      await this.#storage.setItemRaw(keys.blobRef(newHash, `~${oldHash}`), Buffer.alloc(0))
      await this.#storage.setItemRaw(keys.blob(oldHash), Buffer.concat([Buffer.of(DELTA), Buffer.from(newHash, 'hex'), delta]))
      if (oldBorn) oldBorn.whole = false
    })
  }

  /**
   * Makes sure a blob that is current again (a restored version) reads without a long delta
   * chain, by storing it whole. Its old base loses one dependant.
   */
  async materialize(hash: string): Promise<void> {
    let released: string | undefined
    await this.#locks.run(blobLock(hash), async () => {
      const raw = (await this.#storage.getItemRaw(keys.blob(hash))) as Buffer | null
      if (!raw || raw[0] !== DELTA) return
      if ((await this.#chainLength(raw)) <= MAX_CHAIN_FOR_HEAD) return
      const content = await this.get(hash)
      await this.#storage.setItemRaw(keys.blob(hash), Buffer.concat([Buffer.of(FULL), content]))
      const birth = this.#born.get(hash)
      if (birth) birth.whole = true
      released = raw.subarray(1, 33).toString('hex')
    })
    if (released) await this.release(released, `~${hash}`)
  }

  /** Hops from a stored blob to the full content it is a delta of, as they are on disk. */
  async #chainLength(raw: Buffer): Promise<number> {
    let hops = 0
    for (let current = raw; current[0] === DELTA && hops <= MAX_CHAIN_FOR_HEAD; hops++) {
      const next = (await this.#storage.getItemRaw(keys.blob(current.subarray(1, 33).toString('hex')))) as Buffer | null
      if (!next) break
      current = next
    }
    return hops
  }

  /** Drops `owner`'s reference; the blob goes when nobody refers to it any more. */
  async release(hash: string, owner: string): Promise<void> {
    let next: { hash: string; owner: string } | undefined = { hash, owner }
    // Iterative: deleting a delta blob releases its base, which may cascade down a chain.
    while (next) {
      const { hash: h, owner: o } = next
      next = undefined
      await this.#locks.run(blobLock(h), async () => {
        // Lazy: a removal a crash undoes only keeps a blob longer (see durable-fs-driver.ts).
        await this.#storage.removeItem(keys.blobRef(h, o), { lazy: true })
        const prefix = keys.blobRefPrefix(h)
        const remaining = (await this.#storage.getKeys(keys.blobRefShard(h))).some((k) => k.startsWith(prefix))
        if (remaining) return
        // A blob known to be stored whole rests on no other: no need to read it.
        const raw = this.#born.get(h)?.whole ? null : ((await this.#storage.getItemRaw(keys.blob(h))) as Buffer | null)
        await this.#storage.removeItem(keys.blob(h), { lazy: true })
        this.#cache.delete(h)
        this.#born.delete(h)
        if (raw && raw[0] === DELTA) next = { hash: raw.subarray(1, 33).toString('hex'), owner: `~${h}` }
      })
    }
  }

  async has(hash: string): Promise<boolean> {
    return this.#storage.hasItem(keys.blob(hash))
  }

  async idle(): Promise<void> {
    await this.#locks.idle()
  }
}
