import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'

export interface DiskUsage {
  /** Sum of regular files' sizes: what the data would take with no filesystem overhead. */
  apparent: number
  /**
   * st_blocks × 512 over files and folders, as `du -s -B1` counts: what the disk really gives
   * up. Small files and folders cost a whole block (4 KB on ext4) each, so many tiny files
   * weigh far more here than in `apparent`.
   */
  allocated: number
  files: number
  dirs: number
}

export async function diskUsage(root: string): Promise<DiskUsage> {
  const usage: DiskUsage = { apparent: 0, allocated: 0, files: 0, dirs: 0 }
  const walk = async (path: string) => {
    const info = await lstat(path)
    usage.allocated += info.blocks * 512
    if (info.isDirectory()) {
      usage.dirs++
      for (const name of await readdir(path)) await walk(join(path, name))
    } else if (info.isFile()) {
      usage.files++
      usage.apparent += info.size
    }
  }
  await walk(root)
  return usage
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`
