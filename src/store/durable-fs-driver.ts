import { close, fsync, open as openFd, statSync, write } from 'node:fs'
import { mkdir, readFile, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises'
import { promisify } from 'node:util'
import { dirname, join, resolve, sep } from 'node:path'
import { defineDriver } from 'unstorage'

/**
 * An unstorage driver on plain files whose writes are atomic and durable.
 *
 * unstorage's own fs driver writes in place: under load a reader saw empty and half-written
 * files. Here every write goes to a temp file, is fsync'd, renamed over the target (atomic on
 * POSIX), and the directory is fsync'd so the rename itself survives a power cut. A reader sees
 * the old file or the new one, never a mix.
 *
 * getKeys(base) walks only the directory that `base` names, so listing one folio's keys does
 * not cost more when there are many folios.
 */
export interface DurableFsOptions {
  base: string
}

const TMP_DIR = '.tmp'

/** removeItem's options: `lazy` for removals whose loss in a crash costs only space. */
export interface RemoveOptions {
  lazy?: boolean
}

/*
 * Writes go through file descriptors, not fs/promises' FileHandle: a FileHandle is an event
 * emitter made transferable to workers, and a version writes several files (a blob, its
 * markers, a segment, the metadata), each with its folder's fsync.
 */
const openFile = promisify(openFd)
const closeFile = promisify(close)
const syncFile = promisify(fsync)
const writeSome = (fd: number, buffer: Uint8Array, offset: number, length: number) =>
  new Promise<number>((resolve, reject) => write(fd, buffer, offset, length, null, (error, written) => (error ? reject(error) : resolve(written))))

async function writeAll(fd: number, data: string | Uint8Array): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  for (let at = 0; at < bytes.length; ) at += await writeSome(fd, bytes, at, bytes.length - at)
}

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code
}

