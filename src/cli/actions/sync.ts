import { stat } from 'node:fs/promises'
import type { Command } from 'commander'
import { bytes } from '../../terminal/format.js'
import { type CliContext, withContext } from '../context.js'
import { CliError, UsageError } from '../errors.js'
import { catchUp, conflictMessage, pulledMessage } from '../sync/catch-up.js'
import { FolderRecord } from '../sync/folder-record.js'
import { type IgnoreTest, loadIgnore } from '../sync/local-files.js'
import { MadeElsewhereError } from '../sync/made-elsewhere.js'
import type { NotPushed } from '../sync/not-pushed.js'
import { followVersions } from '../sync/remote-versions.js'
import { compareSides } from '../sync/sides.js'
import { linkAfterPush, syncFolder } from '../sync-folder.js'
import { SyncEngine, type SyncOutcome, type SyncPlan } from '../sync/sync-engine.js'
import { type WatchEvent, watchFolder } from '../sync/watcher.js'

/** Ctrl+C under --watch pushes what is left, waiting at most this long for the server. */
const FINAL_PUSH_TIMEOUT_MS = 10_000
/** The exit code of a watch stopped by Ctrl+C with something not pushed (128 + SIGINT, as shells have it). */
const STOPPED_UNPUSHED = 130

/** The options commands/sync.ts defines, as commander hands them over. */
export interface SyncOptions {
  watch?: boolean
  message?: string
  debounce: string
  mirror?: boolean
  allowEmpty?: boolean
  dryRun?: boolean
  force?: boolean
}

/** What both sides changed: exit 1, `{error: 'conflict'}` with --json. */
const conflictError = (message: string) => new CliError(message, 1, 'conflict')

export default (first: string | undefined, second: string | undefined, options: SyncOptions, command: Command) =>
  withContext(command, async (ctx) => {
    const where = await syncFolder(ctx, first, second)
    const { id, dir, root } = where
    const debounceMs = Number(options.debounce)
    if (!Number.isInteger(debounceMs) || debounceMs < 0) throw new UsageError('--debounce takes a whole number of milliseconds.')
    if (options.dryRun && options.watch) throw new UsageError('--dry-run shows what one sync would do; it does not go with --watch.')
    if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new CliError(`${dir} is not a folder.`)
    const ignored = await loadIgnore(root)
    const record = await FolderRecord.open({ server: ctx.server, id, root })
    const engine = new SyncEngine({
      client: ctx.client,
      id,
      root,
      ignored,
      message: options.message,
      record,
      deletions: options.mirror ? 'mirror' : 'known',
      allowEmpty: options.allowEmpty,
      // The watcher never lets a push too big for one request hold back every later one.
      partial: options.watch,
      // A version made elsewhere stops a sync (pull or conflict) unless --force makes the folder win.
      elsewhere: options.force ? 'reread' : 'stop',
      // Forced past a version made elsewhere: a line in the watcher's stream; a note before a one-off sync's result.
      onElsewhere: (event) => (options.watch ? report(ctx, event) : ctx.note(event.message)),
    })
    const behind = (found: MadeElsewhereError) => reportBehind(ctx, found, { id, dir, root, ignored, record })
    if (options.dryRun) {
      const plan = await engine.plan().catch(async (error: unknown) => (error instanceof MadeElsewhereError ? await behind(error) : Promise.reject(error)))
      if (plan) ctx.print({ event: 'plan', ...plan }, () => describePlan(plan))
      return
    }
    if (!options.watch) {
      const outcome = await engine
        .syncAll()
        .catch(async (error: unknown) => (error instanceof MadeElsewhereError ? await behind(error) : Promise.reject(error)))
      if (!outcome) return
      ctx.print({ event: 'synced', ...outcome }, () => describe(outcome))
      await linkAfterPush(ctx, where)
      // Everything else went; what did not is an error (exit 1), never a silent skip.
      if (outcome.notPushed.length) throw new CliError(`Not pushed: ${notPushedSummary(outcome.notPushed)}. Everything else is in ${outcome.versionId}.`)
      return
    }
    const parts = { client: ctx.client, id, root, record, engine }
    await watchUntilStopped(
      ctx,
      engine,
      { id, dir, root, debounceMs, force: Boolean(options.force) },
      (found, rules) => catchUp({ ...parts, ignored: rules }, found),
      () => linkAfterPush(ctx, where),
    )
  })

