import type { Command } from 'commander'
import { type CliContext, withContext } from '../context.js'
import { CliError, UsageError } from '../errors.js'
import { FolderRecord } from '../sync/folder-record.js'
import { fetchFolioFiles, hashesOf, latestManifest } from '../sync/folio-files.js'
import { loadIgnore } from '../sync/local-files.js'
import { applyPull, type PullPlan, planPull, recordPull } from '../sync/pull-folder.js'
import { linkAfterPush, pullFolder, type SyncFolder } from '../sync-folder.js'
import { versionNumber } from '../../domain/ids.js'

export interface PullOptions {
  force?: boolean
  /** --at: a version other than the latest (--version is the program's own). */
  at?: string
}

const listed = (paths: string[], max = 10) => (paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`)

/** folio pull [id] [dir]: the folio's files into the folder. */
export default (first: string | undefined, second: string | undefined, options: PullOptions, command: Command) =>
  withContext(command, async (ctx) => {
    if (options.at !== undefined && versionNumber(options.at) === undefined)
      throw new UsageError(`--at takes a version id such as v2 (folio versions lists them), not ${options.at}.`)
    const where = await pullFolder(ctx, first, second)
    await pullInto(ctx, where, options)
  })

/**
 * Writes the latest version's files (or `at`'s) into the folder and prints what it did.
 * Refused, with nothing written (exit 1, `{error: 'conflict'}`), when it would overwrite bytes
 * of the folder that are in no version (its unpushed changes), unless `force`. A folder file
 * the version lacks is removed only when its bytes are in the folio's history; others are kept.
 * Afterwards the folder record agrees with the latest version, so a sync pushes only what the
 * folder changes from here (after --at vN: vN's files, as a new version, like a restore).
 */
export async function pullInto(ctx: CliContext, where: SyncFolder, options: PullOptions): Promise<PullPlan> {
  const { id, root } = where
  const ignored = await loadIgnore(root)
  const record = await FolderRecord.open({ server: ctx.server, id, root })
  const target = await fetchFolioFiles(ctx.client, id, options.at)
  const targetHashes = hashesOf(target.files)
  const latest = options.at ? await latestManifest(ctx.client, id) : { versionId: target.versionId, files: targetHashes }
  const before = record.versionId && record.base ? { versionId: record.versionId, files: record.base } : undefined
  const plan = await planPull(root, ignored, record, target, before)
  if (plan.overwrites.length && !options.force) {
    throw new CliError(
      `The folder has changes not pushed to ${listed(plan.overwrites)}; pulling ${target.versionId} would overwrite them. Nothing was written. Push them first (folio sync ${id} ${where.dir}; with --force when a version was made elsewhere), or pass --force to take the folio's files and lose those changes.`,
      1,
      'conflict',
    )
  }
  await applyPull(root, target, plan)
  await recordPull(root, ignored, record, latest, [latest.files, targetHashes])
  const result = {
    event: 'pulled',
    id,
    dir: root,
    versionId: target.versionId,
    latestVersionId: latest.versionId,
    written: plan.write,
    removed: plan.remove,
    kept: plan.kept,
  }
  ctx.print(result, () => describePull(plan, where.dir))
  await linkAfterPush(ctx, where)
  return plan
}

function describePull(plan: PullPlan, dir: string): string {
  if (plan.write.length + plan.remove.length === 0 && plan.kept.length === 0) return `${dir} already holds ${plan.versionId}`
  const lines = [`Pulled ${plan.versionId} into ${dir}: ${plan.write.length} written, ${plan.remove.length} removed, ${plan.kept.length} kept`]
  if (plan.write.length) lines.push(`  written: ${listed(plan.write)}`)
  for (const r of plan.remove) lines.push(`  removed ${r.path}: it is in ${r.inVersion ?? 'an earlier version'}`)
  for (const k of plan.kept) lines.push(`  kept ${k.path}: ${k.reason}`)
  return lines.join('\n')
}
