import { type FSWatcher, watch } from 'chokidar'
import { ServerUnreachableError } from '../../client/index.js'
import type { Conflict, Pulled } from './catch-up.js'
import { type IgnoreTest, IGNORE_FILES, ioReason, loadIgnore, toFolioPath } from './local-files.js'
import { type MadeElsewhere, MadeElsewhereError } from './made-elsewhere.js'
import type { SyncEngine, SyncOutcome } from './sync-engine.js'

export type WatchEvent =
  | { event: 'synced'; outcome: SyncOutcome; latencyMs: number }
  /** The server went away: `queued` paths (and the whole folder when fullSync) wait; it is probed every retryInMs at most. */
  | { event: 'waiting'; reason: string; server: string; retryInMs: number; queued: number; fullSync: boolean }
  /** The first push after the server came back: `pushed` changes (paths) went, after `awayMs`. */
  | { event: 'online'; server: string; awayMs: number; pushed: number }
  /** The engine found a latest version it did not make and re-read the folder against it (--force's first push). */
  | MadeElsewhere
  /** A version made elsewhere, brought into the folder: it had nothing unpushed. */
  | Pulled
  /** A version made elsewhere while the folder had unpushed changes: the watch has stopped, nothing pushed. */
  | Conflict
  /** chokidar cannot watch part of the folder (too many watches…): saves there may go unseen until a whole-folder push. */
  | { event: 'unwatched'; reason: string }
  | { event: 'failed'; reason: string; queued: number; fullSync: boolean }
  /** .gitignore or .folioignore changed: the rules are reloaded and the whole folder compared again. */
  | { event: 'rules'; file: string }

export interface WatchOptions {
  /** A burst of saves within this window becomes one version. */
  debounceMs?: number
  /** While the server is away it is probed after 1 s, then every this many ms at most. */
  maxProbeMs?: number
  onEvent: (event: WatchEvent) => void
  /** Words for a failed push (a refused key, a folio that is gone); the error's message by default. */
  describeError?: (error: unknown) => string
  /** A version made elsewhere: pull it into the folder, or name the conflict (catch-up.ts). */
  catchUp: (found: MadeElsewhereError, ignored: IgnoreTest) => Promise<Pulled | Conflict>
}

/** How the last push on close went: pushed (or nothing to push), or what is left unpushed. */
export type FinalPush =
  | { pushed: true; outcome: SyncOutcome }
  /** unpushed: the paths that differ from the folio; undefined when the folio was never reached. */
  | { pushed: false; away: boolean; reason: string; unpushed: string[] | undefined }

const FIRST_PROBE_MS = 1000
/** A probe is one small request; a server that comes back is used within this long. */
const MAX_PROBE_MS = 2000
/** A probe that gets no answer in this long counts as the server still away. */
const PROBE_TIMEOUT_MS = 5000

/**
 * Watches a folder and pushes every save. Changes gather in a dirty set; after a quiet moment
 * the set is pushed as one version. When the server is away the set (or a whole-folder sync)
 * stays queued, and a cheap probe (one small request, after 1 s then every 2 s) watches for the
 * server's return: the queue goes as soon as it answers. Editing .gitignore or .folioignore
 * reloads the rules and compares the whole folder again. Files a push left out for lack of room
 * go in the next push, at once.
 */