/**
 * A one-off sync found a version made elsewhere since the folder's last sync. The folder changed
 * nothing of its own: nothing to push, and `folio pull` brings that version in (exit 0). Else
 * both sides changed: refused with the conflicting files and the two ways out (exit 1). A sync
 * never writes into the folder: only pull and the watcher do.
 */
async function reportBehind(
  ctx: CliContext,
  found: MadeElsewhereError,
  where: { id: string; dir: string; root: string; ignored: IgnoreTest; record: FolderRecord },
): Promise<undefined> {
  const sides = await compareSides(where.root, where.ignored, where.record, found.base.files, found.latest.files)
  const versionId = found.latest.versionId
  if (sides.local.length > 0) throw conflictError(conflictMessage({ versionId, summary: found.event.summary, ...sides }, where))
  const message = `${found.event.summary}; the folder has no changes of its own, so nothing was pushed. folio pull ${where.id} ${where.dir} writes ${versionId}'s files into the folder.`
  ctx.print(
    { event: 'behind', versionId, after: found.base.versionId, changed: false, remote: sides.remote, versions: found.event.versions, message },
    () => message,
  )
  return undefined
}

const listed = (paths: string[], max = 10) => (paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`)

const KEPT_NOTE = 'they did not come from this folder (e.g. folio upload); --mirror deletes them'

function describe(o: SyncOutcome): string {
  const lines: string[] = []
  if (!o.changed) lines.push(`Up to date (${o.versionId})`)
  else {
    const parts = [o.added && `${o.added} added`, o.updated && `${o.updated} changed`, o.deleted && `${o.deleted} deleted`].filter(Boolean).join(', ')
    const names = o.paths.length <= 4 ? `: ${o.paths.join(', ')}` : ''
    lines.push(`${o.versionId} ← ${parts} (${bytes(o.bytesSent)})${names}`)
  }
  if (o.deletedPaths.length) lines.push(`  deleted from the folio: ${listed(o.deletedPaths)}`)
  if (o.kept.length) lines.push(`  kept ${o.kept.length} file(s) the folder does not have: ${listed(o.kept)} (${KEPT_NOTE})`)
  for (const left of o.notPushed) lines.push(`  not pushed: ${left.message}`)
  return lines.join('\n')
}

/** "secret.html (cannot read it), big.mp4 (too big for one push)": the error line's list. */
const notPushedSummary = (left: NotPushed[]) =>
  listed(
    left.map(
      (l) =>
        `${l.path} (${l.problem === 'unreadable' ? `cannot read it: ${l.reason}` : l.problem === 'too-big' ? 'too big for one push' : 'no room in the last push'})`,
    ),
  )

function describePlan(plan: SyncPlan): string {
  const rows: Array<[string, string[]]> = [
    ['add', plan.added],
    ['change', plan.updated],
    ['delete', plan.deleted],
  ]
  const lines = rows.filter(([, paths]) => paths.length).map(([verb, paths]) => `  would ${verb} ${paths.length}: ${listed(paths)}`)
  if (plan.kept.length) lines.push(`  would keep ${plan.kept.length} the folder does not have: ${listed(plan.kept)} (${KEPT_NOTE})`)
  for (const left of plan.notPushed) lines.push(`  would not push: ${left.message}`)
  const changes = plan.added.length + plan.updated.length + plan.deleted.length
  return [changes === 0 ? `Dry run against ${plan.versionId}: nothing would change` : `Dry run against ${plan.versionId} (nothing sent):`, ...lines].join('\n')
}

const queued = (e: { queued: number; fullSync: boolean }) =>
  e.fullSync ? `a sync of the whole folder${e.queued ? ` and ${e.queued} change(s)` : ''}` : `${e.queued} change(s)`

function report(ctx: CliContext, event: WatchEvent): void {
  switch (event.event) {
    case 'synced':
      return ctx.print({ event: 'synced', latencyMs: event.latencyMs, ...event.outcome }, () => describe(event.outcome))
    case 'waiting':
      return ctx.print(event, () => `Server away at ${event.server}; ${queued(event)} queued, retrying in ${Math.round(event.retryInMs / 1000)} s`)
    case 'online':
      return ctx.print(
        event,
        () => `Back online, pushed ${event.pushed} change${event.pushed === 1 ? '' : 's'} (the server was away ${Math.round(event.awayMs / 1000)} s)`,
      )
    case 'elsewhere':
      return ctx.print(event, () => event.message)
    case 'unwatched':
      return ctx.print(event, () => `Cannot watch all of the folder (${event.reason}): saves there may go unseen until a whole-folder push; Ctrl+C makes one`)
    case 'failed':
      return ctx.print(event, () => `Push failed: ${event.reason} (${queued(event)} kept; the next save retries)`)
    case 'rules':
      return ctx.print(event, () => `${event.file} changed: rules reloaded, comparing the whole folder again`)
    case 'pulled':
      return ctx.print(event, () => pulledMessage(event))
    case 'conflict':
      return // watchUntilStopped says it, as the error the command ends with
  }
}

type CatchUp = Parameters<typeof watchFolder>[2]['catchUp']

async function watchUntilStopped(
  ctx: CliContext,
  engine: SyncEngine,
  where: { id: string; dir: string; root: string; debounceMs: number; force: boolean },
  catchUp: CatchUp,
  linked: () => Promise<void>,
): Promise<void> {
  let conflict: ((message: string) => void) | undefined
  let conflicted: string | undefined
  const onEvent = (event: WatchEvent) => {
    report(ctx, event)
    if (event.event !== 'conflict') return
    conflicted = conflictMessage(event, where)
    // Scripts get the lists as a line of the stream; the words are the error the command ends with (stderr).
    if (ctx.json) ctx.print({ ...event, message: conflicted }, () => '')
    conflict?.(conflicted)
  }
  // A version made elsewhere found by the final push on Ctrl+C: named with the two ways out.
  const describeError = (error: unknown) =>
    error instanceof MadeElsewhereError
      ? `${error.event.summary}: nothing pushed. folio pull ${where.id} ${where.dir} takes its files; folio sync ${where.id} ${where.dir} --force makes the folder win.`
      : ctx.describe(error)
  const watcher = await watchFolder(engine, where.root, { debounceMs: where.debounceMs, onEvent, describeError, catchUp })
  // The first push is the whole folder. The server being away queues it (and says so); a wrong
  // id or key, a folder too big for one request, an empty folder: those end the command here.
  try {
    await watcher.pushAll()
  } catch (error) {
    await watcher.stop()
    throw error
  }
  if (conflicted !== undefined) {
    await watcher.stop()
    throw conflictError(conflicted)
  }
  // --force made the folder win its first push; from now on versions made elsewhere are pulled, or stop the watch.
  if (where.force) engine.elsewhere = 'stop'
  await linked()
  // Versions made elsewhere are heard within about a second, not at the next save.
  const live = followVersions(ctx.client, where.id, () => watcher.checkRemote())
  ctx.print({ event: 'watching', dir: where.root }, () => `Watching ${where.root}: every save is pushed, versions made elsewhere are pulled. Ctrl+C to stop.`)
  const stopped = await new Promise<{ signal: string } | { conflict: string }>((done) => {
    const stop = (name: string) => {
      // Removed at once: a second Ctrl+C gets Node's default and quits without the last push.
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      done({ signal: name })
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
    conflict = (message) => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      done({ conflict: message })
    }
  })
  live.close()
  if ('conflict' in stopped) {
    // Both sides changed: the watcher pushed nothing more; the author picks a side.
    await watcher.stop()
    throw conflictError(stopped.conflict)
  }
  const { signal } = stopped
  ctx.note(`${signal}: pushing anything not pushed yet (at most ${FINAL_PUSH_TIMEOUT_MS / 1000} s; Ctrl+C again to quit without it)…`)
  const final = await watcher.finish({ timeoutMs: FINAL_PUSH_TIMEOUT_MS })
  // Exit 0 only when the folio holds the folder; 130 (stopped by Ctrl+C) when something did not go.
  if (final.pushed) {
    if (final.outcome.changed) report(ctx, { event: 'synced', outcome: final.outcome, latencyMs: 0 })
    if (final.outcome.notPushed.length === 0) return ctx.note('Stopped; everything is pushed.')
    throw new CliError(
      `Stopped with files not pushed: ${notPushedSummary(final.outcome.notPushed)}. Everything else is in ${final.outcome.versionId}.`,
      STOPPED_UNPUSHED,
    )
  }
  const what = final.unpushed ? listed(final.unpushed) : `the whole folder ${where.root} (the folio was never reached)`
  const next = final.away ? ` Push them with folio sync ${where.id} ${where.dir} once it is back.` : ''
  throw new CliError(`Stopped with changes not pushed: ${what}. ${final.reason}${next}`, STOPPED_UNPUSHED)
}
