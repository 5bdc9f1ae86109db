import { watch } from 'chokidar'
import { ServerUnreachableError } from '../../client/index.js'
import { loadIgnore, toFolioPath } from './local-files.js'
import type { SyncEngine, SyncOutcome } from './sync-engine.js'

export type WatchEvent =
  | { event: 'synced'; outcome: SyncOutcome; latencyMs: number }
  | { event: 'waiting'; reason: string; retryInMs: number; queued: number }
  | { event: 'failed'; reason: string; queued: number }

export interface WatchOptions {
  /** A burst of saves within this window becomes one version. */
  debounceMs?: number
  maxRetryMs?: number
  onEvent: (event: WatchEvent) => void
}

/**
 * Watches a folder and pushes every save. Changes gather in a dirty set; after a quiet moment
 * the set is pushed as one version. When the server is away the set stays queued and pushes
 * retry with back-off (1 s, 2 s, 4 s … 30 s) until it answers again.
 */
export async function watchFolder(engine: SyncEngine, root: string, options: WatchOptions) {
  const debounceMs = options.debounceMs ?? 250
  const maxRetryMs = options.maxRetryMs ?? 30_000
  let ignored = await loadIgnore(root)
  const dirty = new Set<string>()
  let fullResync = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let retryMs = 1000
  let firstDirtyAt = 0
  let closed = false

  const schedule = (delay: number) => {
    if (closed) return
    clearTimeout(timer)
    timer = setTimeout(() => void flush(), delay)
  }

  const flush = async () => {
    if (running) return void (await running)
    if (dirty.size === 0 && !fullResync) return
    const paths = new Set(dirty)
    const full = fullResync
    dirty.clear()
    fullResync = false
    const startedAt = firstDirtyAt
    running = (async () => {
      try {
        const outcome = full ? await engine.syncAll() : await engine.syncPaths(paths)
        retryMs = 1000
        firstDirtyAt = 0
        options.onEvent({ event: 'synced', outcome, latencyMs: Date.now() - startedAt })
      } catch (error) {
        // Nothing is lost: the paths go back in the queue for the next attempt.
        for (const p of paths) dirty.add(p)
        fullResync ||= full
        if (error instanceof ServerUnreachableError) {
          options.onEvent({ event: 'waiting', reason: error.message, retryInMs: retryMs, queued: dirty.size })
          schedule(retryMs)
          retryMs = Math.min(retryMs * 2, maxRetryMs)
        } else {
          options.onEvent({ event: 'failed', reason: (error as Error).message, queued: dirty.size })
        }
      } finally {
        running = undefined
      }
      if ((dirty.size > 0 || fullResync) && retryMs === 1000) schedule(debounceMs)
    })()
    await running
  }

  const watcher = watch(root, {
    ignoreInitial: true,
    // chokidar 5 ignores glob strings silently: a function it is.
    ignored: (path, stats) => {
      const rel = toFolioPath(root, path)
      return rel !== '' && !rel.startsWith('..') && ignored(rel, stats?.isDirectory())
    },
  })
  const touched = async (path: string) => {
    const rel = toFolioPath(root, path)
    if (rel === '.gitignore' || rel === '.folioignore') {
      ignored = await loadIgnore(root)
      engine.ignored = ignored
      fullResync = true
    } else {
      dirty.add(rel)
    }
    firstDirtyAt ||= Date.now()
    if (retryMs === 1000) schedule(debounceMs) // while the server is away, the back-off timer decides
  }
  for (const event of ['add', 'change', 'unlink', 'unlinkDir'] as const) watcher.on(event, (path: string) => void touched(path))
  await new Promise<void>((resolve, reject) => {
    watcher.once('ready', resolve)
    watcher.once('error', reject)
  })

  return {
    /** Pushes what is pending (once), then stops watching. */
    async close(): Promise<void> {
      closed = true
      clearTimeout(timer)
      await watcher.close()
      if (running) await running
    },
    pending: () => dirty.size,
  }
}
