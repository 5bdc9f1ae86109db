import { resolve } from 'node:path'
import type { Command } from 'commander'
import { ServerUnreachableError } from '../../client/index.js'
import type { SyncOptions } from '../commands/sync.js'
import { type CliContext, explain, withContext } from '../context.js'
import { CliError } from '../errors.js'
import { bytes } from '../format.js'
import { loadIgnore } from '../sync/local-files.js'
import { SyncEngine, type SyncOutcome } from '../sync/sync-engine.js'
import { type WatchEvent, watchFolder } from '../sync/watcher.js'

export default (id: string, dir: string, options: SyncOptions, command: Command) =>
  withContext(command, async (ctx) => {
    const root = resolve(dir)
    const debounceMs = Number(options.debounce)
    if (!Number.isInteger(debounceMs) || debounceMs < 0) throw new CliError('--debounce takes a whole number of milliseconds.')
    const engine = new SyncEngine({ client: ctx.client, id, root, ignored: await loadIgnore(root), message: options.message })
    if (!options.watch) {
      const outcome = await engine.syncAll().catch((error: Error) => {
        if (/is not a folder/.test(error.message)) throw new CliError(`${dir} is not a folder.`)
        return explain(error)
      })
      ctx.print({ event: 'synced', ...outcome }, () => describe(outcome))
      return
    }
    await watchUntilStopped(ctx, engine, root, debounceMs)
  })

function describe(o: SyncOutcome): string {
  if (!o.changed) return `Up to date (${o.versionId})`
  const parts = [o.added && `${o.added} added`, o.updated && `${o.updated} changed`, o.deleted && `${o.deleted} deleted`].filter(Boolean).join(', ')
  const names = o.paths.length <= 4 ? `: ${o.paths.join(', ')}` : ''
  return `${o.versionId} ← ${parts} (${bytes(o.bytesSent)})${names}`
}

async function watchUntilStopped(ctx: CliContext, engine: SyncEngine, root: string, debounceMs: number): Promise<void> {
  const report = (event: WatchEvent) => {
    if (event.event === 'synced') ctx.print({ event: 'synced', latencyMs: event.latencyMs, ...event.outcome }, () => describe(event.outcome))
    else if (event.event === 'waiting') ctx.print(event, () => `Server away; ${event.queued} change(s) queued, retrying in ${Math.round(event.retryInMs / 1000)} s`)
    else ctx.print(event, () => `Push failed: ${event.reason} (${event.queued} change(s) kept; the next save retries)`)
  }
  // The first full push; if the server is away the watcher's queue takes over from here.
  try {
    const outcome = await engine.syncAll()
    report({ event: 'synced', outcome, latencyMs: 0 })
  } catch (error) {
    if (!(error instanceof ServerUnreachableError)) explain(error)
  }
  const watcher = await watchFolder(engine, root, { debounceMs, onEvent: report })
  ctx.print({ event: 'watching', dir: root }, () => `Watching ${root}: every save is pushed. Ctrl+C to stop.`)
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      void watcher.close().then(done, done)
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}
