import type { Dirent } from 'node:fs'
import { chmod, lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Who may read the data dir. Its files hold the server's signing secret, its API key and, in
 * meta.json, private folios' access keys: they are the owner's alone (0600 files, 0700 folders;
 * the durable driver writes new ones so). A dir written by an older folio was 0644/0755.
 */
const OTHERS = 0o077

/** Every file and folder below `dir` closed to other users, once (data format 4); symlinks are left alone. */
export async function closeTree(dir: string): Promise<{ files: number; folders: number }> {
  const changed = { files: 0, folders: 0 }
  const walk = async (folder: string) => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) {
        if (await closeEntry(path, 0o700)) changed.folders++
        await walk(path)
      } else if (entry.isFile() && (await closeEntry(path, 0o600))) changed.files++
    }
  }
  await walk(dir)
  return changed
}

/** The files directly in `folder` closed to other users (the secrets: cheap enough for every start). */
export async function closeFiles(folder: string): Promise<void> {
  let entries: Dirent[]
  try {
    entries = await readdir(folder, { withFileTypes: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  for (const entry of entries) if (entry.isFile()) await closeEntry(join(folder, entry.name), 0o600)
}

/** Whether other users of this machine may list or enter `dir`. */
export async function openToOthers(dir: string): Promise<boolean> {
  return ((await lstat(dir)).mode & OTHERS) !== 0
}

async function closeEntry(path: string, mode: number): Promise<boolean> {
  const { mode: current } = await lstat(path)
  if ((current & OTHERS) === 0) return false
  await chmod(path, mode)
  return true
}
