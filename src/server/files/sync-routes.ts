import type { H3 } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { getSyncManifest, syncFiles } from '../../api/sync.js'
import { versionId } from '../../domain/ids.js'
import { mimeForPath, sniffImage } from '../../domain/image-sniff.js'
import { VersionConflictError } from '../../store/index.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { authorOf, requireFolio } from '../auth/folio-access.js'
import { mountRoute, type RouteDeps } from '../route.js'
import { withinStorage } from '../limits/storage-quota.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type SyncRoutesDeps = RouteDeps & Pick<ServerContext, 'store' | 'viewerAccess'>

type SyncContent = string | { base64: string } | null

/** Bytes of a synced file: text as UTF-8, {base64} as binary (typed by its bytes, else its name). */
function decode(path: string, content: SyncContent): { path: string; bytes: Buffer | null; mime?: string } {
  if (content === null) return { path, bytes: null }
  if (typeof content === 'string') return { path, bytes: Buffer.from(content, 'utf8') }
  const base64 = content.base64.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw fail(ERRORS.invalidBody, `files["${path}"].base64 is not base64.`)
  const bytes = Buffer.from(base64, 'base64')
  const byName = mimeForPath(path)
  return { path, bytes, mime: sniffImage(bytes) ?? (byName.startsWith('text/') ? 'application/octet-stream' : byName.split(';')[0]!) }
}

/** GET/POST /api/files/{id}/sync: what the latest version holds, and the watcher's push. */
export function registerSyncRoutes(app: H3, ctx: SyncRoutesDeps): void {
  mountRoute(app, ctx, getSyncManifest, async ({ params, principal }) => {
    const meta = await requireFolio(ctx, params.id, principal)
    const head = await ctx.store.folios.manifest(meta.id, meta.head)
    if (!head) throw fail(ERRORS.projectNotFound)
    const files: Record<string, { sha256: string; size: number }> = {}
    for (const [path, ref] of Object.entries(head.files)) files[path] = { sha256: ref.h, size: ref.s }
    return { versionId: head.versionId, files }
  })

  mountRoute(app, ctx, syncFiles, async ({ params, body, principal }) => {
    await requireFolio(ctx, params.id, principal)
    let entries: Array<[string, SyncContent]>
    if (body.files) entries = Object.entries(body.files)
    else if (body.filename !== undefined && body.content !== undefined) entries = [[body.filename, body.content]]
    else throw fail(ERRORS.invalidBody, 'Send {files: {path: content | null}} or {filename, content}.')
    const changes = entries.map(([path, content]) => decode(path, content))
    const result = await withinStorage(
      ctx,
      principal,
      changes.map((c) => c.bytes),
      async () => {
        try {
          const patched = await ctx.store.folios.applyPatch(params.id, {
            changes,
            message: body.message ?? body.change_message,
            author: authorOf(ctx, principal),
            baseVersionId: body.baseVersionId,
          })
          if (!patched) throw fail(ERRORS.projectNotFound)
          return patched
        } catch (error) {
          if (error instanceof VersionConflictError)
            throw fail(ERRORS.versionConflict, `${error.message}: fetch GET /api/files/${params.id}/sync and diff again.`)
          throw error
        }
      },
    )
    return { success: true, versionId: versionId(result.meta.head), changed: result.changed, files: result.counts }
  })
}
