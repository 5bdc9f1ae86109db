import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import type { WriteOptions } from '../engine/durable-fs-driver.js'
import { CorruptDocumentError, readJson, writeJson } from '../engine/json-io.js'
import { keys } from '../keys.js'
import type { VersionManifest } from '../../domain/model.js'

/**
 * An old file content kept inside its folio's history instead of as a blob file: whole (small
 * files), or as a delta against the newer blob that replaced it. Base64 in the segment's JSON.
 */
export type PackedContent = { raw: string } | { base: string; delta: string }

/**
 * A run of consecutive version manifests, plus the old contents packed by those versions (the
 * contents they replaced). One file on disk per segment: a thousand small versions cost a few
 * segment files, not a thousand manifests and a thousand delta files of one disk block each.
 */
interface Segment {
  first: number
  versions: VersionManifest[]
  packed: Record<string, PackedContent>
}

interface LoadedHistory {
  /** First version numbers of the segments on disk, ascending. */
  starts: Promise<number[]>
  segments: Map<number, Promise<Segment>>
  /** Size of each segment's JSON as last read or written. */
  bytes: Map<number, number>
  /** hash → packed content, over all segments (later ones win); built on first need. */
  packed?: Promise<Map<string, PackedContent>>
}

/** A segment takes new versions until its JSON passes this: a write rewrites at most this much. */
export const SEGMENT_BYTES = 64 * 1024

/**
 * Version history of folios, stored as segments (`folios/<id>/history/s<first>.json`). Folios
 * written before segments existed keep their `versions/v<n>.json` manifests, which are still read;
 * new versions of such a folio start a segment.
 *
 * Callers hold the folio's lock for every write (append, replace, pack). Reads take no lock: the
 * cache is updated after each write through the cache's current entry, so a load that started
 * before a write can never leave an older segment in the cache for later writers.
 */
