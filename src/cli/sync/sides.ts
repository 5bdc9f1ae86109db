import { type FolderRecord, short } from './folder-record.js'
import { type IgnoreTest, scanFolder, unreadableReason } from './local-files.js'

/**
 * What changed on each side since the folder and the folio last agreed (the base): the folder's
 * own unpushed changes, the changes of the versions made elsewhere, and the files changed on both
 * sides. A folder file that already equals the latest version is no change of the folder's (a pull
 * that already happened, or the same edit made on both sides).
 */
export interface Sides {
  /** The folder's changes not in the folio: added, edited, deleted (of files that came from it). */
  local: string[]
  /** The changes of the versions made elsewhere (base → latest). */
  remote: string[]
  /** Changed on both sides, differently: a pull overwrites the folder's, a forced sync the folio's. */
  conflicts: string[]
}

/** `base` and `latest`: path → sha256 (full or short: only the first 16 hex digits are compared). */
export async function compareSides(
  root: string,
  ignored: IgnoreTest,
  record: FolderRecord,
  base: ReadonlyMap<string, string>,
  latest: ReadonlyMap<string, string>,
): Promise<Sides> {
  const was = new Map([...base].map(([p, h]) => [p, short(h)]))
  const now = new Map([...latest].map(([p, h]) => [p, short(h)]))
  const scan = await scanFolder(root, ignored)
  const local = new Set<string>()
  for (const [path, file] of scan.files) {
    const hash = short(file.sha256)
    if (was.get(path) !== hash && now.get(path) !== hash) local.add(path)
  }
  for (const [path, hash] of was) {
    // Gone from the folder, and it came from there: the folder deleted it (unless the folio did too).
    if (scan.files.has(path) || unreadableReason(scan.unreadable, path) || !now.has(path)) continue
    if (record.cameFromFolder(path, hash)) local.add(path)
  }
  const remote = new Set<string>()
  for (const path of new Set([...was.keys(), ...now.keys()])) if (was.get(path) !== now.get(path)) remote.add(path)
  const sorted = (paths: Iterable<string>) => [...paths].sort()
  return { local: sorted(local), remote: sorted(remote), conflicts: sorted([...local].filter((p) => remote.has(p))) }
}
