import { close, fdatasync, fsync, open as openFd } from 'node:fs'
import { promisify } from 'node:util'

/*
 * File-descriptor calls for the durable driver and its journal. Not fs/promises' FileHandle: a
 * FileHandle is an event emitter made transferable to workers, and a version writes several
 * files; these are the plain libuv calls.
 */
export const openFile = promisify(openFd)
export const closeFile = promisify(close)
export const syncFile = promisify(fsync)
export const syncData = promisify(fdatasync)

export function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code
}

/**
 * fsync of a file or folder by path. One that is gone needs none: it was removed (a removal is
 * made durable by its folder's fsync) or, for a folder, emptied and removed.
 */
export async function syncPath(path: string): Promise<void> {
  let fd: number
  try {
    fd = await openFile(path, 'r')
  } catch (error) {
    if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return
    throw error
  }
  try {
    await syncFile(fd)
  } finally {
    await closeFile(fd)
  }
}
