import { close, fdatasync, fsync, open as openFd, writev } from 'node:fs'
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
const writeSomeV = (fd: number, buffers: Uint8Array[]) =>
  new Promise<number>((resolve, reject) => writev(fd, buffers, (error, written) => (error ? reject(error) : resolve(written))))

export function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code
}

/** Writes buffers in order at the file's position: one writev call, usually. */
export async function writeAllV(fd: number, buffers: Uint8Array[]): Promise<void> {
  let rest = buffers.filter((b) => b.length > 0)
  while (rest.length) {
    let written = await writeSomeV(fd, rest.slice(0, 1024))
    while (rest.length && written >= rest[0]!.length) written -= rest.shift()!.length
    if (written > 0) rest[0] = rest[0]!.subarray(written)
  }
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
