import { closeSync, type Dirent, statSync } from 'node:fs'
import { mkdir, readFile, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import { type Driver, defineDriver } from 'unstorage'
import { LOCK_FILE } from './data-dir-lock.js'
import { type DiskIo, diskFor } from './disk-io.js'
import { isCode, openFile } from './fd-io.js'
import { mapLimit } from './map-limit.js'
import { WriteBackCache } from './write-back-cache.js'
import type { Recover, Touched, WriteBack } from './journal-records.js'
import { WriteJournal } from './write-journal.js'

export { journalHoldsWrites } from './journal-dir.js'

/**
 * An unstorage driver on plain files whose writes are atomic and durable.
 *
 * unstorage's own fs driver writes in place: under load a reader saw empty and half-written
 * files. Here every write goes to a temp file renamed over the target (atomic on POSIX): a
 * reader sees the old file or the new one, never a mix. What makes a write durable is its
 * record in the data dir's write journal (write-journal.ts): one append and one fdatasync carry
 * every write in flight, where an fsync of each file and of its folder cost a version four to
 * ten disk flushes, each a round trip through libuv's four threads.
 *
 * A write is not made to the files at once either (write-back, as a database keeps its pages):
 * the bytes stay in memory (write-back-cache.ts), where every read finds them, until the
 * checkpoint of the journal file holding the record writes the newest durable state of each key
 * and fsyncs it, in the background. A file replaced or removed before then is never written:
 * a version's replaced content, packed into the history 250 ms later, its reference markers, the
 * folio's metadata rewritten by every commit. Creating, renaming and removing files takes ext4's
 * journal, which waits while a checkpoint's fsyncs commit it: with the files written on every
 * write, a commit of 50 writers' versions took 30–70 ms. A restart after a crash replays what
 * the journal holds first.
 *
 * getKeys(base) walks only the directory that `base` names, so listing one folio's keys does
 * not cost more when there are many folios.
 */
export interface DurableFsOptions {
  base: string
  /** How long a journal file takes records before its checkpoint (tests hold it open). */
  checkpointAfterMs?: number
  /** The calls that put bytes on the disk (disk-io.ts): the real ones unless a test gives a full disk. */
  disk?: DiskIo
}

const TMP_DIR = '.tmp'
/** Files written at once by a checkpoint (each a temp file, a write and a rename on libuv's pool). */
const WRITE_BACK_CONCURRENCY = 4
import { JOURNAL_DIR } from './journal-dir.js'

/**
 * setItem's options. `durableWithNext`: the caller follows this write with one it waits for (a
 * commit point), and the journal keeps writes in order, so that one makes this one durable too:
 * this write does not wait for the disk. A version's blobs and history segment are written so,
 * then its metadata waits: one disk flush for the whole commit.
 */
export interface WriteOptions {
  durableWithNext?: boolean
}

/** removeItem's options: `lazy` for removals whose loss in a crash costs only space. */
export interface RemoveOptions {
  lazy?: boolean
}

/**
 * What every driver on one data dir in this process shares: the journal and what it holds in
 * memory. Two journals on one folder would replay (and delete) each other's files, and a driver
 * must read what another wrote (a server's store and its admin operations, a test's second
 * instance). Another process never opens it at the same time: the data dir is locked.
 */
interface DataDirState {
  held: WriteBackCache
  journal: Promise<WriteJournal> | undefined
  /** Drivers that opened the journal and have not been disposed. */
  users: number
}
const dataDirs = new Map<string, DataDirState>()
/** Temp files' names: unique in the process, whichever driver writes. */
let tmpCounter = 0
/** Data dirs whose last driver is closing its journal: the next opening waits for it. */
const closing = new Map<string, Promise<void>>()
/**
 * Per data dir, the turn of the checkpoint's write-back and of a folder's removal: rm -rf of a
 * folder a checkpoint is writing into fails (not empty) or leaves the file behind.
 */
const diskTurns = new Map<string, Promise<unknown>>()
function inTurn<T>(root: string, work: () => Promise<T>): Promise<T> {
  const run = (diskTurns.get(root) ?? Promise.resolve()).then(work)
  const settled = run.catch(() => {})
  diskTurns.set(root, settled)
  void settled.then(() => diskTurns.get(root) === settled && diskTurns.delete(root))
  return run
}

/** The driver, with what a store asks of its data dir beyond unstorage's calls (diskFullSince: since when writes are refused for lack of space). */
export type DurableFsDriver = Driver & { writeBack(): Promise<void>; diskFullSince(): Date | undefined }

export const durableFsDriver = defineDriver((options: DurableFsOptions): DurableFsDriver => {
  const root = resolve(options.base)
  const tmpRoot = join(root, TMP_DIR)
  let ready: Promise<WriteJournal> | undefined
  let state: DataDirState | undefined
  /** What is held for this data dir (shared with every driver on it once opened). */
  let held = new WriteBackCache()
  const disk = options.disk ?? diskFor(root)
  /** The journal, once opened (what diskFullSince asks). */
  let opened: WriteJournal | undefined

  const pathOf = (key: string): string => {
    const segments = key.split(':').filter(Boolean)
    // Keys are built by the repositories, never taken from a URL; refuse anything that could
    // still escape the data dir rather than trusting that.
    if (segments.some((s) => s === '.' || s === '..' || s === TMP_DIR || s === JOURNAL_DIR || s.includes(sep) || s.includes('\0'))) {
      throw new Error(`Refusing unsafe storage key: ${key}`)
    }
    return join(root, ...segments)
  }

  /**
   * Runs `place` (which puts a file at `target`), creating the parent folder when it is missing.
   * Returns the folders whose entries changed: the target's and those of the folders created.
   */
  const inFolder = async (target: string, place: () => Promise<void>): Promise<Touched> => {
    const touched = [dirname(target)]
    for (let attempt = 0; ; attempt++) {
      try {
        await place()
        return touched
      } catch (error) {
        if (!isCode(error, 'ENOENT') || attempt === 5) throw error
        // The parent folder does not exist yet (or was just removed as empty): create it; its
        // entry, and those of any folder above it created with it, become durable at the checkpoint.
        const created = await mkdir(dirname(target), { recursive: true, mode: 0o700 })
        if (created) for (let dir = dirname(target); dir !== dirname(created); dir = dirname(dir)) touched.push(dirname(dir))
      }
    }
  }

  /**
   * Puts `data` at `target`, whole or not at all; the paths the checkpoint must fsync.
   *
   * The temp file is created through libuv's pool, then written and closed synchronously: with
   * no fsync left in a write, those return from the page cache in microseconds. Creating a file
   * is not: it needs a handle on ext4's journal, and while a checkpoint's fsyncs commit that
   * journal an open(O_CREAT) waits (measured: 17% of the event loop's time in open with 50
   * writers on 50 folios). The rename stays asynchronous for the same reason, and because
   * replacing a file makes ext4 start writing the new one's data (auto_da_alloc).
   */
  const place = async (target: string, data: Uint8Array): Promise<Touched> => {
    // A marker (a reference, an index entry): an empty file is whole the moment it exists, so
    // it is created in place, and only its folder entry needs to become durable.
    if (data.length === 0) return inFolder(target, async () => closeSync(await openFile(target, 'w', 0o600)))
    const tmp = join(tmpRoot, `${process.pid}-${++tmpCounter}`)
    // Folio data holds access keys and the server's secrets: readable by its owner only.
    const fd = await openFile(tmp, 'w', 0o600)
    try {
      for (let at = 0; at < data.length; ) at += disk.writeSync(fd, data, at, data.length - at)
    } catch (error) {
      // A full disk, say: what was written of the temp file goes, rather than take more space.
      closeSync(fd)
      await unlink(tmp).catch(() => {})
      throw error
    }
    closeSync(fd)
    return [target, ...(await inFolder(target, () => rename(tmp, target)))]
  }

  const remove = async (path: string): Promise<Touched> => {
    try {
      // Most removals are of files never written (held in memory, replaced or released before
      // their checkpoint): a failed unlink costs an exception on the event loop (~50 µs, a tenth
      // of a busy server's time), where a synchronous stat of what is not there costs ~1 µs.
      if (!statSync(path, { throwIfNoEntry: false })) return []
      await unlink(path)
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return []
      throw error
    }
    return [dirname(path)]
  }

  const clearFolder = async (path: string): Promise<Touched> => {
    await rm(path, { recursive: true, force: true })
    return [dirname(path)]
  }

  /**
   * A change the journal holds, taken back on start as it was first made: a put held in memory
   * (no space needed: see WriteJournal.open), a removal or a clear made to the files and to what is held.
   */
  const recover: Recover = async (record, seq) => {
    const path = pathOf(record.key)
    const marked = (keys: string[], marks: Array<{ seq: number }>) => {
      for (const mark of marks) mark.seq = seq
      return keys
    }
    if (record.op === 'put') return { touched: [], held: marked([record.key], [held.put(record.key, record.data)]) }
    if (record.op === 'del') {
      const touched = await remove(path)
      return { touched, held: held.get(record.key) ? marked([record.key], [held.put(record.key, null)]) : [] }
    }
    const touched = await clearFolder(path)
    const cleared = held.clear(record.key)
    return { touched, held: cleared ? marked(cleared.keys, cleared.marks) : [] }
  }

  /** A checkpoint: the newest durable state of each key whose record is in journal file `seq`, made in the files. */
  const writeBack: WriteBack = async (seq, keys) => {
    const due = held.dueAt(seq, keys)
    const touched: string[] = []
    await inTurn(root, () =>
      mapLimit(due, WRITE_BACK_CONCURRENCY, async ({ key, entry }) => {
        const path = pathOf(key)
        touched.push(...(entry.data ? await place(path, entry.data) : await remove(path)))
      }),
    )
    return { touched, written: () => held.written(due) }
  }

  /** The temp dir is ours alone: whatever a crash left there is garbage. The journal is not: it is replayed. */
  const openJournal = async () => {
    await rm(tmpRoot, { recursive: true, force: true })
    await mkdir(tmpRoot, { recursive: true, mode: 0o700 })
    return WriteJournal.open(join(root, JOURNAL_DIR), recover, { rotateMs: options.checkpointAfterMs, writeBack, disk })
  }
  const init = () =>
    (ready ??= (async () => {
      // Looked up in the same tick as the wait ends: a last driver that starts closing meanwhile is waited for too.
      while (closing.has(root)) await closing.get(root)
      state = dataDirs.get(root)
      if (!state) dataDirs.set(root, (state = { held, journal: undefined, users: 0 }))
      state.users++
      held = state.held
      const mine = state
      mine.journal ??= openJournal()
      return mine.journal
        .then((journal) => (opened = journal))
        .catch((error: unknown) => {
          // Not opened (a folder it cannot write): the next call, or driver, tries again.
          if (dataDirs.get(root) === mine) dataDirs.delete(root)
          mine.users--
          ready = undefined
          throw error
        })
    })())

  /**
   * The bytes given (a Uint8Array) are kept, not copied, until written back, and the journal
   * appends them as they are: callers hand over buffers they no longer change, as every
   * repository does.
   */
  const writeDurable = async (key: string, data: string | Uint8Array, opts: WriteOptions | undefined) => {
    const journal = await init()
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    pathOf(key) // refuses an unsafe key before anything is held
    // Held as its record is queued; a record that fails then (also after the caller stopped
    // waiting) is forgotten by the journal (Held.failed): nobody may read it, nor write it back.
    await journal.write('put', key, bytes, async () => [], { wait: !opts?.durableWithNext, hold: () => held.hold(key, bytes) })
  }

  const walk = async (dir: string, prefix: string, out: string[]) => {
    let entries: Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return
      throw error
    }
    for (const entry of entries) {
      if (entry.name === TMP_DIR || entry.name === JOURNAL_DIR) continue
      // The data dir's lock (data-dir-lock.ts) is the running process's, not data.
      if (!prefix && entry.name === LOCK_FILE) continue
      const key = prefix ? `${prefix}:${entry.name}` : entry.name
      if (entry.isDirectory()) await walk(join(dir, entry.name), key, out)
      else if (entry.isFile()) out.push(key)
    }
  }

  return {
    name: 'durable-fs',
    options,
    flags: { maxDepth: false },
    async hasItem(key) {
      await init()
      const newest = held.get(key)
      if (newest) return newest.data !== null
      // Synchronous on purpose: a write checks several keys that do not exist yet, and an async
      // stat of a missing file costs a thread-pool round trip and an exception (20–60 µs of the
      // event loop) where statSync's lookup of a cached folder costs about 1 µs.
      try {
        return statSync(pathOf(key), { throwIfNoEntry: false })?.isFile() ?? false
      } catch (error) {
        if (isCode(error, 'ENOTDIR')) return false
        throw error
      }
    },
    async getItem(key) {
      await init()
      const newest = held.get(key)
      if (newest) return newest.data && Buffer.from(newest.data.buffer, newest.data.byteOffset, newest.data.byteLength).toString('utf8')
      try {
        return await readFile(pathOf(key), 'utf8')
      } catch (error) {
        if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return null
        throw error
      }
    },
    async getItemRaw(key) {
      await init()
      const newest = held.get(key)
      if (newest) return newest.data && Buffer.from(newest.data.buffer, newest.data.byteOffset, newest.data.byteLength)
      try {
        return await readFile(pathOf(key))
      } catch (error) {
        if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return null
        throw error
      }
    },
    async setItem(key, value, opts) {
      await writeDurable(key, value, opts as WriteOptions | undefined)
    },
    async setItemRaw(key, value, opts) {
      await writeDurable(key, value as Uint8Array, opts as WriteOptions | undefined)
    },
    async removeItem(key, opts) {
      const journal = await init()
      const path = pathOf(key)
      let removed = false
      // Reclaiming space (`{ lazy: true }`) neither waits for its record nor has its folder
      // fsync'd: a removal a crash undoes only leaves a file that is reclaimed later, never a
      // wrong answer. It leaves the folder too: those are blob and reference shards (256 of each
      // at most), or a folio's own folders (gone with the folio), and a failed rmdir costs an
      // exception per removal.
      const lazy = (opts as RemoveOptions | undefined)?.lazy ?? false
      // Held in memory (perhaps never written): its removal is held too, for the checkpoints.
      const hold = () => (held.get(key) ? held.hold(key, null) : undefined)
      const apply = async () => {
        const touched = await remove(path)
        removed = touched.length > 0
        return touched
      }
      await journal.write('del', key, new Uint8Array(), apply, { wait: !lazy, sync: !lazy, hold })
      // Empty folders (a workspace's, say) would pile up forever.
      if (removed && !lazy && dirname(path) !== root) await rmdir(dirname(path)).catch(() => {})
    },
    async getMeta(key) {
      await init()
      const newest = held.get(key)
      if (newest) return newest.data && { mtime: new Date(newest.at), size: newest.data.length }
      try {
        const info = await stat(pathOf(key))
        return { mtime: info.mtime, size: info.size }
      } catch (error) {
        if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return null
        throw error
      }
    },
    async getKeys(base) {
      await init()
      const out: string[] = []
      const prefix = (base ?? '').split(':').filter(Boolean).join(':')
      const before = held.snapshot(prefix)
      await walk(prefix ? pathOf(prefix) : root, prefix, out)
      return held.overlay(prefix, out, before)
    },
    async clear(base) {
      const prefix = (base ?? '').split(':').filter(Boolean).join(':')
      if (!prefix) throw new Error('Refusing to clear the whole data dir')
      const journal = await init()
      await journal.write('clear', prefix, new Uint8Array(), () => inTurn(root, () => clearFolder(pathOf(prefix))), { hold: () => held.clear(prefix) })
    },
    diskFullSince() {
      return opened?.fullSince
    },
    /** Everything the journal holds, written to the files and fsync'd now (FolioStore.writeBack). */
    async writeBack() {
      await (await init()).checkpointNow()
    },
    async dispose() {
      // Taken at once: a second dispose() meanwhile has nothing to let go.
      const opened = ready
      ready = undefined
      if (!opened) return
      const journal = await opened
      const mine = state!
      if (--mine.users > 0) return
      // The last driver on the data dir: a clean stop leaves no journal, everything written back and fsync'd.
      dataDirs.delete(root)
      const closed = journal.close().finally(() => closing.delete(root))
      closing.set(root, closed)
      await closed
    },
  }
})
