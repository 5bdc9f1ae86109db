import { mkdir, rename, unlink, writeFile } from 'node:fs/promises'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { type FolderRecord, short } from './folder-record.js'
import { type FolioVersionFiles, sha256Of } from './folio-files.js'
import { type IgnoreTest, readLocalFile, scanFolder } from './local-files.js'

/** A folder file the pulled version does not have, removed because its bytes are in the folio's history. */
export interface Removed {
  path: string
  /** The version that holds these bytes, when known (else an earlier version made from this folder). */
  inVersion?: string
}

/** What a pull writes, removes and leaves alone. */
export interface PullPlan {
  versionId: string
  /** Files of the version the folder lacks or holds other bytes of. */
  write: string[]
  remove: Removed[]
  /** Folder files left as they are, and why. */
  kept: Array<{ path: string; reason: string }>
  /** Files `write` would overwrite whose folder bytes are in no version: the folder's unpushed changes. */
  overwrites: string[]
}

/** The folio as the folder knew it before: its bytes there are in the history. */
export interface Before {
  versionId: string
  /** path → sha256 (full or short). */
  files: ReadonlyMap<string, string>
}

/**
 * Plans bringing a version's files into the folder. Nothing the folder holds is lost without
 * the author's say: a file is overwritten or removed only when its bytes are in the folio's
 * history (the version the folder knew before, or bytes the folder once pushed); otherwise an
 * overwrite is listed in `overwrites` (the caller refuses unless forced) and a removal is kept.
 */
export async function planPull(
  root: string,
  ignored: IgnoreTest,
  record: FolderRecord,
  target: FolioVersionFiles,
  before: Before | undefined,
): Promise<PullPlan> {
  const plan: PullPlan = { versionId: target.versionId, write: [], remove: [], kept: [], overwrites: [] }
  const inHistory = (path: string, sha256: string): Removed | undefined => {
    const was = before?.files.get(path)
    if (was !== undefined && short(was) === short(sha256)) return { path, inVersion: before!.versionId }
    return record.pushed(path, sha256) ? { path } : undefined
  }
  for (const [path, bytes] of [...target.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const reading = await readLocalFile(root, insideRoot(root, path))
    if (reading.kind === 'gone') plan.write.push(path)
    else if (reading.kind === 'folder') plan.kept.push({ path, reason: 'a folder stands where this file goes' })
    else if (reading.kind === 'unreadable') plan.kept.push({ path, reason: `cannot read it: ${reading.reason}` })
    else if (reading.file.sha256 !== sha256Of(bytes)) {
      plan.write.push(path)
      if (!inHistory(path, reading.file.sha256)) plan.overwrites.push(path)
    }
  }
  const scan = await scanFolder(root, ignored)
  for (const [path, file] of [...scan.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (target.files.has(path)) continue
    const removable = inHistory(path, file.sha256)
    if (removable) plan.remove.push(removable)
    else plan.kept.push({ path, reason: `not in ${target.versionId}, and these bytes are in no version` })
  }
  return plan
}

/**
 * Writes and removes what the plan says. Each file is written whole to a temporary name the
 * scanner and the watcher ignore (ending in ~), then renamed over the old one: a reader (an
 * editor, the watcher, a browser) never sees half a file.
 */
export async function applyPull(root: string, target: FolioVersionFiles, plan: PullPlan): Promise<void> {
  for (const path of plan.write) {
    const absolute = insideRoot(root, path)
    await mkdir(dirname(absolute), { recursive: true })
    const tmp = join(dirname(absolute), `.${basename(absolute)}.${process.pid}.folio-pull~`)
    await writeFile(tmp, target.files.get(path)!)
    await rename(tmp, absolute).catch(async (error: unknown) => {
      await unlink(tmp).catch(() => {})
      throw error
    })
  }
  for (const { path } of plan.remove) await unlink(insideRoot(root, path)).catch(() => {})
}

/** The server checks paths; a path that would leave the folder anyway is refused here too. */
function insideRoot(root: string, path: string): string {
  const absolute = resolve(root, path)
  if (!absolute.startsWith(`${resolve(root)}${sep}`)) throw new Error(`${path} is not a path inside ${root}`)
  return absolute
}

/**
 * After a pull: the folder agrees with `latest` (path → sha256). The record learns which files
 * the folder holds now, and that the bytes it holds of `inFolio` (each a version's files) are in
 * the folio's history, so a later pull may replace them.
 */
export async function recordPull(
  root: string,
  ignored: IgnoreTest,
  record: FolderRecord,
  latest: Before,
  inFolio: Array<ReadonlyMap<string, string>>,
): Promise<void> {
  const scan = await scanFolder(root, ignored)
  const present = [...scan.files.keys(), ...[...scan.unreadable.keys()].filter((p) => !p.endsWith('/'))]
  const known = [...scan.files].filter(([path, file]) => inFolio.some((files) => files.get(path) === file.sha256))
  await record.replace(
    present,
    known.map(([path, file]) => [path, file.sha256]),
    { versionId: latest.versionId, files: latest.files },
  )
}
