import type { FolioMeta } from '../../domain/model.js'
import type { ServerContext } from '../context.js'

/** What this file takes from the server's context. */
export type ViewNudgesDeps = Pick<ServerContext, 'config' | 'log' | 'mailer' | 'notifier' | 'store'>

/**
 * A view of a folio whose owner asked to hear of them (notifyViews) ended: its summary ("Dana at
 * Acme read 9 of 12 slides in 4 min, longest on slide 7") goes to the workspace's chat
 * integrations and, in Cloud, to its owners by e-mail. In the background: the beacon never waits,
 * and a failed delivery costs a log line. `folio status`, the dashboard and agents hear of every
 * view, opted in or not, through the owner's event stream (live.ts).
 */
export function nudgeViewEnded(ctx: ViewNudgesDeps, meta: FolioMeta, text: string, shareUrl: string): void {
  if (!meta.notifyViews) return
  ctx.notifier?.viewEnded(meta, text)
  if (ctx.config.mode !== 'cloud') return
  let owners: string[]
  try {
    owners = ctx.store.workspaces
      .members(meta.workspaceId)
      .filter((m) => m.role === 'owner')
      .map((m) => m.email)
  } catch {
    return // the workspace went away meanwhile
  }
  void (async () => {
    for (const to of owners) {
      try {
        await ctx.mailer.send({
          to,
          subject: `${text} — “${meta.title}”`,
          text: [`${text}.`, '', `The folio: ${shareUrl}`, '', 'You get this because views of this folio are set to notify (notifyViews).'].join('\n'),
        })
      } catch (error) {
        ctx.log(`Could not e-mail an owner of folio ${meta.id} about a view: ${(error as Error).message}`)
      }
    }
  })()
}
