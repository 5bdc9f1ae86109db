import type { Command } from 'commander'
import { updateFolio } from '../../api/files.js'
import { versionNumber } from '../../domain/ids.js'
import { withContext } from '../context.js'
import { UsageError } from '../errors.js'

/** folio restore [id] <versionId>: one word is the version (the id is then the linked folder's). */
export default (first: string | undefined, second: string | undefined, _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const [given, versionId] = second === undefined && first !== undefined && versionNumber(first) !== undefined ? [undefined, first] : [first, second]
    if (!versionId) throw new UsageError('folio restore needs the version to bring back, e.g. folio restore <id> v2 (folio versions <id> lists them).')
    const id = await ctx.folioId(given)
    const { project } = await ctx.client.call(updateFolio, { params: { id }, query: { files: 'none' }, body: { restoreVersionId: versionId } })
    ctx.print({ id, restored: versionId, versionId: project.latestVersionId }, () => `Restored ${versionId} as ${project.latestVersionId}`)
  })
