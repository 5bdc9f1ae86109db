import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { openFile, syncPath } from './fd-io.js'

/*
 * The write journal's records (write-journal.ts) as they are on disk, and what the journal and
 * the driver say to each other about them.
 */

/** A change to the data dir as the journal keeps it: a key written (its bytes), removed, or a folder cleared. */
export interface JournalRecord {
  op: 'put' | 'del' | 'clear'
  key: string
  data: Uint8Array
}

/** Paths (files, folders) a change touched: what a checkpoint makes durable before it drops the record. */
export type Touched = string[]

/**
 * A change held in memory rather than made to the files (the driver's write-back): the journal
 * notes which of its files holds the change's record once that record is durable.
 */
export interface JournalMark {
  /** The journal file holding the record: 0 until it is durable. */
  seq: number
}

/**
 * Writes the files at a checkpoint: the changes held in memory whose newest durable record is
 * in journal file `seq`, among `keys`. Returns the paths to fsync, and what to do once they are
 * durable (forget what was held).
 */
export type WriteBack = (seq: number, keys: string[]) => Promise<{ touched: Touched; written(): void }>

/**
 * A record of a journal file a crash left, taken back on start: its change held in memory (the
 * keys returned, whose states are marked with journal file `seq`, written back at its checkpoint),
 * or, for removals, made to the files (the paths returned: fsync'd at the checkpoint).
 */
export type Recover = (record: JournalRecord, seq: number) => Promise<{ touched: Touched; held: string[] }>

const OPS = ['put', 'del', 'clear'] as const
/** body length, crc32 of the body; then the body: op, key length, key, data. */
const HEADER = 8

/** The changes a record stands for that are held in memory: their marks, and the keys they are under. */
export interface Held {
  marks: JournalMark[]
  keys: string[]
  /** The record will never be durable: what it held must not be read, nor written back. */
  failed?: () => void
}

/**
 * A record as the buffers an append writes: its header and key, then the data itself, which is
 * not copied (a version's page is ~100 KB, and the write-back cache holds those same bytes).
 */
export function encode(op: JournalRecord['op'], key: string, data: Uint8Array): Buffer[] {
  const keyLength = Buffer.byteLength(key, 'utf8')
  const head = Buffer.allocUnsafe(HEADER + 3 + keyLength)
  head[HEADER] = OPS.indexOf(op)
  head.writeUInt16LE(keyLength, HEADER + 1)
  head.write(key, HEADER + 3, 'utf8')
  head.writeUInt32LE(3 + keyLength + data.length, 0)
  head.writeUInt32LE(crc32(data, crc32(head.subarray(HEADER))), 4)
  return data.length ? [head, Buffer.from(data.buffer, data.byteOffset, data.byteLength)] : [head]
}

/** The records of a journal file, up to the first one that is incomplete or damaged (a torn append). */
export function* readRecords(bytes: Buffer): Generator<JournalRecord> {
  for (let at = 0; at + HEADER <= bytes.length; ) {
    const length = bytes.readUInt32LE(at)
    const body = bytes.subarray(at + HEADER, at + HEADER + length)
    if (length < 3 || body.length < length || crc32(body) !== bytes.readUInt32LE(at + 4)) return
    const op = OPS[body[0]!]
    const keyLength = body.readUInt16LE(1)
    if (!op || 3 + keyLength > length) return
    yield { op, key: body.subarray(3, 3 + keyLength).toString('utf8'), data: body.subarray(3 + keyLength) }
    at += HEADER + length
  }
}

/** A journal file as the journal keeps it. */
export interface JournalFile {
  seq: number
  path: string
  /** -1 once closed (retired), or never opened (replayed on start). */
  fd: number
  size: number
  /** What its records touched. */
  touched: Set<string>
  /** The keys of its records whose change is held in memory (written back at its checkpoint). */
  held: Set<string>
  /** A failed append may have left a partial record: nothing more may follow it. */
  broken: boolean
  /** Its checkpoint wrote and fsync'd what it held; the file itself is still to delete. */
  written?: boolean
}

/** A new, empty journal file; its entry in the folder durable before a record in it is acknowledged. */
export async function createFile(dir: string, seq: number): Promise<JournalFile> {
  const path = join(dir, `j${seq}.log`)
  const fd = await openFile(path, 'wx', 0o600)
  // Its entry in the folder must be durable before a record in it is acknowledged.
  await syncPath(dir)
  return { seq, path, fd, size: 0, touched: new Set(), held: new Set(), broken: false }
}
