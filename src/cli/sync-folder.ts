import { mkdir, stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { CliContext } from './context.js'
import { UsageError } from './errors.js'
import { findLink, linkedFolio, writeLink } from './link.js'
import { sameOrigin } from './origin.js'
import { serverSourceName } from './target.js'

export interface SyncFolder {
  id: string
  /** The folder as the user can type it again (for messages). */
  dir: string
  root: string
  /** The id was given: the folder gets linked to it once a push (or the first one) worked. */
  link: boolean
}

const isFolder = async (path: string) => Boolean((await stat(path).catch(() => undefined))?.isDirectory())

/**
 * What `folio sync [id] [dir]` is about. Both given: that folio and that folder. Neither: the
 * folder linked above the working directory, and its folio. One word: a folder (its link names the
 * folio) or an id (pushed from the linked folder the command runs in).
 */
export async function syncFolder(ctx: CliContext, first: string | undefined, second: string | undefined): Promise<SyncFolder> {
  const where = await pick(ctx, first, second)
  await ctx.folioId(where.id) // so that "No folio <id>" names this one
  return where
}

async function pick(ctx: CliContext, first: string | undefined, second: string | undefined): Promise<SyncFolder> {
  if (first !== undefined && second !== undefined) return { id: first, dir: second, root: resolve(second), link: true }
  const inUse = { server: ctx.server, named: serverSourceName(ctx.target.serverSource) }
  if (first !== undefined && (await isFolder(first))) {
    const { id, link } = await linkedFolio(undefined, inUse, first)
    return { id, dir: link!.root, root: link!.root, link: false }
  }
  if (first !== undefined) {
    const here = await findLink()
    if (!here) throw new UsageError(`folio sync ${first} needs the folder to push: folio sync ${first} <folder> (this folder is not linked to a folio).`)
    return { id: first, dir: here.root, root: here.root, link: true }
  }
  const { id, link } = await linkedFolio(undefined, inUse)
  return { id, dir: link!.root, root: link!.root, link: false }
}

/**
 * What `folio pull [id] [dir]` writes into. Both given: that folder (made when missing). Neither:
 * the linked folder. One word: a folder (its link names the folio), or an id, pulled into the
 * linked folder it runs in (when linked to that folio) or else into the working directory, which
 * it then links. A folder linked to another folio is never pulled into by id alone: that would
 * replace one folio's files with another's.
 */
export async function pullFolder(ctx: CliContext, first: string | undefined, second: string | undefined): Promise<SyncFolder> {
  const where = first !== undefined && second === undefined && !(await isFolder(first)) ? await idHere(first) : await pick(ctx, first, second)
  await ctx.folioId(where.id)
  await mkdir(where.root, { recursive: true })
  return where
}

async function idHere(id: string): Promise<SyncFolder> {
  const here = await findLink()
  if (!here) return { id, dir: '.', root: process.cwd(), link: true }
  if (here.id !== id) throw new UsageError(`${here.root} is linked to folio ${here.id}, not ${id}: pass the folder to pull into, folio pull ${id} <folder>.`)
  return { id, dir: here.root, root: here.root, link: false }
}

/** After a push that worked: a folder given with an id is linked to that folio. */
export async function linkAfterPush(ctx: CliContext, where: SyncFolder): Promise<void> {
  if (where.link) await linkFolder(ctx, where)
}

/**
 * Links the folder to the folio (said when that changed); returns the link file. A folder that
 * cannot be written is a warning: the push itself worked.
 */
export async function linkFolder(ctx: CliContext, where: { id: string; dir: string; root: string }): Promise<string | undefined> {
  const before = await findLink(where.root).catch(() => undefined)
  if (before?.root === where.root && before.id === where.id && sameOrigin(before.server, ctx.server)) return before.file
  try {
    const { file, previous } = await writeLink(where.root, { server: ctx.server, id: where.id })
    ctx.note(
      previous
        ? `Linked ${where.dir} to ${where.id} (was ${previous}) in ${file}.`
        : `Linked ${where.dir} to ${where.id}: commands run inside it need no id now.`,
    )
    return file
  } catch (error) {
    ctx.warn(`could not link ${where.dir} to ${where.id} (${(error as Error).message}); pass the id next time.`)
    return undefined
  }
}
