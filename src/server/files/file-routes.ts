import type { H3 } from 'h3'
import { FastResponse } from 'srvx'
import { ERRORS } from '../../api/errors.js'
import { createFolio, deleteFolio, getFolio, listFolios, updateFolio } from '../../api/files.js'
import { defaultDescription } from '../../domain/html.js'
import { isFolioId } from '../../domain/ids.js'
import { LOCAL_WORKSPACE } from '../auth/auth.js'
import { noneMatchHits } from '../http/conditional.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { authorOf, cachedFolio, requireFolio } from '../auth/folio-access.js'
import { withinStorage } from '../limits/storage-quota.js'
import { JSON_CONTENT_TYPE, jsonBytes, jsonText, mountRoute, requestTarget, type RouteDeps } from '../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type FileRoutesDeps = RouteDeps & Pick<ServerContext, 'hot' | 'store' | 'templates' | 'viewerAccess'>

/** GET/POST /api/files, GET/PUT/DELETE /api/files/{id} */
export function registerFileRoutes(app: H3, ctx: FileRoutesDeps): void {
  const { folios, engagement, views } = ctx.store

  mountRoute(app, ctx, listFolios, async ({ event, principal }) => {
    const workspaceId = principal?.workspaceId ?? LOCAL_WORKSPACE
    const generation = ctx.hot.listGeneration(workspaceId)
    const list = await views.lists.get(workspaceId)
    const cacheControl = { 'cache-control': listFolios.response.headers['Cache-Control'] }
    if (list instanceof ReadableStream) return jsonText(list, { headers: cacheControl })
    // Served like a file: the next GET of this workspace's list skips the router, and a client
    // holding these bytes gets a 304.
    const headers = { etag: list.etag, ...cacheControl }
    if (views.lists.peek(workspaceId) === list) {
      ctx.hot.putList(requestTarget(event), {
        body: list.body,
        etag: list.etag,
        headers: cacheControl,
        contentType: JSON_CONTENT_TYPE,
        access: listFolios.access,
        workspaceId,
        generation,
      })
    }
    if (noneMatchHits(event.req.headers.get('if-none-match'), list.etag)) return new FastResponse(null, { status: 304, headers })
    return jsonBytes(event, list.body, headers)
  })

  mountRoute(app, ctx, createFolio, async ({ body, principal }) => {
    const projectMode = body.projectMode ?? 'deck'
    let files = { ...body.defaultFiles }
    if (body.initialHtml !== undefined) files['index.html'] = body.initialHtml
    if (Object.keys(files).length === 0) files = { 'index.html': await ctx.templates.starter(projectMode, body.title) }
    const { meta, head } = await withinStorage(ctx, principal, Object.values(files), () =>
      folios.create({
        meta: {
          workspaceId: principal?.workspaceId ?? LOCAL_WORKSPACE,
          title: body.title,
          description: body.description ?? defaultDescription(Object.keys(files)),
          // Spec: in OSS a folio is never private on create (PUT may make it private later).
          isPrivate: ctx.config.mode === 'oss' ? false : (body.isPrivate ?? false),
          accessKey: body.accessKey ?? '',
          allowComments: body.allowComments ?? true,
          presentationModeOnly: body.presentationModeOnly ?? false,
          commentModeration: body.commentModeration ?? 'anyone',
          status: body.status ?? 'draft',
          projectMode,
          // Spec: a new folio has no collaborators; they are added with PUT (Cloud).
          collaborators: [],
          designPreferences: body.designPreferences ?? {},
          referenceFiles: body.referenceFiles ?? [],
          publicTunnelEnabled: false,
        },
        files,
        commitMessage: body.commitMessage ?? 'Initial version',
        author: authorOf(ctx, principal),
      }),
    )
    return { success: true, project: await views.withHead(meta, head) }
  })

  mountRoute(app, ctx, getFolio, ({ event, params, query, principal }) => {
    // The hot path: an unchanged folio is answered from memory, synchronously, and left in the
    // hot cache so the next identical GET skips the router too.
    const meta = cachedFolio(ctx, params.id, principal)
    const cached = meta && views.peek(params.id, query.files)
    if (meta && cached) {
      ctx.hot.put(requestTarget(event), {
        body: cached,
        contentType: JSON_CONTENT_TYPE,
        access: getFolio.access,
        folioId: meta.id,
        workspaceId: meta.workspaceId,
        generation: ctx.hot.generation(meta.id),
      })
      return jsonBytes(event, cached)
    }
    return (async () => {
      await requireFolio(ctx, params.id, principal, ERRORS.projectNotFoundFullStop)
      const json = await views.full(params.id, query.files)
      if (json === undefined) throw fail(ERRORS.projectNotFoundFullStop)
      // A large folio comes as a stream, sent as it is made.
      return json instanceof ReadableStream ? jsonText(json) : jsonBytes(event, json)
    })()
  })

  mountRoute(app, ctx, updateFolio, async ({ params, query, body, principal }) => {
    await requireFolio(ctx, params.id, principal)
    const files = body.files ?? body.updated_files
    if (files && body.restoreVersionId !== undefined) {
      throw fail(ERRORS.invalidBody, 'Send either files (a new version) or restoreVersionId (a restore), not both.')
    }
    const {
      title,
      description,
      isPrivate,
      accessKey,
      allowComments,
      presentationModeOnly,
      commentModeration,
      notifyViews,
      projectMode,
      designPreferences,
      status,
      collaborators,
      publicTunnelEnabled,
      referenceFiles,
    } = body
    const result = await withinStorage(ctx, principal, Object.values(files ?? {}), async () => {
      const updated = await folios.update(params.id, {
        patch: {
          title,
          description,
          isPrivate,
          accessKey,
          allowComments,
          presentationModeOnly,
          commentModeration,
          notifyViews,
          projectMode,
          designPreferences,
          status,
          collaborators,
          publicTunnelEnabled,
          referenceFiles,
        },
        files,
        restoreVersionId: body.restoreVersionId,
        commitMessage: body.commitMessage ?? body.change_message,
        author: authorOf(ctx, principal),
      })
      if (!updated) throw fail(ERRORS.projectNotFound)
      return updated
    })
    // Only the owner reaches this endpoint: counts are set as sent.
    if (body.reactions) await engagement.react(params.id, { set: body.reactions, owner: true })
    return { success: true, project: await views.withHead(result.meta, result.head, query.files) }
  })

  mountRoute(app, ctx, deleteFolio, async ({ params, principal }) => {
    // The repository checks the workspace itself: a folio with damaged metadata can still go.
    if (!isFolioId(params.id) || !(await folios.delete(params.id, principal?.workspaceId ?? LOCAL_WORKSPACE))) throw fail(ERRORS.projectNotFound)
    return { success: true }
  })
}