export async function watchFolder(engine: SyncEngine, root: string, options: WatchOptions) {
  const debounceMs = options.debounceMs ?? 250
  const maxProbeMs = options.maxProbeMs ?? MAX_PROBE_MS
  const describeError = options.describeError ?? ((error: unknown) => (error as Error).message)
  let ignored: IgnoreTest = await loadIgnore(root)
  const dirty = new Set<string>()
  let fullResync = false
  /** A live event said a version may have been made elsewhere: the next flush asks. */
  let checkRemote = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let probeMs = FIRST_PROBE_MS
  /** The server that went away, and since when (undefined while it answers). */
  let away: { server: string; since: number } | undefined
  let firstDirtyAt = 0
  let closed = false
  let reloadingRules: Promise<void> = Promise.resolve()
  /** Folders the last push could not read (chokidar does not watch inside them). */
  let unreadableFolders = new Set<string>()
  const toldUnwatched = new Set<string>()
  const backOnline = () => {
    away = undefined
    probeMs = FIRST_PROBE_MS
  }

  const schedule = (delay: number) => {
    if (closed) return
    clearTimeout(timer)
    timer = setTimeout(() => void flush().catch(() => {}), delay)
  }
  const queue = () => ({ queued: dirty.size, fullSync: fullResync })

  /** While the server is away: a cheap request now and then, and the queue goes once it answers. */
  const probe = async () => {
    const answers = await engine.answers(PROBE_TIMEOUT_MS).catch(() => true)
    if (closed) return
    if (answers) return void flush().catch(() => {})
    probeMs = Math.min(probeMs * 2, maxProbeMs)
    scheduleProbe()
  }
  const scheduleProbe = () => {
    if (closed) return
    clearTimeout(timer)
    timer = setTimeout(() => void probe(), probeMs)
  }

  /**
   * One push of what is queued. A failure puts everything back. The server being away starts
   * the probing; any other failure waits for the next save, except on the first push
   * (`rethrow`), whose failure is the caller's to report: a wrong id or key is fatal there.
   */
  const flush = async ({ rethrow = false, lookOnly = false } = {}): Promise<void> => {
    if (running) return void (await running)
    if (lookOnly ? !checkRemote : dirty.size === 0 && !fullResync) return
    // A look leaves the queue alone: a burst of saves still waits for its quiet moment.
    const paths = lookOnly ? new Set<string>() : new Set(dirty)
    const full = !lookOnly && fullResync
    if (lookOnly) checkRemote = false
    else {
      dirty.clear()
      fullResync = false
    }
    const startedAt = firstDirtyAt || Date.now()
    running = (async () => {
      try {
        await reloadingRules // a whole-folder diff must see the new rules
        // Only whether the latest version is still the one the folder agrees with.
        if (lookOnly) return void (await engine.checkLatest())
        const outcome = full ? await engine.syncAll() : await engine.syncPaths(paths)
        firstDirtyAt = 0
        // A folder that could not be read, readable now: watch inside it before this push is
        // reported, so that a save made right after the report is heard (chokidar's new scan
        // takes a moment, and missed a save made meanwhile).
        const closedFolders = new Set(outcome.notPushed.filter((left) => left.path.endsWith('/')).map((left) => left.path))
        if ([...unreadableFolders].some((folder) => !closedFolders.has(folder))) await (reloadingRules = reloadingRules.then(rewatch).catch(() => {}))
        unreadableFolders = closedFolders
        options.onEvent({ event: 'synced', outcome, latencyMs: Date.now() - startedAt })
        if (away) options.onEvent({ event: 'online', server: away.server, awayMs: Date.now() - away.since, pushed: outcome.paths.length })
        backOnline()
        // Left out for lack of room in this push: the next one takes them.
        for (const left of outcome.notPushed) if (left.problem === 'no-room') dirty.add(left.path)
        if (dirty.size > 0 || fullResync) schedule(debounceMs) // saves that came during the push
      } catch (error) {
        // Nothing is lost: the paths go back in the queue for the next attempt.
        for (const p of paths) dirty.add(p)
        fullResync ||= full
        if (error instanceof MadeElsewhereError) {
          // Pulled: the queued paths now match the folio, and their push finds nothing to send.
          // A conflict: the watch ends here, and nothing more is pushed.
          let next: Pulled | Conflict
          try {
            next = await options.catchUp(error, ignored)
          } catch (failure) {
            // The folio's files could not be fetched: the next save, or the next look, tries again.
            return void options.onEvent({ event: 'failed', reason: describeError(failure), ...queue() })
          }
          fullResync = false
          if (next.event === 'conflict') {
            closed = true
            clearTimeout(timer)
          }
          options.onEvent(next)
          if (dirty.size > 0) schedule(debounceMs)
        } else if (error instanceof ServerUnreachableError) {
          if (!away) {
            away = { server: error.server, since: Date.now() }
            options.onEvent({ event: 'waiting', reason: error.message, server: error.server, retryInMs: probeMs, ...queue() })
          }
          scheduleProbe()
        } else if (rethrow) {
          throw error
        } else {
          backOnline()
          options.onEvent({ event: 'failed', reason: describeError(error), ...queue() })
        }
      }
    })()
    try {
      await running
    } finally {
      running = undefined
      if (checkRemote) lookSoon() // a live event came during the push
    }
  }

  let lookTimer: NodeJS.Timeout | undefined
  const lookSoon = () => {
    if (closed || away) return // while the server is away, the probe's push looks
    clearTimeout(lookTimer)
    lookTimer = setTimeout(() => void flush({ lookOnly: true }).catch(() => {}), 0)
  }

  const isRulesFile = (rel: string) => (IGNORE_FILES as readonly string[]).includes(rel)

  const startWatching = async (): Promise<FSWatcher> => {
    const watcher = watch(root, {
      ignoreInitial: true,
      // chokidar 5 ignores glob strings silently: a function it is. The rule files themselves
      // are never published, but they are watched.
      ignored: (path, stats) => {
        const rel = toFolioPath(root, path)
        return rel !== '' && !rel.startsWith('..') && !isRulesFile(rel) && ignored(rel, stats?.isDirectory())
      },
      // A folder it may not read is not an error that stops the watch: the engine reports it as
      // not pushed (and keeps the folio's copies). Files without a read bit are watched too.
      ignorePermissionErrors: true,
    })
    for (const event of ['add', 'change', 'unlink', 'unlinkDir'] as const) watcher.on(event, (path: string) => touched(path))
    // Said once per reason; chokidar goes on watching the rest (and still says 'ready').
    watcher.on('error', (error: unknown) => {
      const reason = ioReason(error)
      if (toldUnwatched.has(reason)) return
      toldUnwatched.add(reason)
      options.onEvent({ event: 'unwatched', reason })
    })
    await new Promise<void>((resolve) => watcher.once('ready', resolve))
    return watcher
  }

  /**
   * A new chokidar watcher: chokidar never entered a folder that was ignored or unreadable, so
   * only a fresh scan watches what new rules, or a permission fixed, let in. The old one closes after.
   */
  const rewatch = async () => {
    const previous = fsWatcher
    fsWatcher = await startWatching()
    await previous.close()
  }
  const reloadRules = async () => {
    ignored = await loadIgnore(root)
    engine.ignored = ignored
    await rewatch()
  }

  const touched = (path: string) => {
    const rel = toFolioPath(root, path)
    if (isRulesFile(rel)) {
      options.onEvent({ event: 'rules', file: rel })
      reloadingRules = reloadingRules.then(reloadRules).catch(() => {})
      fullResync = true
    } else {
      dirty.add(rel)
    }
    firstDirtyAt ||= Date.now()
    if (!away) schedule(debounceMs) // while the server is away, the probe decides
  }

  let fsWatcher = await startWatching()

  return {
    /**
     * The first push: the whole folder. When the server is away this queues a whole-folder sync
     * and starts the back-off (with the same 'waiting' events as later); other failures throw.
     */
    async pushAll(): Promise<void> {
      fullResync = true
      firstDirtyAt ||= Date.now()
      await flush({ rethrow: true })
    },

    /** A live event (remote-versions.ts): look whether a version was made elsewhere, once the push under way (if any) is done. */
    checkRemote(): void {
      if (closed) return
      checkRemote = true
      if (!running) lookSoon()
    },

    /** Queued paths, plus one for a queued whole-folder sync. */
    pending: () => dirty.size + (fullResync ? 1 : 0),

    /** Stops watching without pushing (the first push failed: nothing to finish). */
    async stop(): Promise<void> {
      closed = true
      clearTimeout(timer)
      clearTimeout(lookTimer)
      await reloadingRules
      await fsWatcher.close()
      if (running) await running.catch(() => {})
    },

    /**
     * Stops watching, then pushes once more: the whole folder against what the folio holds, so
     * that the queue, and a save the watcher had not reported yet (Ctrl+C right after it), travel.
     * Nothing is sent when nothing differs. Never throws: the result says what was not pushed.
     */
    async finish({ timeoutMs }: { timeoutMs: number }): Promise<FinalPush> {
      await this.stop()
      try {
        return { pushed: true, outcome: await engine.syncAll({ timeoutMs }) }
      } catch (error) {
        const away = error instanceof ServerUnreachableError
        const reason = away ? `The server at ${error.server} is away (${error.reason}).` : describeError(error)
        const unpushed = await engine.unpushed().catch(() => undefined)
        return { pushed: false, away, reason, unpushed }
      }
    },
  }
}
