import { ftruncate as ftruncateCb } from 'node:fs'
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { BackgroundFsync } from './background-fsync.js'
import { type DiskIo, isNoSpace, realDisk, writeAllAt } from './disk-io.js'
import { closeFile, syncData, syncPath } from './fd-io.js'
import { mapLimit } from './map-limit.js'
import { createFile, encode, readRecords } from './journal-records.js'
import type { Held, JournalFile, JournalRecord, Recover, Touched, WriteBack } from './journal-records.js'
import { InsufficientStorageError } from '../store-errors.js'
import { FREE_TO_RESUME, FULL_AT_LEAST_MS, MAX_RECHECK_MS, MAX_RETIRED, RECHECK_MS, REPLAY_FSYNCS, ROTATE_BYTES, ROTATE_MS } from './journal-limits.js'

const ftruncate = promisify(ftruncateCb)

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
  #checkpoints: Promise<unknown> = Promise.resolve()
  /**
   * Retired journal files not yet deleted, oldest first. A checkpoint that fails stops there, no
   * later one is written back or deleted (a restart replays them in order; what they hold stays
   * in memory), and it is tried again later (#recheck).
   */
  #pending: JournalFile[] = []
  /** The last checkpoint failed (and is tried again): writes go on, their journal files kept. */
  #checkpointFailed = false
  /**
   * The disk is full (an append or a checkpoint failed with ENOSPC or EDQUOT), since when: every
   * write fails at once (InsufficientStorageError, HTTP 507; GET /readyz 503), reads go on. Every
   * RECHECK_MS the checkpoints due are tried again and the free space looked at: once both are
   * fine (after FULL_AT_LEAST_MS) writes are taken again, with no restart.
   */
  #full: { since: Date; cause: unknown } | undefined
  #recheckTimer: NodeJS.Timeout | undefined
  /** The pause before the next recheck: RECHECK_MS while the disk is full, doubling (to a minute) while checkpoints fail for another reason. */
  #recheckMs = RECHECK_MS
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
  /** Checkpoints' fsyncs, off libuv's pool. */
  readonly #fsync = new BackgroundFsync()
  readonly #rotateMs: number
  readonly #writeBack: WriteBack | undefined
  readonly #disk: DiskIo

  private constructor(dir: string, current: JournalFile, rotateMs: number, writeBack: WriteBack | undefined, disk: DiskIo) {
    this.#dir = dir
    this.#current = current
    this.#rotateMs = rotateMs
    this.#writeBack = writeBack
    this.#disk = disk
  }

  /**
   * Takes back what a crash left, then starts a fresh journal file. Replay needs no free space:
   * a journal file's puts are taken into memory (`recover`: the write-back cache, as if just
   * written), removals made to the files (they free space), and the file is kept as a retired
   * one, written back by its checkpoint. Those are tried before open returns: on a healthy disk
   * a restart ends as it always did (written, fsync'd, journal deleted); on a full one (a 16 MB
   * journal needs about 16 MB to be written back) the store opens all the same, reads from
   * memory, refuses writes (507) until space is freed. Memory holds what the journal files do,
   * as before the crash: at most MAX_RETIRED + 1 files of ROTATE_BYTES.
   */
  static async open(dir: string, recover: Recover, options: { rotateMs?: number; writeBack?: WriteBack; disk?: DiskIo } = {}): Promise<WriteJournal> {
    if (await mkdir(dir, { recursive: true, mode: 0o700 })) await syncPath(dirname(dir))
    const found = (await readdir(dir))
      .map((name) => /^j(\d+)\.log$/.exec(name)?.[1])
      .filter((seq): seq is string => seq !== undefined)
      .map(Number)
      .sort((a, b) => a - b)
    const replayed: JournalFile[] = []
    for (const seq of found) {
      const file: JournalFile = { seq, path: join(dir, `j${seq}.log`), fd: -1, size: 0, touched: new Set(), held: new Set(), broken: true }
      for (const record of readRecords(await readFile(file.path))) {
        const { touched, held } = await recover(record, seq)
        for (const path of touched) file.touched.add(path)
        for (const key of held) file.held.add(key)
      }
      replayed.push(file)
    }
    // Removals made again: their folders fsync'd now, as before (a crash may have lost them).
    await mapLimit([...new Set(replayed.flatMap((f) => [...f.touched]))], REPLAY_FSYNCS, syncPath)
    const journal = new WriteJournal(
      dir,
      await createFile(dir, (found.at(-1) ?? 0) + 1),
      options.rotateMs ?? ROTATE_MS,
      options.writeBack,
      options.disk ?? realDisk,
    )
    journal.#pending.push(...replayed)
    if (replayed.length) await (journal.#checkpoints = journal.#drain())
    return journal
  }

  /** Since when writes are refused for lack of space (undefined: they are not). */
  get fullSince(): Date | undefined {
    return this.#full?.since
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
  async write(
    op: JournalRecord['op'],
    key: string,
    data: Uint8Array,
    apply: () => Promise<Touched>,
    options: { wait?: boolean; sync?: boolean; hold?: () => Held | undefined } = {},
  ): Promise<void> {
    if (this.#failed) throw this.#failed
    if (this.#closed) throw closedError()
    if (this.#full) throw this.#fullError()
    const touched = await apply()
    const bytes = touched.length || options.hold ? encode(op, key, data) : undefined
    const durable = new Promise<void>((resolve, reject) => {
      if (this.#failed) return reject(this.#failed)
      if (this.#closed) return reject(closedError())
      if (this.#full) return reject(this.#fullError())
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
          if (isNoSpace(current) || current instanceof InsufficientStorageError) this.#noSpace(batch, current)
          else this.#fail(batch, current)
          continue
        }
        if (batch.length === 0) continue
        try {
          // At the file's end as the journal counts it: after an append cut short, the next one
          // starts where the last whole record ends, over what the failed one left.
          await writeAllAt(
            this.#disk,
            current.fd,
            batch.flatMap((w) => w.bytes),
            current.size,
          )
          await syncData(current.fd)
        } catch (error) {
          if (isNoSpace(error)) {
            // The partial record goes (a replay's CRC check would stop at it anyway, and lose
            // every record after it): the file ends with the last acknowledged record again.
            await ftruncate(current.fd, current.size).catch(() => (current.broken = true))
            this.#noSpace(batch, error)
          } else {
            current.broken = true
            this.#fail(batch, error)
          }
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
    this.#failed ??= new Error(
      `The data dir's write journal could not be written (${reason}): folio takes no more writes, so that none rests on one that was lost. Everything acknowledged before is safe. Check the disk (space, permissions), then restart folio.`,
      { cause },
    )
    for (const w of [...batch, ...this.#waiting.splice(0)]) {
      w.held?.failed?.()
      w.reject(this.#failed)
    }
    // No rotation comes any more: checkpointNow waits for the checkpoints there are.
    for (const rotated of this.#rotations.splice(0)) rotated()
  }

  /**
   * An append (or a rotation) failed for lack of space: these writes and every one waiting fail
   * (as in #fail, and for the same reason: a later record may rest on them), and so does every
   * write until the disk has room again (#full), not for good.
   */
  #noSpace(batch: Waiting[], cause: unknown): void {
    this.#enterFull(cause instanceof InsufficientStorageError ? cause.cause : cause)
    const error = this.#fullError()
    for (const w of [...batch, ...this.#waiting.splice(0)]) {
      w.held?.failed?.()
      w.reject(error)
    }
    for (const rotated of this.#rotations.splice(0)) rotated()
  }

  #enterFull(cause: unknown): void {
    this.#recheckMs = RECHECK_MS
    if (this.#full) this.#full.cause = cause
    else this.#full = { since: new Date(), cause }
    this.#scheduleRecheck()
  }

  #fullError(): InsufficientStorageError {
    return new InsufficientStorageError(this.#full?.since ?? new Date(), this.#full?.cause)
  }

  #scheduleRecheck(): void {
    if (this.#recheckTimer || this.#closed) return
    this.#recheckTimer = setTimeout(
      () => {
        this.#recheckTimer = undefined
        void this.#recheck()
      },
      this.#full ? RECHECK_MS : this.#recheckMs,
    ).unref()
  }

  /** While the disk is full or a checkpoint failed: the checkpoints due tried again, and whether writes may come back. */
  async #recheck(): Promise<void> {
    if (this.#closed) return
    const written = await (this.#checkpoints = this.#checkpoints.then(() => this.#drain()))
    const full = this.#full
    if (full && written && Date.now() - full.since.getTime() >= FULL_AT_LEAST_MS) {
      const free = await this.#disk.freeBytes(this.#dir).catch(() => 0)
      if (free >= FREE_TO_RESUME && this.#full === full) this.#full = undefined
    }
    if (this.#full || this.#checkpointFailed) this.#scheduleRecheck()
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
    // up journal files (disk, and the time a restart takes to replay them). Not when
    // checkpoints fail: then writes go on, their files kept (a full disk refuses them anyway).
    while (this.#pending.length >= MAX_RETIRED && !this.#checkpointFailed) {
      if (this.#full) throw this.#fullError()
      await this.#checkpoints
    }
    this.#current = await createFile(this.#dir, old.seq + 1)
    this.#checkpoint(old)
    for (const rotated of this.#rotations.splice(0)) rotated()
    return this.#current
  }

  #checkpoint(file: JournalFile): void {
    this.#pending.push(file)
    this.#checkpoints = this.#checkpoints.then(() => this.#drain())
  }

  /**
   * The checkpoints of the pending journal files, in order: each writes what its file held,
   * fsyncs every path it touched, then deletes the file. Stops at the first that fails (see
   * #pending), which is tried again later; true when none is left.
   */
  async #drain(): Promise<boolean> {
    while (this.#pending.length) {
      const file = this.#pending[0]!
      try {
        if (file.fd >= 0) {
          const fd = file.fd
          file.fd = -1
          await closeFile(fd)
        }
        if (!file.written) {
          const back = file.held.size && this.#writeBack ? await this.#writeBack(file.seq, [...file.held]) : undefined
          await this.#fsync.sync([...file.touched, ...(back?.touched ?? [])])
          back?.written()
          file.written = true
        }
        await unlink(file.path)
        await this.#fsync.sync([this.#dir])
        this.#pending.shift()
      } catch (error) {
        // Kept, with every later one: a restart replays them in order; what they hold stays in memory.
        if (isNoSpace(error)) this.#enterFull(error)
        // Another failure (a disk failing, the data dir gone) is tried again less and less often.
        else if (this.#checkpointFailed) this.#recheckMs = Math.min(this.#recheckMs * 2, MAX_RECHECK_MS)
        this.#checkpointFailed = true
        this.#scheduleRecheck()
        return false
      }
    }
    this.#checkpointFailed = false
    this.#recheckMs = RECHECK_MS
    return true
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
    if (!this.#failed && !this.#full && this.#current.size > 0) {
      // The flush retires the current file at its next turn.
      const rotated = new Promise<void>((resolve) => this.#rotations.push(resolve))
      this.#rotateDue = true
      if (!this.#flushing) void this.#flush()
      await rotated
    }
    await this.#checkpoints
  }

  /**
   * Shutdown: the last appends, then a checkpoint of everything; no journal file is left (unless
   * a checkpoint fails, a full disk say: then a restart replays what is left).
   */
  async close(): Promise<void> {
    this.#closed = true
    while (this.#flushing) await new Promise((r) => setImmediate(r))
    clearTimeout(this.#timer)
    clearTimeout(this.#recheckTimer)
    this.#recheckTimer = undefined
    this.#checkpoint(this.#current)
    await this.#checkpoints
    await this.#fsync.close()
  }
}

const closedError = () => new Error('The write journal is closed: the store was closed while this write came.')
