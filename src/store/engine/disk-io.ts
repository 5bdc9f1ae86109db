import { type Dirent, readFileSync, readdirSync, statSync, statfs as statfsCb, writeSync as fsWriteSync, writev as fsWritev } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const statfs = promisify(statfsCb)

/**
 * The calls through which the durable driver and its journal put bytes on the disk, and ask how
 * much room is left: the real ones, or (tests only) a disk of a given size (faultyDisk below),
 * which answers ENOSPC as a full file system does, through the same code paths.
 */
export interface DiskIo {
  /** Writes some of `buffers` at `position` of the file; resolves with how many bytes it wrote. */
  writev(fd: number, buffers: Uint8Array[], position: number): Promise<number>
  /** Writes some of `data` (from `offset`, `length` bytes) at the file's position; returns how many it wrote. */
  writeSync(fd: number, data: Uint8Array, offset: number, length: number): number
  /** Bytes an unprivileged writer may still put in the file system holding `path`. */
  freeBytes(path: string): Promise<number>
}

export const realDisk: DiskIo = {
  writev: (fd, buffers, position) =>
    new Promise((resolve, reject) => fsWritev(fd, buffers, position, (error, written) => (error ? reject(error) : resolve(written)))),
  writeSync: (fd, data, offset, length) => fsWriteSync(fd, data, offset, length),
  async freeBytes(path) {
    const info = await statfs(path)
    return info.bavail * info.bsize
  },
}

/** A write refused for lack of room: the file system is full (ENOSPC) or the user's quota is (EDQUOT). */
export function isNoSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code
  return code === 'ENOSPC' || code === 'EDQUOT'
}

/** The error a full file system gives, as node raises it. */
export function noSpaceError(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}`), { code: 'ENOSPC', errno: -28, syscall })
}

/**
 * TEST SEAM, never for production. FOLIO_TEST_DISK_BUDGET_FILE names a file holding a number of
 * bytes: the size of a pretend disk holding the data dir. Writes through the driver and its
 * journal fail with a real ENOSPC error (a write that does not fit is cut short first, as a full
 * file system does) once the data dir's files take that much; a test "frees space" by writing a
 * larger number into the file (it is read again at every write) and "restarts on the still-full
 * disk" by killing the server and starting it again with the same variable. Read once, when a
 * driver is made (at start): tests of disk-full behaviour (test/disk-full.test.ts) run a real
 * `folio serve` without root and without mounting a small file system.
 */
export const TEST_DISK_BUDGET_ENV = 'FOLIO_TEST_DISK_BUDGET_FILE'

/** The disk the driver on `root` writes through: the real one, unless a test set TEST_DISK_BUDGET_ENV. */
export function diskFor(root: string): DiskIo {
  const budgetFile = process.env[TEST_DISK_BUDGET_ENV]
  return budgetFile ? faultyDisk(root, () => Number(readFileSync(budgetFile, 'utf8').trim())) : realDisk
}

/**
 * A disk of `budget()` bytes holding `root` (the apparent sizes of its files count: a test data
 * dir is small enough to walk at every write). Unlinks and truncations free room, as they do.
 */
export function faultyDisk(root: string, budget: () => number): DiskIo {
  const free = () => Math.max(0, budget() - used(root))
  const fit = (wanted: number, syscall: string) => {
    const room = free()
    if (room === 0 && wanted > 0) throw noSpaceError(syscall)
    return Math.min(room, wanted)
  }
  return {
    async writev(fd, buffers, position) {
      const wanted = buffers.reduce((sum, b) => sum + b.length, 0)
      const room = fit(wanted, 'write')
      if (room === wanted) return realDisk.writev(fd, buffers, position)
      // Cut short where the room ends: the rest of the record is missing, as on a full disk.
      const parts: Uint8Array[] = []
      for (let left = room, i = 0; left > 0; i++) {
        const part = buffers[i]!.subarray(0, left)
        parts.push(part)
        left -= part.length
      }
      return realDisk.writev(fd, parts, position)
    },
    writeSync(fd, data, offset, length) {
      return realDisk.writeSync(fd, data, offset, fit(length, 'write'))
    },
    async freeBytes() {
      return free()
    },
  }
}

/** The apparent size of the files under `dir`. */
function used(dir: string): number {
  let total = 0
  let entries: Dirent[]
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += used(path)
    else if (entry.isFile()) total += statSync(path, { throwIfNoEntry: false })?.size ?? 0
  }
  return total
}

/** Writes buffers in order at `position` of the file (one writev call, usually), through `disk`. */
export async function writeAllAt(disk: DiskIo, fd: number, buffers: Uint8Array[], position: number): Promise<void> {
  const rest = buffers.filter((b) => b.length > 0)
  let at = position
  while (rest.length) {
    let written = await disk.writev(fd, rest.slice(0, 1024), at)
    at += written
    while (rest.length && written >= rest[0]!.length) written -= rest.shift()!.length
    if (written > 0) rest[0] = rest[0]!.subarray(written)
  }
}
