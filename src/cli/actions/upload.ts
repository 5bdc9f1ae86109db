import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import { Readable } from 'node:stream'
import type { Command } from 'commander'
import { uploadBatch, uploadFile } from '../../api/uploads.js'
import { bytes } from '../../terminal/format.js'
import { withContext } from '../context.js'
import { CliError, UsageError } from '../errors.js'
import { multipartBody } from '../multipart.js'
import { counted, progressBar } from '../progress.js'

/** Uploads bigger than this show a progress bar at a terminal. */
const SHOW_PROGRESS_ABOVE = 1024 * 1024

/** The id and the files: a first word that names a file is a file (the id is then the linked folder's). */
async function idAndFiles(first: string | undefined, rest: string[]): Promise<[string | undefined, string[]]> {
  if (first === undefined) return [undefined, rest]
  const isFile = (await stat(resolve(first)).catch(() => undefined))?.isFile()
  return isFile ? [undefined, [first, ...rest]] : [first, rest]
}

export default (first: string | undefined, rest: string[], options: { to?: string }, command: Command) =>
  withContext(command, async (ctx) => {
    const [given, paths] = await idAndFiles(first, rest)
    if (paths.length === 0) throw new UsageError('Name the image files to upload: folio upload <id> <files...> (folio upload --help).')
    const id = await ctx.folioId(given)
    const prefix = options.to ? `${options.to.replace(/^\/+|\/+$/g, '')}/` : ''
    const listed = await Promise.all(
      paths.map(async (p) => {
        const absolute = resolve(p)
        const info = await stat(absolute).catch(() => undefined)
        if (!info?.isFile()) throw new CliError(`${p} is not a file.`)
        return { absolute, path: `${prefix}${basename(absolute)}`, size: info.size }
      }),
    )
    const files = oneFilePerTarget(listed, paths)
    const total = files.reduce((sum, f) => sum + f.size, 0)
    const bar = progressBar(
      files.length === 1 ? `Uploading ${files[0]!.path}` : `Uploading ${files.length} files`,
      total,
      Boolean(process.stderr.isTTY) && !ctx.json && total > SHOW_PROGRESS_ABOVE,
    )
    const timeoutMs = Math.ceil(60_000 + total / 50) // a slow link must not time out a big upload
    if (files.length === 1) {
      const file = files[0]!
      const body = counted(Readable.toWeb(createReadStream(file.absolute)) as ReadableStream<Uint8Array>, (n) => bar.add(n))
      const result = await ctx.client.raw(uploadFile, {
        params: { id },
        body,
        headers: { 'content-length': String(file.size), 'x-file-path': encodeURI(file.path) },
        timeoutMs,
      })
      bar.finish()
      ctx.print({ ...result, bytes: file.size }, () => `Uploaded ${result.path} (${bytes(file.size)}) into the latest version`)
      return
    }
    const { body, contentType } = multipartBody(files)
    const result = await ctx.client.raw(uploadBatch, {
      params: { id },
      body: counted(body, (n) => bar.add(n)),
      headers: { 'content-type': contentType },
      timeoutMs,
    })
    bar.finish()
    // Some files landed: a success, with the skipped ones said where scripts and people both see it.
    if (result.skipped.length) ctx.warn(`skipped ${result.skipped.length} file(s) that are not images: ${result.skipped.join(', ')}; use folio sync for those.`)
    ctx.print(result, () => `Uploaded ${result.count} image(s) into the latest version`)
  })

/**
 * Files land at --to + their base name: shots/a.png and d2/a.png would both be a.png, and the
 * second would silently replace the first. Refused before anything is sent. The same file named
 * twice (overlapping globs) is simply sent once.
 */
function oneFilePerTarget<F extends { path: string; absolute: string }>(files: F[], given: string[]): F[] {
  const byTarget = new Map<string, { file: F; given: string }>()
  files.forEach((file, i) => {
    const earlier = byTarget.get(file.path)
    if (!earlier) byTarget.set(file.path, { file, given: given[i]! })
    else if (earlier.file.absolute !== file.absolute) {
      throw new CliError(
        `${earlier.given} and ${given[i]} would both be uploaded as ${file.path}, and one would replace the other. Upload them in separate runs with different --to folders.`,
      )
    }
  })
  return [...byTarget.values()].map((entry) => entry.file)
}
