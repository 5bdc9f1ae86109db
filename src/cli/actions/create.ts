import { readFile } from 'node:fs/promises'
import { basename, extname, resolve } from 'node:path'
import type { Command } from 'commander'
import { createFolio, updateFolio } from '../../api/files.js'
import { newAccessKey, weakAccessKeyWarning } from '../../domain/access-keys.js'
import { contentDefaults } from '../../domain/content-defaults.js'
import type { ProjectMode } from '../../domain/model.js'
import { type CliContext, shareUrl, withContext } from '../context.js'
import { CliError, UsageError } from '../errors.js'
import { type Advice, fitOneRequest, isImagePath, refuseIfSurelyTooLarge, type SizedFile } from '../request-limits.js'
import { linkFolder } from '../sync-folder.js'
import { FolderRecord } from '../sync/folder-record.js'
import { type FolderScan, ioReason, loadIgnore, readAsFileContent, scanFolder } from '../sync/local-files.js'
import { guardLinkedFolder, linkedShareUrl } from './create-linked.js'

/** The options commands/create.ts defines, as commander hands them over. */
export interface CreateOptions {
  html?: string
  dir?: string
  mode?: ProjectMode
  description?: string
  publish?: boolean
  private?: boolean
  accessKey?: string
  prompt?: string
  /** Make a new folio of a folder that is linked to one already (create-linked.ts). */
  new?: boolean
}

export default (givenTitle: string | undefined, options: CreateOptions, command: Command) =>
  withContext(command, async (ctx) => {
    if (options.html && options.dir) throw new UsageError('Give --html or --dir, not both.')
    if (options.prompt !== undefined) {
      if (options.html || options.dir) throw new UsageError('--prompt writes the folio itself: leave out --html and --dir.')
      const { createFromPrompt } = await import('./create-prompt.js')
      return createFromPrompt(ctx, givenTitle, options)
    }
    if (givenTitle === undefined && !options.dir && !options.html) {
      throw new UsageError(
        'Give the folio a title, e.g. folio create "Q3 review", or --dir/--html to take its page’s title (else the folder’s or file’s name).',
      )
    }
    if (options.accessKey && !options.private) throw new UsageError('--access-key goes with --private.')
    if (options.new && !options.dir) throw new UsageError('--new goes with --dir: it makes a second folio of a folder that is linked to one.')
    const linkedBefore = options.dir ? await guardLinkedFolder(ctx, options.dir, resolve(options.dir), Boolean(options.new)) : undefined
    let files: Record<string, string> | undefined
    let sizes: SizedFile[] = []
    let folder: FolderFiles | undefined
    if (options.html) {
      files = { 'index.html': await readFile(resolve(options.html), 'utf8').catch(() => cannotRead(options.html!)) }
      sizes = [{ path: options.html, size: Buffer.byteLength(files['index.html']!) }]
    }
    if (options.dir) ({ files, sizes } = folder = await folderFiles(resolve(options.dir)))
    // What the caller left out comes from the page itself; the folder's or file's name is the last resort.
    const page = files ? contentDefaults(files) : {}
    const fields = {
      title: givenTitle ?? page.title ?? nameOf(options),
      description: options.description ?? page.description,
      projectMode: options.mode ?? page.projectMode,
      // A private folio is created as a draft and published last (see below): never public.
      status: options.publish && !options.private ? ('published' as const) : ('draft' as const),
      ...(files ? { defaultFiles: files } : {}),
    }
    const { project: created } = await ctx.client.call(createFolio, { body: fitOneRequest(fields, sizes, createAdvice) })
    let link: string | undefined
    if (folder) {
      const root = resolve(options.dir!)
      const record = await FolderRecord.open({ server: ctx.server, id: created.id, root })
      await record.replace(
        [...folder.scan.files.keys(), ...[...folder.scan.unreadable.keys()].filter((path) => !path.endsWith('/'))],
        [...folder.scan.files].map(([path, file]) => [path, file.sha256]),
        created.latestVersionId,
      )
      link = await linkFolder(ctx, { id: created.id, dir: options.dir!, root })
    }
    const fileCount = Object.keys(created.versions[0]?.files ?? {}).length
    // In OSS a folio cannot be private on create (spec), so privacy comes in a second call, and
    // publishing in that same call: until it lands the folio is a draft that only its owner sees.
    const accessKey = options.private ? (options.accessKey ?? newAccessKey()) : undefined
    const project = accessKey ? await makePrivate(ctx, created.id, accessKey, Boolean(options.publish)) : created
    const url = shareUrl(ctx, project.id)
    // A key chosen by hand works whatever it is; a weak one is said so (stderr, and in the JSON).
    const warning = options.private && options.accessKey !== undefined ? weakAccessKeyWarning(options.accessKey) : undefined
    const guessed = [givenTitle === undefined && page.title && 'title', options.mode === undefined && page.projectMode && 'mode'].filter(Boolean).join(' and ')
    // A fork on purpose says what the folder was linked to: that folio stays as it was.
    const relinked = link && linkedBefore && linkedBefore.id !== project.id ? linkedBefore : undefined
    const previous = relinked ? { previousLink: { id: relinked.id, url: linkedShareUrl(relinked) } } : {}
    ctx.print(
      {
        id: project.id,
        url,
        title: project.title,
        projectMode: project.projectMode,
        status: project.status,
        versionId: project.latestVersionId,
        files: fileCount,
        accessKey,
        link,
        ...previous,
        ...(warning ? { warning } : {}),
      },
      () =>
        [
          `Created ${project.id} (${project.status}${accessKey ? ', private' : ''}, ${fileCount} file(s))`,
          `Share: ${url}${project.status === 'draft' ? '  (a draft: viewers see it once you publish; preview with folio open)' : ''}`,
          `Title: “${project.title}”, mode ${project.projectMode}${guessed ? ` (${guessed} from the page; folio set changes them)` : ''}`,
          accessKey ? `Access key: ${accessKey}` : '',
          relinked
            ? `${options.dir} is now linked to ${project.id}; it was linked to ${relinked.id} (${linkedShareUrl(relinked)}), which stays as it was.`
            : '',
        ]
          .filter(Boolean)
          .join('\n'),
    )
    if (warning) ctx.warn(warning)
    // Created without them: an error to act on (exit 1), never a silent skip.
    const unreadable = [...(folder?.scan.unreadable ?? [])]
    if (unreadable.length) {
      throw new CliError(
        `Created ${project.id} without ${unreadable.length} file(s) it could not read: ${unreadable.map(([path, reason]) => `${path} (${reason})`).join(', ')}. Make them readable and push them with folio sync ${project.id} ${options.dir}, or leave them out with .folioignore.`,
      )
    }
  })

