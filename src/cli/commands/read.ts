import type { Command } from 'commander'
import { getFolio, listFolios, updateFolio } from '../../api/files.js'
import { shareUrl, withContext } from '../context.js'
import { ago, duration, table } from '../format.js'
import { openUrl } from '../open-url.js'

/** folio list, open, versions, restore: looking at folios and going back in their history. */
export function registerReadCommands(program: Command): void {
  program
    .command('list')
    .description('list the folios, most recently updated first')
    .addHelpText('after', '\nExamples:\n  $ folio list\n  $ folio list --json | jq -r ".[].id"')
    .action((_options, command: Command) =>
      withContext(command, async (ctx) => {
        const folios = await ctx.client.call(listFolios)
        ctx.print(folios, () =>
          folios.length === 0
            ? 'No folios yet. Create one: folio create "My deck" --html deck.html'
            : table(
                ['ID', 'TITLE', 'STATUS', 'VERSION', 'VIEWS', 'AVG TIME', 'UPDATED'],
                folios.map((f) => [f.id, f.title, f.isPrivate ? `${f.status} (private)` : f.status, f.latestVersionId, String(f.analytics.views), duration(f.analytics.avgTimeSeconds), ago(f.updatedAt)]),
              ),
        )
      }),
    )

  program
    .command('open')
    .description('open the share page of a folio in your browser')
    .argument('<id>', 'folio id')
    .addHelpText('after', '\nExamples:\n  $ folio open kL9VtGLOsbNK\n  $ BROWSER=firefox folio open kL9VtGLOsbNK')
    .action((id: string, _options, command: Command) =>
      withContext(command, async (ctx) => {
        const folio = await ctx.client.call(getFolio, { params: { id }, query: { files: 'none' } })
        const url = folio.status === 'draft' ? `${shareUrl(ctx, id)}?preview=1` : shareUrl(ctx, id)
        const opened = ctx.json ? false : await openUrl(url)
        ctx.print({ url, opened }, () => (opened ? `Opened ${url}` : `Open ${url} in your browser`))
      }),
    )

  program
    .command('versions')
    .description('list the versions of a folio, oldest first')
    .argument('<id>', 'folio id')
    .addHelpText('after', '\nExamples:\n  $ folio versions kL9VtGLOsbNK\n  $ folio restore kL9VtGLOsbNK v2      bring v2 back as a new version')
    .action((id: string, _options, command: Command) =>
      withContext(command, async (ctx) => {
        const folio = await ctx.client.call(getFolio, { params: { id }, query: { files: 'none' } })
        const versions = folio.versions.map((v) => ({ versionId: v.versionId, createdAt: v.createdAt, author: v.author, commitMessage: v.commitMessage, files: v.fileList ?? [] }))
        ctx.print(versions, () =>
          table(
            ['VERSION', 'WHEN', 'AUTHOR', 'FILES', 'MESSAGE'],
            versions.map((v) => [v.versionId + (v.versionId === folio.latestVersionId ? ' *' : ''), ago(v.createdAt), v.author, String(v.files.length), v.commitMessage]),
          ),
        )
      }),
    )

  program
    .command('restore')
    .description('restore an old version as a new version (history stays intact)')
    .argument('<id>', 'folio id')
    .argument('<versionId>', 'the version to bring back, e.g. v2')
    .addHelpText('after', '\nExamples:\n  $ folio restore kL9VtGLOsbNK v2')
    .action((id: string, versionId: string, _options, command: Command) =>
      withContext(command, async (ctx) => {
        const { project } = await ctx.client.call(updateFolio, { params: { id }, body: { restoreVersionId: versionId } })
        ctx.print({ id, restored: versionId, versionId: project.latestVersionId }, () => `Restored ${versionId} as ${project.latestVersionId}`)
      }),
    )
}
