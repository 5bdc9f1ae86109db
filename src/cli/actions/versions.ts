import type { Command } from 'commander'
import { getFolio } from '../../api/files.js'
import { ago, table } from '../../terminal/format.js'
import { withContext } from '../context.js'

export default (given: string | undefined, _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const id = await ctx.folioId(given)
    const folio = await ctx.client.call(getFolio, { params: { id }, query: { files: 'none' } })
    const versions = folio.versions.map((v) => ({
      versionId: v.versionId,
      createdAt: v.createdAt,
      author: v.author,
      commitMessage: v.commitMessage,
      files: v.fileList ?? [],
    }))
    ctx.print(versions, () =>
      table(
        ['VERSION', 'WHEN', 'AUTHOR', 'FILES', 'MESSAGE'],
        versions.map((v) => [
          v.versionId + (v.versionId === folio.latestVersionId ? ' *' : ''),
          ago(v.createdAt),
          v.author,
          String(v.files.length),
          v.commitMessage,
        ]),
      ),
    )
  })
