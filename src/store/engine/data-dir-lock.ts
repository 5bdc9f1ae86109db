import { open, readFile, unlink } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * One server per data dir: the per-folio locks live in memory, so a second process writing
 * the same files could lose updates. A lock file holds the owner's pid; a lock whose process
 * is gone (a crash, kill -9) is taken over.
 */
/** The lock's file in the data dir: the pid of the process using it. */
export const LOCK_FILE = 'folio.lock'

export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`Another folio server (pid ${pid}) is using ${dataDir}. Stop it, or start this one with --data pointing elsewhere.`)
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, LOCK_FILE)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600)
      await handle.writeFile(String(process.pid))
      await handle.sync()
      await handle.close()
      return async () => {
        await unlink(path).catch(() => {})
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim())
      if (pid === process.pid) throw new DataDirBusyError(dataDir, pid)
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) throw new DataDirBusyError(dataDir, pid)
      await unlink(path).catch(() => {})
    }
  }
  throw new Error(`Could not take the lock on ${dataDir}`)
}
