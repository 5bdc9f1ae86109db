import type { Command } from 'commander'
import { ApiClientError } from '../../client/index.js'
import { LIVE_COMMENTS, loadSnapshot, type StatusSnapshot } from '../../tui/snapshot.js'
import { formatSnapshot, unreachableLine } from '../../tui/text.js'
import { type CliContext, withContext } from '../context.js'
import { CliError } from '../errors.js'

export default (options: { interval: number; once?: boolean }, command: Command) =>
  withContext(command, async (ctx) => {
    const interactive = !ctx.json && !options.once && Boolean(process.stdout.isTTY) && Boolean(process.stdin.isTTY)
    const keySent = Boolean(ctx.target.key)
    if (!interactive) {
      const snapshot = await loadSnapshot(ctx.client, { server: ctx.server, commentsFor: 'every', keySent })
      const failure = snapshotFailure(ctx, snapshot)
      // Text: the error line says it all; JSON: the snapshot still goes to stdout for scripts.
      if (ctx.json || !failure) ctx.print(snapshot, () => formatSnapshot(snapshot))
      if (failure) throw failure
      return
    }
    // The first look before the screen opens: a refused key is a mistake to report, not a screen
    // to keep open (a server that is away is waited for on the screen).
    const initial = await loadSnapshot(ctx.client, { server: ctx.server, commentsFor: 'every', commentLimit: LIVE_COMMENTS, keySent })
    if (initial.key) throw snapshotFailure(ctx, initial)
    const { runStatus } = await importInkForTerminal()
    await runStatus({ client: ctx.client, server: ctx.server, intervalMs: options.interval * 1000, keySent, initial, note: ctx.note })
  })

/** Why the snapshot is not the whole picture: the server away (exit 2), the key missing or refused (exit 1). */
function snapshotFailure(ctx: CliContext, snapshot: StatusSnapshot): CliError | null {
  if (!snapshot.server.reachable) return new CliError(`${unreachableLine(ctx.server)} (${snapshot.server.error})`, 2)
  // The CLI's own words for a 401, which name where the key came from.
  if (snapshot.key) return new CliError(ctx.describe(new ApiClientError(401, 'Unauthorized')))
  return null
}

/**
 * Ink and React load only here: folio --help and every other command never evaluate them.
 * Ink reads CI / CONTINUOUS_INTEGRATION once, when its module is evaluated, and then draws
 * nothing but the final frame. Someone who runs the live view in a real terminal wants it live
 * even when their shell exports CI (as CI runners and some dev containers do), so those two
 * variables are hidden for the length of the import and put back at once.
 */
async function importInkForTerminal() {
  const hidden = ['CI', 'CONTINUOUS_INTEGRATION'].filter((name) => name in process.env).map((name) => [name, process.env[name]] as const)
  for (const [name] of hidden) delete process.env[name]
  try {
    return await import('../../tui/run-status.js')
  } finally {
    for (const [name, value] of hidden) process.env[name] = value
  }
}
