import { lstat, readdir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'

export interface Usage {
  /** Sum of regular files' sizes: what the data would take with no filesystem overhead. */
  apparent: number
  /**
   * st_blocks × 512 over files and folders, as `du -s -B1` counts (`du -sb` would be apparent
   * size): what the disk really gives up. Small files and folders cost a whole block (4 KB on
   * ext4) each, so many tiny files weigh far more here than in `apparent`.
   */
  allocated: number
  files: number
  dirs: number
}

export interface DiskUsage extends Usage {
  /** The same figures per area of the data dir (blobs, refs, folios/*\/versions, …). */
  byArea: Record<string, Usage>
}

const empty = (): Usage => ({ apparent: 0, allocated: 0, files: 0, dirs: 0 })

/** folios/<id>/versions/v3.json → folios/*\/versions: one line per kind of key, not per folio. */
function areaOf(rel: string): string {
  const parts = rel.split(sep)
  if (parts[0] === 'folios' && parts.length > 2) return `folios/*/${parts[2]}`
  if (parts[0] === 'folios') return 'folios'
  return parts.length > 1 || parts[0] === 'blobs' || parts[0] === 'refs' ? parts[0]! : '(top)'
}

export async function diskUsage(root: string): Promise<DiskUsage> {
  const usage: DiskUsage = { ...empty(), byArea: {} }
  const walk = async (path: string) => {
    // A running server's temp files come and go while we walk (a write renaming its temp file).
    const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    })
    if (!info) return
    const area = (usage.byArea[areaOf(relative(root, path) || '.')] ??= empty())
    for (const u of [usage, area]) u.allocated += info.blocks * 512
    if (info.isDirectory()) {
      usage.dirs++
      area.dirs++
      for (const name of await readdir(path).catch(() => [])) await walk(join(path, name))
    } else if (info.isFile()) {
      for (const u of [usage, area]) {
        u.files++
        u.apparent += info.size
      }
    }
  }
  await walk(root)
  return usage
}

/** after − before, per area: where the growth went. */
export function growthByArea(before: DiskUsage, after: DiskUsage): Array<[string, Usage]> {
  return Object.entries(after.byArea)
    .map(([area, a]): [string, Usage] => {
      const b = before.byArea[area] ?? empty()
      return [area, { apparent: a.apparent - b.apparent, allocated: a.allocated - b.allocated, files: a.files - b.files, dirs: a.dirs - b.dirs }]
    })
    .filter(([, g]) => g.allocated || g.apparent || g.files || g.dirs)
    .sort((x, y) => y[1].allocated - x[1].allocated)
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`
