import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { type Command, Option } from 'commander'
import { createFolio, updateFolio } from '../../api/files.js'
import { maybeGzip } from '../../client/gzip.js'
import { newFolioId } from '../../domain/ids.js'
import { PROJECT_MODES } from '../../store/types.js'
import { shareUrl, withContext } from '../context.js'
import { CliError } from '../errors.js'
import { loadIgnore, readAsFileContent, scanFolder } from '../sync/local-files.js'

interface CreateOptions {
  html?: string
  dir?: string
  mode?: (typeof PROJECT_MODES)[number]
  description?: string
  publish?: boolean
  private?: boolean
  accessKey?: string
}

export function registerCreate(program: Command): void {
  program
    .command('create')
    .description('create a folio from an HTML file, a folder, or the starter page of its mode')
    .argument('<title>', 'the folio’s title')
    .option('--html <file>', 'an HTML file, stored as index.html')
    .option('--dir <folder>', 'a folder: every file in it (.gitignore and .folioignore are honoured)')
    .addOption(new Option('--mode <mode>', 'what kind of folio').choices([...PROJECT_MODES]).default('deck'))
    .option('--description <text>', 'a line about it')
    .option('--publish', 'publish at once (default: draft, visible only to you)')
    .option('--private', 'viewers need an access key')
    .option('--access-key <key>', 'the access key of a private folio (default: a new random one, printed)')
    .addHelpText(
      'after',
      `
Examples:
  $ folio create "Q3 review" --html deck.html --publish
  $ folio create "Docs" --dir ./site --mode document
  $ folio create "Board pack" --dir ./pack --publish --private --access-key "blue whale"`,
    )
    .action((title: string, options: CreateOptions, command: Command) =>
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
      }),
    )
}

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
