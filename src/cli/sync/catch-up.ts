import type { FolioClient } from '../../client/index.js'
import type { FolderRecord } from './folder-record.js'
import { fetchFolioFiles, hashesOf } from './folio-files.js'
import type { IgnoreTest } from './local-files.js'
import type { MadeElsewhereError } from './made-elsewhere.js'
import { applyPull, planPull, recordPull, type Removed } from './pull-folder.js'
import { compareSides, type Sides } from './sides.js'
import type { SyncEngine } from './sync-engine.js'

/** The watcher brought a version made elsewhere into the folder (it had nothing unpushed). */
export interface Pulled {
  event: 'pulled'
  versionId: string
  /** The version the folder held before. */
  after: string
  written: string[]
  removed: Removed[]
  kept: Array<{ path: string; reason: string }>
  /** "v6 was made elsewhere (restore of v1 by ann)". */
  summary: string
}

/** A version made elsewhere while the folder had unpushed changes: the watcher stops pushing. */
export interface Conflict extends Sides {
  event: 'conflict'
  versionId: string
  after: string
  summary: string
}

export interface CatchUpParts {
  client: FolioClient
  id: string
  root: string
  ignored: IgnoreTest
  record: FolderRecord
  engine: SyncEngine
}

/**
 * What the watcher does about a version made elsewhere: when the folder has no change of its
 * own since it last agreed with the folio, the version's files come into the folder (a pull) and
 * the watch goes on; else it is a conflict, and nothing is written or pushed.
 */
export async function catchUp(parts: CatchUpParts, found: MadeElsewhereError): Promise<Pulled | Conflict> {
  const { client, id, root, ignored, record, engine } = parts
  // The files themselves, not only the manifest: another version may have come since, and the
  // pull must write what it compared against.
  const target = await fetchFolioFiles(client, id)
  const latest = { versionId: target.versionId, files: hashesOf(target.files) }
  const sides = await compareSides(root, ignored, record, found.base.files, latest.files)
  const { summary } = found.event
  if (sides.local.length > 0) return { event: 'conflict', versionId: latest.versionId, after: found.base.versionId, summary, ...sides }
  const plan = await planPull(root, ignored, record, target, found.base)
  // Nothing of the folder's own differs from the folio's, so every overwrite is of bytes the
  // history holds; `overwrites` lists only files the folder changed, and there are none.
  await applyPull(root, target, plan)
  await recordPull(root, ignored, record, latest, [latest.files])
  engine.adopt(latest)
  return { event: 'pulled', versionId: latest.versionId, after: found.base.versionId, written: plan.write, removed: plan.remove, kept: plan.kept, summary }
}

/** The words of a conflict, and the two ways out (where: how the author names the folio and the folder). */
export function conflictMessage(c: Pick<Conflict, 'versionId' | 'summary' | 'local' | 'remote' | 'conflicts'>, where: { id: string; dir: string }): string {
  const list = (paths: string[]) => (paths.length <= 8 ? paths.join(', ') : `${paths.slice(0, 8).join(', ')} and ${paths.length - 8} more`)
  const onlyHere = c.local.filter((p) => !c.conflicts.includes(p))
  const onlyThere = c.remote.filter((p) => !c.conflicts.includes(p))
  const parts = [
    `${c.summary}, while this folder has changes not pushed: nothing was pushed.`,
    c.conflicts.length ? `Changed on both sides: ${list(c.conflicts)}.` : 'No file changed on both sides.',
    onlyHere.length ? `Changed only in the folder: ${list(onlyHere)}.` : '',
    onlyThere.length ? `Changed only in ${c.versionId}: ${list(onlyThere)}.` : '',
    c.conflicts.length
      ? `Either take the folio's files: folio pull ${where.id} ${where.dir} --force (it overwrites the folder's changes to the files changed on both sides; nothing else of the folder's is lost), or make the folder win: folio sync ${where.id} ${where.dir} --force (a new version from the folder; ${c.versionId} stays in the history).`
      : `Either take the folio's files: folio pull ${where.id} ${where.dir} (the folder's own changes stay; the next sync pushes them), or make the folder win: folio sync ${where.id} ${where.dir} --force (a new version from the folder; ${c.versionId} stays in the history).`,
  ]
  return parts.filter(Boolean).join(' ')
}

/** "v6 was made elsewhere (…): pulled into the folder: 2 written (a.html, b.css); removed c.js (it is in v5)". */
export function pulledMessage(p: Pulled): string {
  const parts = [`${p.summary}: pulled it into the folder`]
  if (p.written.length) parts.push(`wrote ${p.written.join(', ')}`)
  for (const r of p.removed) parts.push(`removed ${r.path} (it is in ${r.inVersion ?? 'an earlier version'})`)
  for (const k of p.kept) parts.push(`kept ${k.path} (${k.reason})`)
  if (p.written.length + p.removed.length === 0) parts.push('the folder already held it')
  return parts.join('; ')
}