export class HistorySegments {
  readonly #storage: Storage
  /** Weighed by the segment bytes each folio has loaded: long histories cannot hold the heap. */
  readonly #cache = new LRUCache<string, LoadedHistory>({
    max: 20_000,
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (history) => {
      let size = 256
      for (const bytes of history.bytes.values()) size += bytes
      return size
    },
  })

  constructor(storage: Storage) {
    this.#storage = storage
  }

  async manifest(id: string, n: number): Promise<VersionManifest | undefined> {
    const history = this.#load(id)
    const first = startOf(await history.starts, n)
    if (first !== undefined) {
      const manifest = (await this.#segment(id, history, first)).versions[n - first]
      if (manifest) return manifest
    }
    return readJson<VersionManifest>(this.#storage, keys.version(id, n))
  }

  /** Writes version n, the folio's new latest: into the open segment, or a new one. */
  async append(id: string, n: number, manifest: VersionManifest): Promise<void> {
    await this.appendAll(id, n, [manifest])
  }

  /**
   * Writes versions first, first+1, … (a group commit's): into the open segment while it is
   * under SEGMENT_BYTES, then into new ones. Usually one write for the whole batch. `write`:
   * see WriteOptions (a group commit's metadata write makes the segments durable with it).
   */
  async appendAll(id: string, first: number, manifests: VersionManifest[], write?: WriteOptions): Promise<void> {
    const history = this.#load(id)
    const starts = await history.starts
    const last = starts.at(-1)
    let open: Segment | undefined
    let bytes = 0
    if (last !== undefined) {
      const segment = await this.#segment(id, history, last)
      const size = history.bytes.get(last) ?? Infinity
      if (segment.first + segment.versions.length === first && size < SEGMENT_BYTES) {
        open = { ...segment, versions: [...segment.versions] }
        bytes = size
      }
    }
    const segments: Segment[] = []
    for (const [i, manifest] of manifests.entries()) {
      if (!open || bytes >= SEGMENT_BYTES) {
        if (open) segments.push(open)
        open = { first: first + i, versions: [], packed: {} }
        bytes = 0
      }
      open.versions.push(manifest)
      bytes += JSON.stringify(manifest).length + 1
    }
    if (open) segments.push(open)
    for (const segment of segments) await this.#write(id, segment, {}, write)
  }

  /** Rewrites version n in place (uploads merge into the latest version). */
  async replace(id: string, n: number, manifest: VersionManifest): Promise<void> {
    const history = this.#load(id)
    const first = startOf(await history.starts, n)
    const segment = first === undefined ? undefined : await this.#segment(id, history, first)
    if (!segment?.versions[n - segment.first]) {
      await writeJson(this.#storage, keys.version(id, n), manifest)
      return
    }
    const versions = [...segment.versions]
    versions[n - segment.first] = manifest
    await this.#write(id, { ...segment, versions })
  }

  /**
   * Records old contents that version n replaced. They go into the newest segment, so that on
   * disk as in memory the pack written last wins. False when version n has no segment (a folio
   * from before segments): the caller keeps blob files.
   */
  async pack(id: string, n: number, contents: Record<string, PackedContent>): Promise<boolean> {
    const history = this.#load(id)
    const starts = await history.starts
    if (startOf(starts, n) === undefined) return false
    const newest = await this.#segment(id, history, starts.at(-1)!)
    await this.#write(id, { ...newest, packed: { ...newest.packed, ...contents } }, contents)
    return true
  }

  /** An old content this folio's history packed, if it did. */
  async packed(id: string, hash: string): Promise<PackedContent | undefined> {
    const history = this.#load(id)
    if (!history.packed) {
      const building = (async () => {
        const index = new Map<string, PackedContent>()
        for (const first of await history.starts) {
          for (const [packedHash, content] of Object.entries((await this.#segment(id, history, first)).packed)) index.set(packedHash, content)
        }
        return index
      })()
      history.packed = building
      // A failed build is not kept: the next reader builds again.
      building.catch(() => {
        if (history.packed === building) history.packed = undefined
      })
    }
    return (await history.packed).get(hash)
  }

  /** Drops what is cached of a folio (deleted, or written by another instance); of all, without an id. */
  forget(id?: string): void {
    if (id === undefined) this.#cache.clear()
    else this.#cache.delete(id)
  }

  #load(id: string): LoadedHistory {
    let history = this.#cache.get(id)
    if (!history) {
      const starts = this.#storage.getKeys(keys.historyDir(id)).then((found) =>
        found
          .map((key) => /:s(\d+)\.json$/.exec(key)?.[1])
          .filter((first): first is string => first !== undefined)
          .map(Number)
          .sort((a, b) => a - b),
      )
      const created: LoadedHistory = { starts, segments: new Map(), bytes: new Map() }
      history = created
      this.#cache.set(id, created)
      // A failed listing is not kept: the next caller lists again.
      starts.catch(() => {
        if (this.#cache.peek(id) === created) this.#cache.delete(id)
      })
    }
    return history
  }

  /** Re-weighs a folio's entry in the cache after its loaded segments changed. */
  #resize(id: string, history: LoadedHistory): void {
    if (this.#cache.peek(id) === history) this.#cache.set(id, history)
  }

  #segment(id: string, history: LoadedHistory, first: number): Promise<Segment> {
    let segment = history.segments.get(first)
    if (!segment) {
      segment = (async () => {
        const raw = await this.#storage.getItemRaw(keys.historySegment(id, first))
        const key = keys.historySegment(id, first)
        if (!raw) throw new CorruptDocumentError(key)
        const text = Buffer.from(raw as Uint8Array).toString('utf8')
        let parsed: Segment
        try {
          parsed = JSON.parse(text) as Segment
        } catch {
          throw new CorruptDocumentError(key)
        }
        history.bytes.set(first, Buffer.byteLength(text))
        this.#resize(id, history)
        return parsed
      })()
      history.segments.set(first, segment)
      // A failed read is not cached: the next caller tries again.
      segment.catch(() => history.segments.delete(first))
    }
    return segment
  }

  async #write(id: string, segment: Segment, added: Record<string, PackedContent> = {}, write?: WriteOptions): Promise<void> {
    const bytes = Buffer.from(JSON.stringify(segment), 'utf8')
    await this.#storage.setItemRaw(keys.historySegment(id, segment.first), bytes, write)
    // Through the cache's current entry (not the one this call started with: it may have been
    // evicted and reloaded meanwhile).
    const history = this.#load(id)
    const starts = await history.starts
    if (!starts.includes(segment.first)) {
      starts.push(segment.first)
      starts.sort((a, b) => a - b)
    }
    history.segments.set(segment.first, Promise.resolve(segment))
    history.bytes.set(segment.first, bytes.length)
    this.#resize(id, history)
    // Only what this write added: re-adding a whole older segment would bring back stale packs.
    const index = await history.packed?.catch(() => undefined)
    if (index) for (const [hash, content] of Object.entries(added)) index.set(hash, content)
  }
}

/** The first version of the segment holding version n: the greatest start ≤ n. */
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
