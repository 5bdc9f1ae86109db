import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { isFolioId } from '../domain/ids.js'
import { CliError, UsageError } from './errors.js'
import { sameServer } from './origin.js'

/**
 * A linked folder: `<folder>/.folio/link.json` says which folio on which server the folder is
 * (like vercel's .vercel/project.json), so commands run inside it need no id. It holds no key:
 * the folder may be shared or committed. The folder scanner never publishes `.folio/`.
 */
export const LINK_PATH = join('.folio', 'link.json')

export interface FolderLink {
  server: string
  id: string
  /** The linked folder (the one holding .folio/). */
  root: string
  /** The link file itself, for messages. */
  file: string
}

/** The link of `from` or of the nearest folder above it that has one. */
export async function findLink(from: string = process.cwd()): Promise<FolderLink | undefined> {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const link = await readLink(dir)
    if (link) return link
    if (dirname(dir) === dir) return undefined
  }
}

/**
 * The server of the folder's link, for commands told of no other server (target.ts). A damaged
 * link names none here: only the commands that need the folio's id report it (linkedFolio).
 */
export async function linkedServer(from: string = process.cwd()): Promise<{ server: string; file: string } | undefined> {
  const link = await findLink(from).catch(() => undefined)
  return link && { server: link.server, file: link.file }
}

async function readLink(root: string): Promise<FolderLink | undefined> {
  const file = join(root, LINK_PATH)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    return undefined // no link here (a .folio/ without link.json is a data folder of folio serve)
  }
  const parsed = parseObject(text)
  if (typeof parsed?.server !== 'string' || !isFolioId(parsed.id)) {
    throw new CliError(`${file} is not a folio link ({"server", "id"}): fix it, or link the folder again with folio sync <id> ${root}.`)
  }
  return { server: parsed.server, id: parsed.id, root, file }
}

function parseObject(text: string): { server?: unknown; id?: unknown } | undefined {
  try {
    return (JSON.parse(text) as { server?: unknown; id?: unknown } | null) ?? undefined
  } catch {
    return undefined // damaged: the caller says so
  }
}

/**
 * Links `root` to the folio; returns the id it was linked to before, if another. Writes through a
 * temp file and a rename: a reader never sees half a link.
 */
export async function writeLink(root: string, link: { server: string; id: string }): Promise<{ file: string; previous?: string }> {
  const file = join(root, LINK_PATH)
  const before = await readLink(root).catch(() => undefined)
  await mkdir(dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, `${JSON.stringify({ server: link.server, id: link.id }, null, 2)}\n`)
  await rename(tmp, file)
  return { file, previous: before && before.id !== link.id ? before.id : undefined }
}

/** Where the server in use came from, as people know it (target.ts's words). */
export interface ServerInUse {
  server: string
  /** e.g. --server, FOLIO_URL, the login profile. */
  named: string
}

/**
 * The folio a command is about: the id given, else the link of the folder it runs in. A link to
 * another server than the one in use is refused: the id means nothing there, and following the
 * link instead would send FOLIO_API_KEY wherever a folder's file points.
 */
export async function linkedFolio(given: string | undefined, inUse: ServerInUse, from: string = process.cwd()): Promise<{ id: string; link?: FolderLink }> {
  if (given) return { id: given }
  const link = await findLink(from)
  if (!link) {
    throw new UsageError(
      `No folio id given, and ${from} is not in a linked folder: pass the id (folio list shows them), or link the folder with folio sync <id> <folder>.`,
    )
  }
  if (!sameServer(link.server, inUse.server)) {
    const where = relative(from, link.file) || link.file
    throw new UsageError(
      `This folder is linked to folio ${link.id} on ${link.server} (${where}), but the server in use is ${inUse.server} (${inUse.named}). Pass --server ${link.server}, or give the id of a folio on ${inUse.server}.`,
    )
  }
  return { id: link.id, link }
}
