import type { Command } from 'commander'
import { getFolio } from '../../api/files.js'
import { openUrl } from '../../terminal/open-url.js'
import { shareUrl, withContext } from '../context.js'

export default (given: string | undefined, _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const id = await ctx.folioId(given)
    const folio = await ctx.client.call(getFolio, { params: { id }, query: { files: 'none' } })
    // A draft has no public page yet: the owner's preview shows it.
    const url = folio.status === 'draft' ? `${shareUrl(ctx, id)}?preview=1` : shareUrl(ctx, id)
    const opened = ctx.json ? false : await openUrl(url)
    // Exit 0 either way: the URL is the result, the browser a convenience.
    ctx.print({ url, opened }, () => (opened ? `Opened ${url}` : `No browser could be opened (set BROWSER to choose one). Open this URL yourself:\n${url}`))
  })