export const durableFsDriver = defineDriver((options: DurableFsOptions) => {
  const root = resolve(options.base)
  const tmpRoot = join(root, TMP_DIR)
  let tmpCounter = 0
  let ready: Promise<void> | undefined

  const pathOf = (key: string): string => {
    const segments = key.split(':').filter(Boolean)
    // Keys are built by the repositories, never taken from a URL; refuse anything that could
    // still escape the data dir rather than trusting that.
    if (segments.some((s) => s === '.' || s === '..' || s === TMP_DIR || s.includes(sep) || s.includes('\0'))) {
      throw new Error(`Refusing unsafe storage key: ${key}`)
    }
    return join(root, ...segments)
  }

  /**
   * Makes a folder's entries durable. A folder that is gone was emptied and removed by a
   * concurrent removeItem (deletions run in parallel): nothing in it is left to make durable.
   */
  /**
   * Makes a folder's entries durable, sharing fsyncs between writers: a caller joins the next
   * fsync of the folder that starts after it asked (one already running may have begun before
   * its entry existed). Fifty versions of one folio writing their index markers at once cost
   * two fsyncs of its blobs folder, not fifty.
   */
  const dirSyncs = new Map<string, { running: Promise<void>; next?: Promise<void> }>()
  const syncDir = (dir: string): Promise<void> => {
    const current = dirSyncs.get(dir)
    if (current) return (current.next ??= current.running.then(() => startSync(dir)))
    return startSync(dir)
  }
  const startSync = (dir: string): Promise<void> => {
    const running = syncDirNow(dir)
    const entry = { running: running.catch(() => {}) }
    dirSyncs.set(dir, entry)
    void entry.running.then(() => {
      if (dirSyncs.get(dir) === entry) dirSyncs.delete(dir)
    })
    return running
  }

  const syncDirNow = async (dir: string) => {
    let fd: number
    try {
      fd = await openFile(dir, 'r')
    } catch (error) {
      if (isCode(error, 'ENOENT')) return
      throw error
    }
    try {
      await syncFile(fd)
    } finally {
      await closeFile(fd)
    }
  }

  /** The temp dir is ours alone: whatever a crash left there is garbage. */
  const init = () =>
    (ready ??= (async () => {
      await rm(tmpRoot, { recursive: true, force: true })
      await mkdir(tmpRoot, { recursive: true, mode: 0o700 })
    })())

  /** Runs `place` (which puts a file at `target`), creating the parent folder when it is missing. */
  const inFolder = async (target: string, place: () => Promise<void>) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await place()
        return
      } catch (error) {
        if (!isCode(error, 'ENOENT') || attempt === 5) throw error
        // The parent folder does not exist yet (or was just removed as empty): create it, make
        // its entry durable in its own parent, and try again.
        const created = await mkdir(dirname(target), { recursive: true, mode: 0o700 })
        if (created) await syncDir(dirname(created))
      }
    }
  }

  const writeDurable = async (key: string, data: string | Uint8Array) => {
    await init()
    const target = pathOf(key)
    if (data.length === 0) {
      // A marker (a reference, an index entry): an empty file is whole the moment it exists, so
      // it is created in place, and the folder's fsync makes its entry durable. Half the disk
      // flushes of a temp file, and markers come several per version.
      await inFolder(target, async () => closeFile(await openFile(target, 'w', 0o600)))
      await syncDir(dirname(target))
      return
    }
    const tmp = join(tmpRoot, `${process.pid}-${++tmpCounter}`)
    // Folio data holds access keys and the server's secrets: readable by its owner only.
    const fd = await openFile(tmp, 'w', 0o600)
    try {
      await writeAll(fd, data)
      await syncFile(fd)
    } finally {
      await closeFile(fd)
    }
    await inFolder(target, () => rename(tmp, target))
    await syncDir(dirname(target))
  }

  const walk = async (dir: string, prefix: string, out: string[]) => {
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return
      throw error
    }
    for (const entry of entries) {
      if (entry.name === TMP_DIR) continue
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
      try {
        return await readFile(pathOf(key), 'utf8')
      } catch (error) {
        if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return null
        throw error
      }
    },
    async getItemRaw(key) {
      try {
        return await readFile(pathOf(key))
      } catch (error) {
        if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return null
        throw error
      }
    },
    async setItem(key, value) {
      await writeDurable(key, value)
    },
    async setItemRaw(key, value) {
      await writeDurable(key, value as Uint8Array)
    },
    async removeItem(key, opts) {
      const path = pathOf(key)
      try {
        await unlink(path)
      } catch (error) {
        if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return
        throw error
      }
      const dir = dirname(path)
      // Reclaiming space (`{ lazy: true }`) skips the directory fsync: a removal a crash undoes
      // only leaves a file that is reclaimed later, never a wrong answer. It leaves the folder
      // too: those are blob and reference shards (256 of each at most), or a folio's own
      // folders (gone with the folio), and a failed rmdir costs an exception per removal.
      if ((opts as RemoveOptions | undefined)?.lazy) return
      await syncDir(dir)
      // Empty folders (a workspace's, say) would pile up forever.
      if (dir !== root) await rmdir(dir).catch(() => {})
    },
    async getMeta(key) {
      try {
        const info = await stat(pathOf(key))
        return { mtime: info.mtime, size: info.size }
      } catch (error) {
        if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return null
        throw error
      }
    },
    async getKeys(base) {
      const out: string[] = []
      const prefix = (base ?? '').split(':').filter(Boolean).join(':')
      await walk(prefix ? pathOf(prefix) : root, prefix, out)
      return out
    },
    async clear(base) {
      const prefix = (base ?? '').split(':').filter(Boolean).join(':')
      if (!prefix) throw new Error('Refusing to clear the whole data dir')
      await rm(pathOf(prefix), { recursive: true, force: true })
      await syncDir(dirname(pathOf(prefix))).catch(() => {})
    },
  }
})
