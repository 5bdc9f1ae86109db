import { EventStream, type H3 } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { folioEvents, getPublicFolio, type RevokedReason, verifyAccessKey } from '../../api/sharing.js'
import { PAGE_COMMENTS } from '../../api/engagement.js'
import { compareFilePaths } from '../../domain/file-paths.js'
import { isFolioId, versionId } from '../../domain/ids.js'
import type { FolioMeta } from '../../domain/model.js'
import { secretsEqual } from '../auth/auth.js'
import { isTooSlow, readBodyBytes } from '../http/body.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { hiddenDraft, isOwner, requireViewable } from '../auth/folio-access.js'
import { tooManyGuesses } from '../limits/rate-limit.js'
import { namesOneClient } from '../http/remote.js'
import { clientAddress, JSON_CONTENT_TYPE, jsonBytes, mountRoute, requestTarget, type RouteDeps } from '../route.js'
import { accessCookie, type Grant, grantOf } from '../auth/viewer-access.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type SharingRoutesDeps = RouteDeps & Pick<ServerContext, 'hot' | 'keyGuesses' | 'live' | 'store' | 'streams' | 'viewerAccess'>

/** GET/POST /api/files/{id}/public and the live event stream of a share page. */
export function registerSharingRoutes(app: H3, ctx: SharingRoutesDeps): void {
  const { folios, engagement } = ctx.store

  const publicView = async (meta: FolioMeta, visible: boolean) => {
    const latest = versionId(meta.head)
    // The page shows the newest open comments of the latest version: never more than that.
    const [head, comments, reactions] = await Promise.all([
      folios.manifest(meta.id, meta.head),
      visible ? engagement.openComments(meta.id, latest, PAGE_COMMENTS) : [],
      engagement.reactions(meta.id),
    ])
    return {
      id: meta.id,
      title: meta.title,
      description: meta.description,
      isPrivate: meta.isPrivate,
      allowComments: meta.allowComments,
      commentModeration: meta.commentModeration ?? 'anyone',
      presentationModeOnly: meta.presentationModeOnly,
      hasAccessKey: meta.accessKey.trim() !== '',
      status: meta.status,
      draft: meta.status === 'draft',
      latestVersionId: latest,
      activeFileList: visible ? Object.keys(head?.files ?? {}).sort(compareFilePaths) : [],
      comments,
      reactions,
    }
  }

  mountRoute(app, ctx, getPublicFolio, async ({ event, params }) => {
    const generation = isFolioId(params.id) ? ctx.hot.generation(params.id) : 0
    const meta = isFolioId(params.id) ? await folios.get(params.id) : undefined
    if (!meta) throw fail(ERRORS.projectNotFound)
    const grant = await grantOf(ctx, event, meta)
    const visible = await ctx.viewerAccess.canView(meta, grant)
    // A draft is its owner's: to anyone else, no such folio (not even its title).
    if (!visible && hiddenDraft(ctx, event, meta, grant)) throw fail(ERRORS.projectNotFound)
    const json = JSON.stringify(await publicView(meta, visible))
    // What everybody sees of a published public folio is the same: keep it for the hot path.
    if (await ctx.viewerAccess.canView(meta, undefined)) {
      ctx.hot.put(requestTarget(event), { body: json, contentType: JSON_CONTENT_TYPE, access: 'public', folioId: meta.id, rateLimit: 'public', generation })
    }
    return jsonBytes(event, json)
  })

  mountRoute(app, ctx, verifyAccessKey, async ({ event, params }) => {
    // Spec: always 200 {success}; anything wrong (unknown folio, bad body, wrong key) is false.
    // Too many wrong keys from this client (or, past the folio's ceiling, from a client that
    // guessed it wrong before) is the rate limit: 429, decided before any comparison (key-guesses.ts).
    event.res.headers.set('cache-control', 'no-store')
    let given: unknown
    try {
      given = JSON.parse((await readBodyBytes(event, 16 * 1024, () => fail(ERRORS.invalidBody))).toString('utf8'))?.accessKey
    } catch (error) {
      // A body too slow to read is no answer at all: 408, and the connection closes.
      if (isTooSlow(error)) throw error
      given = undefined
    }
    const known = isFolioId(params.id) ? await folios.get(params.id) : undefined
    // Nothing to guess (no such folio, no key, no key given): not counted.
    if (!known || known.accessKey.trim() === '' || typeof given !== 'string') return { success: false }
    // A draft is its owner's: to anyone else it is a folio that does not exist, whose answer is
    // the one above (never a 404 here: that would be the one answer telling a draft apart). Its
    // key is not compared, so it is no oracle either.
    if (hiddenDraft(ctx, event, known, await grantOf(ctx, event, known))) return { success: false }
    const client = clientAddress(ctx, event)
    const admission = await ctx.keyGuesses.admit(known.id, { id: client, identified: namesOneClient(client) })
    if ('retryAfterSeconds' in admission) throw tooManyGuesses(admission.retryAfterSeconds)
    let success = false
    try {
      // Read again: the key may have changed while the attempt waited its turn.
      const meta = await folios.get(known.id)
      const expected = meta?.accessKey.trim() ?? ''
      // (Made a draft while the attempt waited: as above.)
      const hidden = meta !== undefined && hiddenDraft(ctx, event, meta, await grantOf(ctx, event, meta))
      success = expected !== '' && !hidden && secretsEqual(given.trim(), expected)
      if (success && meta) {
        const grant = { kind: 'key', keyHash: await ctx.viewerAccess.fingerprint(meta.accessKey) } as const
        event.res.headers.append('set-cookie', await accessCookie(ctx.viewerAccess, meta.id, grant, event.url.protocol === 'https:'))
      }
    } finally {
      admission.attempt.done(success)
    }
    return { success }
  })

  mountRoute(app, ctx, folioEvents, async ({ event, params }) => {
    const { meta, grant } = await requireViewable(ctx, event, params.id)
    const slot = ctx.streams.take(clientAddress(ctx, event))
    if ('refused' in slot) throw slot.refused
    const stream = new EventStream(event)
    let open = true
    const send = (name: string, data: object) => void stream.push({ event: name, data: JSON.stringify(data) }).catch(() => {})
    // The page is told why before the stream ends, so it takes the content off the screen at
    // once instead of reconnecting into a 403 (issue 9).
    const revoke = (reason: RevokedReason) => {
      if (!open) return
      open = false
      send('revoked', { reason })
      if (reason === 'deleted') send('deleted', {})
      void stream.close()
    }
    // Views starting and ending are the author's to hear, not other viewers'.
    const owner = grant?.kind === 'owner' || isOwner(ctx, event, meta)
    const unsubscribe = ctx.live.subscribe(meta.id, async ({ event: name, data }) => {
      if (!open || (name === 'view' && !owner)) return
      if (name === 'closing') {
        open = false
        return void stream.close()
      }
      if (name === 'deleted') return revoke('deleted')
      // Access is judged again before every event, not only on metadata events: a single PUT can
      // make a folio private or draft (or change its key) and add files at once, and a viewer who
      // may no longer see it must not receive its file list, comments or reactions.
      const now = await folios.get(meta.id)
      if (!now) return revoke('deleted')
      if (!(await ctx.viewerAccess.canView(now, grant))) return revoke(await revokedBecause(ctx, now, grant, hiddenDraft(ctx, event, now, grant)))
      if (open) send(name, data)
    })
    // Headers go out with the first chunk: send one at once. Then keep proxies from timing out.
    void stream.pushComment('folio live updates').catch(() => {})
    const heartbeat = setInterval(() => void stream.pushComment('keep-alive').catch(() => {}), 25_000)
    heartbeat.unref()
    stream.onClosed(() => {
      open = false
      clearInterval(heartbeat)
      unsubscribe()
      slot.release()
    })
    return stream
  })
}

/**
 * Why a viewer holding `grant` may no longer see the folio as it is now. A draft is not there at
 * all for anyone but its owner (hidden): for them it went as a deleted folio goes.
 */
async function revokedBecause(ctx: SharingRoutesDeps, now: FolioMeta, grant: Grant | undefined, hidden: boolean): Promise<RevokedReason> {
  if (now.status === 'draft') return hidden ? 'deleted' : 'draft'
  // They had proved a key and the folio is still private: the key is not that one any more.
  if (grant?.kind === 'key' && now.accessKey.trim() !== '' && grant.keyHash !== (await ctx.viewerAccess.fingerprint(now.accessKey))) return 'key-changed'
  return 'private'
}
