import { once } from 'node:events'
import busboy from 'busboy'
import type { H3, H3Event } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { uploadBatch, uploadFile } from '../../api/uploads.js'
import { checkFilePath } from '../../domain/file-paths.js'
import { mimeForPath, sniffImage } from '../../domain/image-sniff.js'
import { readBodyBytes, timedBodyReader } from '../http/body.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { requireFolio } from '../auth/folio-access.js'
import { mountRoute, type RouteDeps } from '../route.js'
import { withinStorage } from '../limits/storage-quota.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type UploadRoutesDeps = RouteDeps & Pick<ServerContext, 'store' | 'viewerAccess'>

const FORMATS = 'PNG, JPEG, GIF, WebP, ICO, BMP or SVG'

/**
 * The target path of an upload. x-file-path may be percent-encoded (a header cannot carry UTF-8
 * safely; the CLI sends encodeURI); a % that starts no valid escape is taken literally, so
 * `100%.png` works. Multipart filenames arrive decoded already and are taken as they are.
 */
function folioPath(raw: string, { percentEncoded }: { percentEncoded: boolean }): string {
  let path = raw
  if (percentEncoded && path.includes('%')) {
    try {
      path = decodeURIComponent(path)
    } catch {
      path = raw
    }
  }
  const checked = checkFilePath(path)
  if (!checked.ok) throw fail(ERRORS.invalidFilePath, `The path ${JSON.stringify(path.slice(0, 80))} ${checked.reason}.`)
  return checked.path
}

/**
 * Uploads carry images. A target whose name says it is something else (index.html, app.js)
 * is refused: an image written over a page would silently replace it in the latest version,
 * which uploads do not version.
 */
function namesNonImage(path: string): string | undefined {
  const byName = mimeForPath(path)
  return byName !== 'application/octet-stream' && !byName.startsWith('image/') ? byName.split(';')[0] : undefined
}

const fileTooLarge = (limit: number) => fail(ERRORS.fileTooLarge, `A file is over ${Math.round(limit / 1024 / 1024)} MB.`)

/** POST /api/files/{id}/upload and /upload-batch: images into the latest version, no new version. */
export function registerUploadRoutes(app: H3, ctx: UploadRoutesDeps): void {
  const limit = ctx.config.limits.uploadBytes

  mountRoute(app, ctx, uploadFile, async ({ event, params, principal }) => {
    const raw = event.req.headers.get('x-file-path')
    if (!raw) throw fail(ERRORS.missingFilePath, 'Name the target path, e.g. x-file-path: img/logo.png')
    const type = event.req.headers.get('content-type') ?? ''
    if (!type.toLowerCase().startsWith('application/octet-stream')) {
      throw fail(ERRORS.octetStreamRequired, 'Send the raw bytes with Content-Type: application/octet-stream.')
    }
    const path = folioPath(raw, { percentEncoded: true })
    const otherType = namesNonImage(path)
    if (otherType)
      throw fail(
        ERRORS.unsupportedFileType,
        `${path} names a ${otherType} file; uploads carry ${FORMATS} images. Change pages with PUT /api/files/{id} or folio sync.`,
      )
    await requireFolio(ctx, params.id, principal, ERRORS.notFound)
    const bytes = await readBodyBytes(event, limit, () => fileTooLarge(limit))
    const mime = sniffImage(bytes)
    if (!mime) throw fail(ERRORS.unsupportedFileType, `${path} is not a ${FORMATS} image (judged by its bytes, not its name).`)
    await withinStorage(ctx, principal, [bytes], async () => {
      if (!(await ctx.store.folios.mergeIntoHead(params.id, [{ path, bytes, mime }]))) throw fail(ERRORS.notFound)
    })
    return { success: true, path }
  })

  mountRoute(app, ctx, uploadBatch, async ({ event, params, principal }) => {
    const type = event.req.headers.get('content-type') ?? ''
    if (!type.toLowerCase().startsWith('multipart/form-data')) {
      throw fail(ERRORS.multipartRequired, 'Send the files as multipart/form-data parts; each part’s filename is its path.')
    }
    await requireFolio(ctx, params.id, principal, ERRORS.notFound)
    const parts = await readParts(event, type, limit, ctx.config.limits.batchUploadBytes)
    const images: Array<{ path: string; bytes: Buffer; mime: string }> = []
    const skipped: string[] = []
    for (const part of parts) {
      const mime = namesNonImage(part.path) ? undefined : sniffImage(part.bytes)
      if (mime) images.push({ ...part, mime })
      else skipped.push(part.path)
    }
    if (images.length === 0)
      throw fail(ERRORS.noImageFiles, `No part is a ${FORMATS} image${skipped.length ? ` (skipped: ${skipped.slice(0, 5).join(', ')})` : ''}.`)
    // One write for the whole batch: every image lands, or none does.
    await withinStorage(
      ctx,
      principal,
      images.map((image) => image.bytes),
      async () => {
        if (!(await ctx.store.folios.mergeIntoHead(params.id, images))) throw fail(ERRORS.notFound)
      },
    )
    return { success: true, count: images.length, paths: images.map((i) => i.path), skipped }
  })
}

/**
 * Streams the multipart body, refusing a bad path as soon as its part starts and a file as
 * soon as it passes the limit. Parts are kept in memory (bounded) until the single write.
 */
async function readParts(event: H3Event, contentType: string, fileLimit: number, totalLimit: number): Promise<Array<{ path: string; bytes: Buffer }>> {
  const body = event.req.body
  if (!body) return []
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        preservePath: true,
        defParamCharset: 'utf8',
        limits: { fileSize: fileLimit, files: 10_000, fields: 1000, parts: 11_000 },
      })
    } catch {
      reject(fail(ERRORS.invalidBody, 'The multipart body has no boundary.'))
      return
    }
    const parts: Array<{ path: string; bytes: Buffer }> = []
    let total = 0
    let failed = false
    const reader = timedBodyReader(event, body)
    const failOnce = (error: Error) => {
      if (failed) return
      failed = true
      reject(error)
    }
    parser.on('file', (_field, file, info) => {
      let path: string
      try {
        path = folioPath(info.filename ?? '', { percentEncoded: false })
      } catch (error) {
        file.resume()
        return failOnce(error as Error)
      }
      const chunks: Buffer[] = []
      // A body that ends inside a part fails the part's stream too; unheard, that error would
      // bring the whole process down.
      file.on('error', () => failOnce(fail(ERRORS.invalidBody, 'The multipart body ends inside a part.')))
      file.on('data', (chunk: Buffer) => {
        total += chunk.length
        if (total > totalLimit) failOnce(fail(ERRORS.fileTooLarge, `The batch is over ${Math.round(totalLimit / 1024 / 1024)} MB; send it in parts.`))
        else chunks.push(chunk)
      })
      file.on('limit', () => failOnce(fileTooLarge(fileLimit)))
      file.on('end', () => {
        if (!failed) parts.push({ path, bytes: Buffer.concat(chunks) })
      })
    })
    parser.on('error', () => failOnce(fail(ERRORS.invalidBody, 'The multipart body is malformed.')))
    parser.on('close', () => {
      if (!failed) resolve(parts)
    })
    void (async () => {
      try {
        for (;;) {
          const value = await reader.next()
          if (!value) break
          if (failed) return reader.discardRest()
          if (!parser.write(value)) await once(parser, 'drain')
        }
        if (!failed) parser.end()
      } catch (error) {
        // Cut off (400) or too slow (408).
        failOnce(error as Error)
      }
    })()
  })
}
