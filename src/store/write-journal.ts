import { mkdir, readdir, readFile, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { crc32 } from 'node:zlib'
import { BackgroundFsync } from './background-fsync.js'
import { closeFile, openFile, syncData, syncPath, writeAllV } from './fd-io.js'
import { mapLimit } from './map-limit.js'

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

const OPS = ['put', 'del', 'clear'] as const
/** body length, crc32 of the body; then the body: op, key length, key, data. */
const HEADER = 8
/** A journal file is retired past this size, or this long after its first record. */
const ROTATE_BYTES = 32 * 1024 * 1024
const ROTATE_MS = 2000
/** Retired journal files waiting for their checkpoint, at most: then writers wait for the disk. */
const MAX_RETIRED = 3
/** fsyncs in flight while replaying on start (nothing else runs then). */
const REPLAY_FSYNCS = 8

interface JournalFile {
  seq: number
  path: string
  fd: number
  size: number
  /** What its records touched. */
  touched: Set<string>
  /** The keys of its records whose change is held in memory (written back at its checkpoint). */
  held: Set<string>
  /** A failed append may have left a partial record: nothing more may follow it. */
  broken: boolean
}

interface Waiting {
  bytes: Buffer[]
  touched: Touched
  held?: Held
  resolve(): void
  reject(error: unknown): void
}

/**
 * A write-ahead journal shared by every write of the data dir: what makes a write durable is one
 * record in it, appended with the records of every other write in flight (one write and one
 * fdatasync for all of them, as databases group-commit their logs), not an fsync of the file and
 * one of its folder per write. The files themselves are written at once (a reader sees them) but
 * made durable later, by a checkpoint in the background: a journal file is retired after 2 s or
 * 32 MB, then everything its records touched is fsync'd and it is deleted. On start, journal
 * files left by a crash are replayed in order (a torn last record was never acknowledged), made
 * durable and deleted. Records enter the journal in the order their changes were made, so a
 * replay ends where the acknowledged writes ended, whatever order the disk kept the files in.
 */
export class WriteJournal {
  readonly #dir: string
  #current: JournalFile
  #waiting: Waiting[] = []
  #flushing = false
  #rotateDue = false
  #timer: NodeJS.Timeout | undefined
  /** Checkpoints run one at a time, in order: an older journal file is never left behind a newer one deleted. */
  #checkpoints: Promise<void> = Promise.resolve()
  /** A checkpoint failed: later journal files are kept too, so a restart replays all of them in order. */
  #keepAll = false
  /**
   * Why an append failed, once one has: every write after it fails too. Records are appended in
   * the order their changes were made, and a later change may rest on an earlier one that did
   * not wait for the disk (a version's metadata on its blobs): none may become durable without
   * it. What is durable stays so; a restart replays it and writes again (as PostgreSQL stops on
   * a failed fsync).
   */
  #failed: Error | undefined
  /** close() has begun: no more writes. */
  #closed = false
  /** Waiting for the next rotation (checkpointNow). */
  #rotations: Array<() => void> = []
  /** Journal files retired and not yet checkpointed. */
  #retired = 0
  /** Checkpoints' fsyncs, off libuv's pool. */
  readonly #fsync = new BackgroundFsync()
  readonly #rotateMs: number
  readonly #writeBack: WriteBack | undefined

  private constructor(dir: string, current: JournalFile, rotateMs: number, writeBack: WriteBack | undefined) {
    this.#dir = dir
    this.#current = current
    this.#rotateMs = rotateMs
    this.#writeBack = writeBack
  }

  /** Replays what a crash left (redo makes one record's change again), then starts a fresh journal file. */
  static async open(dir: string, redo: (record: JournalRecord) => Promise<Touched>, options: { rotateMs?: number; writeBack?: WriteBack } = {}): Promise<WriteJournal> {
    if (await mkdir(dir, { recursive: true, mode: 0o700 })) await syncPath(dirname(dir))
    const found = (await readdir(dir))
      .map((name) => /^j(\d+)\.log$/.exec(name)?.[1])
      .filter((seq): seq is string => seq !== undefined)
      .map(Number)
      .sort((a, b) => a - b)
    const touched = new Set<string>()
    for (const seq of found) {
      for (const record of readRecords(await readFile(join(dir, `j${seq}.log`)))) for (const path of await redo(record)) touched.add(path)
    }
    await mapLimit([...touched], REPLAY_FSYNCS, syncPath)
    for (const seq of found) await unlink(join(dir, `j${seq}.log`))
    return new WriteJournal(dir, await createFile(dir, (found.at(-1) ?? 0) + 1), options.rotateMs ?? ROTATE_MS, options.writeBack)
  }

  /**
   * Records a change that `apply` makes to the files, once it is made (a change that failed is
   * not recorded: a restart must not make it), and resolves when the record is durable. With
   * `wait` false, once it is queued: a later write that waits makes it durable too (records are
   * appended in order), or it only reclaims space. `sync` false: the checkpoint need not fsync
   * what it touched (a removal a crash may undo). A change that touched nothing (removing what
   * was not there) needs no record, unless it changes what is held in memory: `hold` takes the
   * change into memory (its marks, under its keys) in the same moment the record is queued, so
   * memory and the journal have one order; the checkpoint of the journal file holding the
   * record writes it out (WriteBack).
   */
  async write(op: JournalRecord['op'], key: string, data: Uint8Array, apply: () => Promise<Touched>, options: { wait?: boolean; sync?: boolean; hold?: () => Held | undefined } = {}): Promise<void> {
    if (this.#failed) throw this.#failed
    if (this.#closed) throw closedError()
    const touched = await apply()
    const bytes = touched.length || options.hold ? encode(op, key, data) : undefined
    const durable = new Promise<void>((resolve, reject) => {
      if (this.#failed) return reject(this.#failed)
      if (this.#closed) return reject(closedError())
      const held = options.hold?.()
      if (!bytes || (touched.length === 0 && !held)) return resolve()
      this.#waiting.push({ bytes, touched: options.sync === false ? [] : touched, held, resolve, reject })
      if (!this.#flushing) void this.#flush()
    })
    if (options.wait !== false) await durable
    else durable.catch(() => {})
  }

  /** While one append is on disk the next gathers: each append carries every record that waited. */
  async #flush(): Promise<void> {
    this.#flushing = true
    try {
      while (this.#waiting.length || this.#rotateDue) {
        const file = this.#current
        const rotate = file.broken || file.size >= ROTATE_BYTES || (this.#rotateDue && file.size > 0)
        // A rotation due while the file is empty waits for the batch about to go in (checkpointNow
        // asked for what is queued), unless nothing is.
        if (rotate || this.#waiting.length === 0) this.#rotateDue = false
        const batch = this.#waiting.splice(0)
        const current = rotate ? await this.#rotate().catch((error: unknown) => error as Error) : file
        if (current instanceof Error) {
          // No journal file to append to (the data dir is gone, or full).
          this.#fail(batch, current)
          continue
        }
        if (batch.length === 0) continue
        try {
          await writeAllV(current.fd, batch.flatMap((w) => w.bytes))
          await syncData(current.fd)
        } catch (error) {
          current.broken = true
          this.#fail(batch, error)
          continue
        }
        if (current.size === 0) this.#timer = setTimeout(() => this.#dueForRotation(), this.#rotateMs).unref()
        for (const w of batch) {
          for (const part of w.bytes) current.size += part.length
          for (const path of w.touched) current.touched.add(path)
          if (w.held) {
            for (const mark of w.held.marks) mark.seq = current.seq
            for (const key of w.held.keys) current.held.add(key)
          }
          w.resolve()
        }
      }
    } finally {
      this.#flushing = false
    }
  }

  /** An append failed: these writes, every one waiting behind them, and every later one fail (see #failed). */
  #fail(batch: Waiting[], cause: unknown): void {
    const reason = cause instanceof Error ? cause.message : String(cause)
    this.#failed ??= new Error(`The data dir's write journal could not be written (${reason}): folio takes no more writes, so that none rests on one that was lost. Everything acknowledged before is safe. Check the disk (space, permissions), then restart folio.`, { cause })
    for (const w of [...batch, ...this.#waiting.splice(0)]) {
      w.held?.failed?.()
      w.reject(this.#failed)
    }
    // No rotation comes any more: checkpointNow waits for the checkpoints there are.
    for (const rotated of this.#rotations.splice(0)) rotated()
  }

  #dueForRotation(): void {
    this.#rotateDue = true
    if (!this.#flushing) void this.#flush()
  }

  /** Starts a new journal file and checkpoints the old one in the background. */
  async #rotate(): Promise<JournalFile> {
    const old = this.#current
    clearTimeout(this.#timer)
    // Writes faster than the disk can take the checkpoints' fsyncs wait here, rather than pile
    // up journal files (disk, and the time a restart takes to replay them).
    while (this.#retired >= MAX_RETIRED) await this.#checkpoints
    this.#current = await createFile(this.#dir, old.seq + 1)
    this.#checkpoint(old)
    for (const rotated of this.#rotations.splice(0)) rotated()
    return this.#current
  }

  #checkpoint(file: JournalFile): void {
    this.#retired++
    this.#checkpoints = this.#checkpoints.then(async () => {
      try {
        await closeFile(file.fd)
        const back = file.held.size && this.#writeBack ? await this.#writeBack(file.seq, [...file.held]) : undefined
        await this.#fsync.sync([...file.touched, ...(back?.touched ?? [])])
        back?.written()
        if (this.#keepAll) return
        await unlink(file.path)
        await this.#fsync.sync([this.#dir])
      } catch {
        // Kept: a restart replays it, and every journal file after it (see #keepAll).
        this.#keepAll = true
      } finally {
        this.#retired--
      }
    })
  }

  /** A checkpoint now of everything appended so far (the files then hold it, fsync'd), the journal staying open. */
  async checkpointNow(): Promise<void> {
    if (this.#waiting.length || this.#flushing) {
      // What is queued so far (removals that do not wait, say) goes into the current file first.
      await new Promise<void>((resolve, reject) => {
        this.#waiting.push({ bytes: [], touched: [], resolve, reject })
        if (!this.#flushing) void this.#flush()
      }).catch(() => {})
    }
    if (!this.#failed && this.#current.size > 0) {
      // The flush retires the current file at its next turn.
      const rotated = new Promise<void>((resolve) => this.#rotations.push(resolve))
      this.#rotateDue = true
      if (!this.#flushing) void this.#flush()
      await rotated
    }
    await this.#checkpoints
  }

  /** Shutdown: the last appends, then a checkpoint of everything; no journal file is left. */
  async close(): Promise<void> {
    this.#closed = true
    while (this.#flushing) await new Promise((r) => setImmediate(r))
    clearTimeout(this.#timer)
    this.#checkpoint(this.#current)
    await this.#checkpoints
    await this.#fsync.close()
  }
}

const closedError = () => new Error('The write journal is closed: the store was closed while this write came.')

async function createFile(dir: string, seq: number): Promise<JournalFile> {
  const path = join(dir, `j${seq}.log`)
  const fd = await openFile(path, 'wx', 0o600)
  // Its entry in the folder must be durable before a record in it is acknowledged.
  await syncPath(dir)
  return { seq, path, fd, size: 0, touched: new Set(), held: new Set(), broken: false }
}

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
function encode(op: JournalRecord['op'], key: string, data: Uint8Array): Buffer[] {
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
