import type { Command } from 'commander'
import { updateFolio } from '../../api/files.js'
import { shareUrl, withContext } from '../context.js'

/** folio publish [id]: status published. --json prints the server's answer. */
export const publish = (given: string | undefined, _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const id = await ctx.folioId(given)
    const answer = await ctx.client.call(updateFolio, { params: { id }, body: { status: 'published' } })
    const url = shareUrl(ctx, id)
    ctx.print(answer, () => `Published ${id}: ${url}${answer.project.isPrivate ? '  (private: viewers type its access key)' : ''}`)
  })

/** folio unpublish [id]: a draft again, seen by its owner only. */
export const unpublish = (given: string | undefined, _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const id = await ctx.folioId(given)
    const answer = await ctx.client.call(updateFolio, { params: { id }, body: { status: 'draft' } })
    ctx.print(answer, () => `${id} is a draft again: viewers no longer see it (folio open ${id} previews it).`)
  })
