import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { createFolio, updateFolio } from '../../api/files.js'
import { maybeGzip } from '../../client/gzip.js'
import { newFolioId } from '../../domain/ids.js'
import type { CreateOptions } from '../commands/create.js'
import { shareUrl, withContext } from '../context.js'
import { CliError } from '../errors.js'
import { loadIgnore, readAsFileContent, scanFolder } from '../sync/local-files.js'

export default (title: string, options: CreateOptions, command: Command) =>
  withContext(command, async (ctx) => {
    if (options.html && options.dir) throw new CliError('Give --html or --dir, not both.')
    if (options.accessKey && !options.private) throw new CliError('--access-key goes with --private.')
    let files: Record<string, string> | undefined
    if (options.html) files = { 'index.html': await readFile(resolve(options.html), 'utf8').catch(() => cannotRead(options.html!)) }
    if (options.dir) files = await folderFiles(resolve(options.dir))
    const { project } = await ctx.client.call(createFolio, {
      body: maybeGzip({
        title,
        description: options.description,
        projectMode: options.mode,
        status: options.publish ? ('published' as const) : ('draft' as const),
        ...(files ? { defaultFiles: files } : {}),
      }),
    })
    // OSS makes every new folio public (spec); privacy is a second step.
    const accessKey = options.private ? (options.accessKey ?? newFolioId(16)) : undefined
    if (accessKey) await ctx.client.call(updateFolio, { params: { id: project.id }, body: { isPrivate: true, accessKey } })
    const url = shareUrl(ctx, project.id)
    ctx.print({ id: project.id, url, status: project.status, versionId: project.latestVersionId, files: Object.keys(project.versions[0]?.files ?? {}).length, accessKey }, () =>
      [
        `Created ${project.id} (${project.status}, ${Object.keys(project.versions[0]?.files ?? {}).length} file(s))`,
        `Share: ${url}${project.status === 'draft' ? '  (a draft: viewers see it once you publish; preview with folio open)' : ''}`,
        accessKey ? `Access key: ${accessKey}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    )
  })

function cannotRead(path: string): never {
  throw new CliError(`Cannot read ${path}: check the path.`)
}

async function folderFiles(root: string): Promise<Record<string, string>> {
  const local = await scanFolder(root, await loadIgnore(root)).catch((error: Error) => {
    throw new CliError(`${error.message}: give --dir a folder.`)
  })
  if (local.size === 0) throw new CliError(`${root} has no files to publish (after .gitignore/.folioignore).`)
  const files: Record<string, string> = {}
  for (const file of local.values()) files[file.path] = await readAsFileContent(file)
  return files
}
