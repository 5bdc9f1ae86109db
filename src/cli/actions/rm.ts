import type { Command } from 'commander'
import { deleteFolio, getFolio } from '../../api/files.js'
import { confirm } from '../confirm.js'
import { withContext } from '../context.js'

/** folio rm [id]: asks first in a terminal (unless --yes); refuses without one. */
export default (given: string | undefined, options: { yes?: boolean }, command: Command) =>
  withContext(command, async (ctx) => {
    const id = await ctx.folioId(given)
    if (!options.yes) {
      // Read first: a wrong id fails here, and the question names what would go.
      const folio = await ctx.client.call(getFolio, { params: { id }, query: { files: 'none' } })
      const what = `folio ${id} “${folio.title}” (${folio.status}, ${folio.versionCount} version(s), ${folio.comments.length} comment(s))`
      const sure = await confirm(
        `Delete ${what} for good, with its share page and analytics?`,
        `Nothing deleted: folio rm deletes ${id} for good, so confirm with --yes (or run it in a terminal to be asked).`,
      )
      if (!sure) return ctx.print({ success: false, id, deleted: false }, () => 'Nothing deleted.')
    }
    await ctx.client.call(deleteFolio, { params: { id } })
    ctx.print({ success: true, id, deleted: true }, () => `Deleted ${id}.`)
  })
