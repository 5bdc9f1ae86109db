import { LRUCache } from 'lru-cache'
import type { Storage } from 'unstorage'
import type { FolioMeta, VersionManifest, VersionSummary } from '../../domain/model.js'
import { readJson } from '../engine/json-io.js'
import { keys } from '../keys.js'

/**
 * The summaries of a folio's versions (id, message, date, author: no files), for lists.
 *
 * The newest summaries ride in the folio's metadata (`log`, from v<logStart>), which every
 * version rewrites anyway; once that tail passes OPEN_TAIL_BYTES it is written out as an
 * immutable chunk (`log/l<first>.json`) and the tail starts again. So a version costs no extra
 * write (one chunk write per few dozen versions), the metadata never grows with history, and a
 * list reads each folio's closed chunks once, then from memory.
 */
export const OPEN_TAIL_BYTES = 8 * 1024

export function summaryOf(manifest: VersionManifest): VersionSummary {
  return { versionId: manifest.versionId, commitMessage: manifest.commitMessage, createdAt: manifest.createdAt, author: manifest.author }
}

export interface LogAppend {
  log: VersionSummary[]
  logStart: number
  /** A full tail to write out as a closed chunk (before the metadata that no longer holds it). */
  closed?: { first: number; summaries: VersionSummary[] }
}

/** Adds version n's summary to the tail of `meta` (whose head is n - 1). */
export function appendSummary(meta: Pick<FolioMeta, 'log' | 'logStart'>, n: number, summary: VersionSummary): LogAppend {
  const tail = meta.log
  if (tail.length > 0 && JSON.stringify(tail).length + JSON.stringify(summary).length > OPEN_TAIL_BYTES) {
    return { log: [summary], logStart: n, closed: { first: meta.logStart, summaries: tail } }
  }
  return { log: [...tail, summary], logStart: tail.length ? meta.logStart : n }
}

interface Chunk {
  first: number
  summaries: VersionSummary[]
}

export class VersionLog {
  readonly #storage: Storage
  /** Closed chunks never change: cached by folio and first version, weighed by size. */
  readonly #chunks = new LRUCache<string, Chunk>({ maxSize: 16 * 1024 * 1024, sizeCalculation: (c) => 128 + JSON.stringify(c.summaries).length })

  constructor(storage: Storage) {
    this.#storage = storage
  }

  /**
   * Writes a closed chunk. Idempotent: a crash before the metadata write repeats it unchanged.
   * Every caller writes the folio's metadata next and waits for that (the journal keeps writes
   * in order): this one does not wait for the disk on its own.
   */
  async close(id: string, chunk: Chunk): Promise<void> {
    await this.#storage.setItem(keys.logChunk(id, chunk.first), JSON.stringify(chunk), { durableWithNext: true })
    this.#chunks.set(`${id}:${chunk.first}`, chunk)
  }

  /** Every version's summary, oldest first: the closed chunks from v1, then the tail. */
  async all(meta: FolioMeta): Promise<VersionSummary[]> {
    const out: VersionSummary[] = []
    let next = 1
    while (next < meta.logStart) {
      const chunk = await this.#chunk(meta.id, next)
      if (!chunk || chunk.summaries.length === 0) throw new Error(`Folio ${meta.id} is missing its version log chunk from v${next}`)
      for (const summary of chunk.summaries) if (next++ < meta.logStart) out.push(summary)
    }
    out.push(...meta.log)
    return out
  }

  async #chunk(id: string, first: number): Promise<Chunk | undefined> {
    const cacheKey = `${id}:${first}`
    const cached = this.#chunks.get(cacheKey)
    if (cached) return cached
    const chunk = await readJson<Chunk>(this.#storage, keys.logChunk(id, first))
    if (chunk) this.#chunks.set(cacheKey, chunk)
    return chunk
  }
}

/** The log of a history built from scratch (imports and the format 3 migration). */
export function buildLog(summaries: VersionSummary[]): { log: VersionSummary[]; logStart: number; closed: Chunk[] } {
  let state: Pick<FolioMeta, 'log' | 'logStart'> = { log: [], logStart: 1 }
  const closed: Chunk[] = []
  summaries.forEach((summary, i) => {
    const appended = appendSummary(state, i + 1, summary)
    if (appended.closed) closed.push(appended.closed)
    state = appended
  })
  return { log: state.log, logStart: state.logStart, closed }
}
