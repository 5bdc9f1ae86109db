import type { Command } from 'commander'
import { updateFolio } from '../../api/files.js'
import { withContext } from '../context.js'

export default (id: string, versionId: string, _options: unknown, command: Command) =>
  withContext(command, async (ctx) => {
    const { project } = await ctx.client.call(updateFolio, { params: { id }, query: { files: 'none' }, body: { restoreVersionId: versionId } })
    ctx.print({ id, restored: versionId, versionId: project.latestVersionId }, () => `Restored ${versionId} as ${project.latestVersionId}`)
  })