async function makePrivate(ctx: CliContext, id: string, accessKey: string, publish: boolean) {
  try {
    const { project } = await ctx.client.call(updateFolio, {
      params: { id },
      query: { files: 'none' },
      body: { isPrivate: true, accessKey, ...(publish ? { status: 'published' as const } : {}) },
    })
    return project
  } catch (error) {
    throw new CliError(
      `Created ${id}, but could not make it private${publish ? ' and publish it' : ''}: ${ctx.describe(error)} It stays a draft that only you can see.`,
    )
  }
}

/** A page with neither <title> nor heading: the folder's or the file's name, so `folio create --dir . --publish` just works. */
function nameOf({ dir, html }: CreateOptions): string {
  if (dir) return basename(resolve(dir)) || 'Untitled'
  return basename(html!, extname(html!)) || 'Untitled'
}

function cannotRead(path: string): never {
  throw new CliError(`Cannot read ${path}: check the path.`)
}

const createAdvice: Advice = (biggest) =>
  `Leave big files out with .folioignore and create it again${biggest.some((f) => isImagePath(f.path)) ? '; then add the images with folio upload <id> <files> (up to 25 MB each)' : ''}.`

interface FolderFiles {
  files: Record<string, string>
  sizes: SizedFile[]
  /** What was read, and what could not be (reported after the folio is created). */
  scan: FolderScan
}

async function folderFiles(root: string): Promise<FolderFiles> {
  const scan = await scanFolder(root, await loadIgnore(root)).catch((error: Error) => {
    throw new CliError(`${error.message}: give --dir a folder.`)
  })
  const unreadable = [...scan.unreadable].map(([path, reason]) => `${path} (${reason})`)
  if (scan.files.size === 0)
    throw new CliError(
      `${root} has no files to publish (after .gitignore/.folioignore)${unreadable.length ? `; it could not read ${unreadable.join(', ')}` : ''}.`,
    )
  const sizes = [...scan.files.values()].map((file) => ({ path: file.path, size: file.size }))
  // Refused before reading a byte when the folder cannot fit in one request anyway.
  refuseIfSurelyTooLarge(sizes, createAdvice)
  const files: Record<string, string> = {}
  for (const file of scan.files.values()) {
    try {
      files[file.path] = await readAsFileContent(file)
    } catch (error) {
      // Readable at the scan, not now: one more file it could not read.
      scan.files.delete(file.path)
      scan.unreadable.set(file.path, ioReason(error))
    }
  }
  return { files, sizes, scan }
}
