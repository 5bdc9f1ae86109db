import { createHash } from 'node:crypto'
import type { Storage } from 'unstorage'
import { mapLimit } from './map-limit.js'

/*
 * folio db import|export: every key of one store copied to another (a data dir's files, a
 * database's folio_kv), byte for byte. The repositories keep everything they know under keys
 * (versions, contents, comments, counts, workspaces, settings), so a copy of the keys is a
 * copy of the store, and the target needs no translation: the same repositories read it.
 *
 * Resumable: a key the target already holds with the same bytes is not written again, so a copy
 * that stopped half-way (Ctrl+C, a lost connection) is finished by running it again. Verified:
 * after the copy every key is read back from the target and its sha256 compared with the
 * source's. While it runs, the target holds a marker (IMPORT_MARKER) that keeps a server from
 * starting on half a store; it goes once everything is verified.
 */

/** Held by a target while a copy into it is unfinished: a server refuses to start on it. */
export const IMPORT_MARKER = 'folio-copy-in-progress.json'

export interface CopyProgress {
  phase: 'copy' | 'verify'
  done: number
  total: number
  bytes: number
}

export interface CopyResult {
  keys: number
  /** Written this run (the rest were already there, the same). */
  copied: number
  bytes: number
  verified: number
}

export class CopyRefusedError extends Error {}

/** A store that a copy (folio db import|export) was filling and did not finish: no server starts on it. */
export class UnfinishedCopyError extends Error {
  constructor(what: 'data dir' | 'database') {
    super(
      what === 'database'
        ? 'An import into this database has not finished: run the same folio db import again to finish it, then start the server.'
        : 'An export into this data dir has not finished: run the same folio db export again to finish it, then start the server.',
    )
  }
}

export class CopyMismatchError extends Error {}

interface CopyOptions {
  /** Named in the marker and in messages: where the keys come from. */
  source: string
  onProgress?: (progress: CopyProgress) => void
  /** Keys read and written at once. */
  concurrency?: number
}

const PROGRESS_EVERY = 200

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

async function readRaw(storage: Storage, key: string): Promise<Buffer | undefined> {
  const value = await storage.getItemRaw(key)
  if (value === null || value === undefined) return undefined
  if (typeof value === 'string') return Buffer.from(value, 'utf8')
  return Buffer.from(value as Uint8Array)
}

/**
 * Copies every key of `from` into `to`. Refuses a target that holds keys the source does not
 * (another store's data: mixing two would be neither), unless they are the marker of an
 * unfinished copy from the same source.
 */
export async function copyStorage(from: Storage, to: Storage, options: CopyOptions): Promise<CopyResult> {
  const concurrency = options.concurrency ?? 8
  const keys = (await from.getKeys('')).filter((k) => k !== IMPORT_MARKER).sort()
  const known = new Set(keys)
  const foreign = (await to.getKeys('')).filter((k) => k !== IMPORT_MARKER && !known.has(k))
  if (foreign.length) {
    throw new CopyRefusedError(
      `The target already holds ${foreign.length} item(s) that ${options.source} does not (e.g. ${foreign[0]}): it is another store's data. Copy into an empty one.`,
    )
  }
  const marker = (await to.getItem(IMPORT_MARKER)) as { source?: string } | null
  if (marker && marker.source !== options.source) {
    throw new CopyRefusedError(`An unfinished copy from ${marker.source} is in the target: finish it by running that copy again, or start from an empty one.`)
  }
  await to.setItem(IMPORT_MARKER, JSON.stringify({ source: options.source, startedAt: new Date().toISOString() }))

  const report = (phase: CopyProgress['phase'], done: number, bytes: number) => {
    if (done === keys.length || done % PROGRESS_EVERY === 0) options.onProgress?.({ phase, done, total: keys.length, bytes })
  }
  const hashes = new Map<string, string>()
  let copied = 0
  let bytes = 0
  let done = 0
  await mapLimit(keys, concurrency, async (key) => {
    const value = await readRaw(from, key)
    // Gone since it was listed (a store in use): nothing to copy, and nothing to verify.
    if (value === undefined) return
    hashes.set(key, sha256(value))
    const existing = await readRaw(to, key)
    if (!existing?.equals(value)) {
      await to.setItemRaw(key, value)
      copied++
    }
    bytes += value.length
    report('copy', ++done, bytes)
  })

  let verified = 0
  await mapLimit([...hashes.keys()], concurrency, async (key) => {
    const value = await readRaw(to, key)
    if (!value || sha256(value) !== hashes.get(key)) throw new CopyMismatchError(`${key} reads back different from what was copied: run the copy again.`)
    report('verify', ++verified, bytes)
  })
  await to.removeItem(IMPORT_MARKER)
  return { keys: hashes.size, copied, bytes, verified }
}
