import type { Command } from 'commander'
import { getFolio } from '../../api/files.js'
import { shareUrl, withContext } from '../context.js'
import { openUrl } from '../open-url.js'

export default (id: string, _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const folio = await ctx.client.call(getFolio, { params: { id }, query: { files: 'none' } })
    // A draft has no public page yet: the owner's preview shows it.
    const url = folio.status === 'draft' ? `${shareUrl(ctx, id)}?preview=1` : shareUrl(ctx, id)
    const opened = ctx.json ? false : await openUrl(url)
    ctx.print({ url, opened }, () => (opened ? `Opened ${url}` : `Open ${url} in your browser`))
  })
