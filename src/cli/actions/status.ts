import type { Command } from 'commander'
import { loadSnapshot } from '../../tui/snapshot.js'
import { formatSnapshot, unreachableLine } from '../../tui/text.js'
import { withContext } from '../context.js'
import { CliError } from '../errors.js'

export default (options: { interval: number; once?: boolean }, command: Command) =>
  withContext(command, async (ctx) => {
    const interactive = !ctx.json && !options.once && Boolean(process.stdout.isTTY) && Boolean(process.stdin.isTTY)
    if (!interactive) {
      const snapshot = await loadSnapshot(ctx.client, { server: ctx.server })
      const unreachable = snapshot.server.reachable ? null : new CliError(`${unreachableLine(ctx.server)} (${snapshot.server.error})`, 2)
      // Text: the error line says it all; JSON: the snapshot still goes to stdout for scripts.
      if (ctx.json || !unreachable) ctx.print(snapshot, () => formatSnapshot(snapshot))
      if (unreachable) throw unreachable
      return
    }
    // Ink and React load only here: folio --help and every other command never evaluate them.
    const { runStatus } = await import('../../tui/run-status.js')
    await runStatus({ client: ctx.client, server: ctx.server, intervalMs: options.interval * 1000 })
  })
