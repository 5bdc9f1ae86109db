import type { Command } from 'commander'
import { updateFolio } from '../../api/files.js'
import { versionNumber } from '../../domain/ids.js'
import { confirm } from '../confirm.js'
import { withContext } from '../context.js'
import { UsageError } from '../errors.js'
import { findLink } from '../link.js'
import { sameOrigin } from '../origin.js'

export interface RestoreOptions {
  /** true: --pull, false: --no-pull, undefined: ask on a terminal, else say how. */
  pull?: boolean
}

/**
 * folio restore [id] <versionId>: one word is the version (the id is then the linked folder's).
 * Run in a folder linked to the folio, it offers to write the restored files into it (a pull,
 * which overwrites nothing unpushed and removes only files whose bytes are in the history).
 */
export default (first: string | undefined, second: string | undefined, options: RestoreOptions, command: Command) =>
  withContext(command, async (ctx) => {
    const [given, versionId] = second === undefined && first !== undefined && versionNumber(first) !== undefined ? [undefined, first] : [first, second]
    if (!versionId) throw new UsageError('folio restore needs the version to bring back, e.g. folio restore <id> v2 (folio versions <id> lists them).')
    const id = await ctx.folioId(given)
    const link = await findLink().catch(() => undefined)
    const folder = link && link.id === id && sameOrigin(link.server, ctx.server) ? link.root : undefined
    if (options.pull && !folder)
      throw new UsageError(
        `--pull writes the restored files into the folder linked to ${id}, and ${process.cwd()} is not in one: run it there, or folio pull ${id} <folder> after the restore.`,
      )
    const { project } = await ctx.client.call(updateFolio, { params: { id }, query: { files: 'none' }, body: { restoreVersionId: versionId } })
    const made = project.latestVersionId
    ctx.print({ id, restored: versionId, versionId: made }, () => `Restored ${versionId} as ${made}`)
    if (!folder || options.pull === false) return
    let pull: boolean | undefined = options.pull
    if (pull === undefined) {
      if (ctx.json || !process.stdin.isTTY || !process.stderr.isTTY) {
        return ctx.note(
          `${folder} still holds the files from before: folio pull writes ${made}'s files into it (folio restore --pull does it at once; a running folio sync --watch does it on its own).`,
        )
      }
      pull = await confirm(`Write ${made}'s files into ${folder}? Files it replaces or removes are in the folio's history.`, '')
    }
    if (!pull) return
    const { pullInto } = await import('./pull.js')
    await pullInto(ctx, { id, dir: folder, root: folder, link: false }, {})
  })
