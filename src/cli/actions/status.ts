import type { Command } from 'commander'
import { loadSnapshot } from '../../tui/snapshot.js'
import { formatSnapshot, unreachableLine } from '../../tui/text.js'
import { withContext } from '../context.js'
import { CliError } from '../errors.js'

export default (options: { interval: number; once?: boolean }, command: Command) =>
  withContext(command, async (ctx) => {
    const interactive = !ctx.json && !options.once && Boolean(process.stdout.isTTY) && Boolean(process.stdin.isTTY)
    if (!interactive) {
      const snapshot = await loadSnapshot(ctx.client, { server: ctx.server, commentsFor: 'every' })
      const unreachable = snapshot.server.reachable ? null : new CliError(`${unreachableLine(ctx.server)} (${snapshot.server.error})`, 2)
      // Text: the error line says it all; JSON: the snapshot still goes to stdout for scripts.
      if (ctx.json || !unreachable) ctx.print(snapshot, () => formatSnapshot(snapshot))
      if (unreachable) throw unreachable
      return
    }
    const { runStatus } = await importInkForTerminal()
    await runStatus({ client: ctx.client, server: ctx.server, intervalMs: options.interval * 1000, note: ctx.note })
  })

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
