import { getFolio } from '../../api/files.js'
import { ApiClientError } from '../../client/index.js'
import type { CliContext } from '../context.js'
import { UsageError } from '../errors.js'
import { type FolderLink, findLink } from '../link.js'
import { sameOrigin } from '../origin.js'

/**
 * `folio create --dir` in a folder that is already a folio (issue 26): running the same command
 * again must not fork the folio and quietly re-link the folder to the copy. The folder's own link
 * counts, and so does a link above it (a linked folder's sub-folder is part of that folio: sync
 * publishes it). `--new` makes the second folio on purpose. A link to a folio that is gone from
 * this server protects nothing: the folder is published and linked anew.
 *
 * Returns the link the folder had (the caller says it was re-linked), or nothing.
 */
export async function guardLinkedFolder(ctx: CliContext, dir: string, root: string, fork: boolean): Promise<FolderLink | undefined> {
  // A damaged link file is replaced by the new link, as folio sync <id> <folder> does.
  const link = await findLink(root).catch(() => undefined)
  if (!link || fork) return link
  if (sameOrigin(link.server, ctx.server) && (await isGone(ctx, link.id))) {
    ctx.note(`${dir} was linked to ${link.id}, which is no longer on ${ctx.server}: publishing it as a new folio.`)
    return link
  }
  const where = link.root === root ? `${dir} is already linked to folio ${link.id}` : `${dir} is inside ${link.root}, which is linked to folio ${link.id}`
  const server = sameOrigin(link.server, ctx.server) ? '' : ` --server ${link.server}`
  // sync takes the linked folder and finds the folio in its link.
  const folder = link.root === root ? dir : link.root
  const sync = `folio sync${server}${folder === '.' ? '' : ` ${/\s/.test(folder) ? JSON.stringify(folder) : folder}`}`
  throw new UsageError(
    `${where} (${linkedShareUrl(link)}). To publish your changes to it: ${sync}. To make a second folio from it on purpose: add --new (the folder is then linked to the new one). Nothing was created.`,
  )
}

export const linkedShareUrl = (link: Pick<FolderLink, 'server' | 'id'>) => `${link.server.replace(/\/+$/, '')}/share/${link.id}`

/** Only a 404 says the folio is gone; any other failure leaves the link standing. */
async function isGone(ctx: CliContext, id: string): Promise<boolean> {
  try {
    await ctx.client.call(getFolio, { params: { id }, query: { files: 'none' } })
    return false
  } catch (error) {
    return error instanceof ApiClientError && error.status === 404
  }
}
