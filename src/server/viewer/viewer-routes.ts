import type { H3, H3Event } from 'h3'
import { FastResponse } from 'srvx'
import { ERRORS } from '../../api/errors.js'
import { dashboardPage, folioPage, rawFile, renewFrame, sharePage, viewerAsset } from '../../api/viewer.js'
import { PAGE_COMMENTS } from '../../api/engagement.js'
import { compareFilePaths } from '../../domain/file-paths.js'
import { escapeHtml } from '../../domain/html.js'
import { injectAtDocumentStart, injectBeforeBodyEnd, inlineScript, jsonForScript } from '../../domain/html-inject.js'
import { isFolioId, versionId } from '../../domain/ids.js'
import { mimeForPath } from '../../domain/image-sniff.js'
import type { FolioMeta } from '../../domain/model.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { isOwner, requireViewable } from '../auth/folio-access.js'
import { mountRoute, requestTarget, type RouteDeps } from '../route.js'
import { accessCookie, EXPIRED, frameAccess, type Grant, grantOf } from '../auth/viewer-access.js'
import { noneMatchHits } from '../http/conditional.js'
import { compress, type ContentEncoding, isCompressible, preferredEncoding } from '../http/content-encoding.js'
import { renderSharePage, type ShareBoot } from './share-page.js'
import { isBot } from '../../domain/bots.js'
import { type LinkStatus, linkStatus } from '../../domain/recipient-links.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type ViewerRoutesDeps = RouteDeps & Pick<ServerContext, 'compressed' | 'hot' | 'store' | 'viewerAccess' | 'web'>

/**
 * Sent with every file of a folio: its scripts run in a sandbox with an opaque origin (no
 * cookies, no storage, no same-origin API calls), even when the file is opened on its own.
 */
const FOLIO_FILE_HEADERS = {
  'content-security-policy': 'sandbox allow-scripts allow-popups allow-forms allow-modals allow-downloads',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/**
 * A file under a version's base (/v/{id}/{access}@v3/…) never changes: the browser keeps it, and
 * the next view of that version loads nothing again. Private: only the viewer's own browser, never
 * a shared cache (a tunnel's edge, a proxy) that would go on serving it after the folio is
 * unpublished. Under the bare base (…/{access}/…: the latest, whatever it is) it is checked
 * each time, against the strong ETag.
 */
const VERSIONED_CACHE = 'private, max-age=31536000, immutable'
const LATEST_CACHE = 'no-cache'
const IMMUTABLE_ASSET_CACHE = 'public, max-age=31536000, immutable'

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'x-content-type-options': 'nosniff',
  // Not no-referrer: that would make the page's own POSTs carry Origin: null.
  'referrer-policy': 'same-origin',
}

/** The share page, the folio's files behind it, the dashboard and their assets. */
export function registerViewerRoutes(app: H3, ctx: ViewerRoutesDeps): void {
  const { folios, engagement } = ctx.store
  const encoded = (event: H3Event, body: Buffer, headers: Record<string, string>, copyKey?: string, status?: number) =>
    encodedAnswer(ctx, event, body, headers, copyKey, status)
  // no-store: the page may carry a signed, short-lived frame link.
  const shareAnswer = (event: H3Event, boot: ShareBoot, options: { status?: number; noindex: boolean }) =>
    encoded(event, Buffer.from(renderSharePage(ctx.web, boot, options)), { ...PAGE_HEADERS, 'cache-control': 'no-store' }, undefined, options.status)

  // One shell for both: the page reads the folio id from its address and asks the API.
  const dashboardBody = Buffer.from(ctx.web.dashboardPage)
  const dashboard = ({ event }: { event: H3Event }) => encoded(event, dashboardBody, { ...PAGE_HEADERS, 'cache-control': 'no-cache' }, 'dashboard.html')
  mountRoute(app, ctx, dashboardPage, dashboard)
  mountRoute(app, ctx, folioPage, dashboard)

  mountRoute(app, ctx, viewerAsset, async ({ event, params }) => {
    const asset = ctx.web.get(params.asset)
    if (!asset) throw fail(ERRORS.notFound)
    // The hashed name a page links to is immutable; the bare name (bridge.js) is whatever is newest.
    const cache = params.asset === asset.file ? IMMUTABLE_ASSET_CACHE : 'no-cache'
    const headers = { 'content-type': asset.type, etag: asset.etag, 'cache-control': cache, 'x-content-type-options': 'nosniff', vary: 'accept-encoding' }
    if (noneMatchHits(event.req.headers.get('if-none-match'), asset.etag)) return new FastResponse(null, { status: 304, headers })
    const encoding = preferredEncoding(event.req.headers.get('accept-encoding'))
    const body = encoding ? asset.encoded[encoding] : undefined
    if (encoding && body) return new FastResponse(asBody(body), { headers: { ...headers, 'content-encoding': encoding } })
    return new FastResponse(asBody(asset.body), { headers })
  })

  mountRoute(app, ctx, sharePage, async ({ event, params, query }) => {
    const missing = () => shareAnswer(event, { id: params.id, title: 'Not found', view: 'missing' }, { status: 404, noindex: true })
    const meta = isFolioId(params.id) ? await folios.get(params.id) : undefined
    if (!meta) return missing()
    let grant = await grantOf(ctx, event, meta)
    let preview = false
    const owner = isOwner(ctx, event, meta)
    // The owner may preview a draft or private folio (in OSS the local API is open).
    if (query.preview !== undefined && owner) {
      grant = { kind: 'owner' }
      preview = true
      event.res.headers.append('set-cookie', await accessCookie(ctx.viewerAccess, meta.id, grant, event.url.protocol === 'https:'))
    }
    // Search engines keep out of drafts and private folios, whoever opens them.
    const noindex = meta.isPrivate || meta.status === 'draft'
    // A link preview or a crawler fetched it: counted apart, never as a view (domain/bots.ts).
    // A browser's view is counted by the page's own beacon, once the folio is on screen.
    // Awaited: a bot is in no hurry, and a flood of them then waits on its own writes.
    if (meta.status !== 'draft' && isBot(event.req.headers.get('user-agent'))) await engagement.recordBotView(meta.id)
    // A recipient's link that no longer lets anyone in: a page that says so, and nothing counted.
    const link = query.link === undefined ? undefined : await recipientLink(meta.id, query.link)
    if (link && link.status !== 'active' && !preview) {
      return shareAnswer(event, { id: meta.id, title: meta.title, view: 'link-ended', linkStatus: link.status }, { status: 410, noindex: true })
    }
    if (!(await ctx.viewerAccess.canView(meta, grant))) {
      // A draft is its owner's: anyone else gets the very page a folio that does not exist gets
      // (nothing of the draft: no title, no description, no link-preview tags of its own). Its
      // owner without a grant (OSS's open local API) sees the draft notice.
      if (meta.status === 'draft' && !owner) return missing()
      return shareAnswer(
        event,
        { id: meta.id, title: meta.title, description: meta.description, view: meta.status === 'draft' ? 'draft' : 'gate', api: `/api/files/${meta.id}` },
        { noindex },
      )
    }
    const boot = await contentBoot(ctx, meta, grant, preview)
    return shareAnswer(event, link ? { ...boot, link: link.id } : boot, { noindex })
  })

  /** The status of a recipient link (an unknown id is one that was never valid: expired). */
  async function recipientLink(folioId: string, id: string): Promise<{ id: string; status: LinkStatus }> {
    const found = (await engagement.analytics(folioId)).links?.[id]
    return { id, status: found ? linkStatus(found, new Date()) : 'expired' }
  }

  // Added to every HTML file of a folio, inline: the storage stand-ins before the page's own
  // scripts, the bridge after them. Inline because a sandboxed frame's own requests are never
  // served from the browser's cache on the next view (its opaque origin gets a cache partition of
  // its own each time), while the page, under its version's immutable address, is.
  const shims = inlineScript(ctx.web.text('storage-shims.js'))
  const bridge = ctx.web.text('bridge.js')
  inlineScript(bridge) // refuses one that could not be inlined, at start rather than on a viewer's request
  const pageAdditions = `${ctx.web.get('storage-shims.js')!.etag.slice(1, 7)}${ctx.web.get('bridge.js')!.etag.slice(1, 7)}`

  mountRoute(app, ctx, rawFile, async ({ event, params }) => {
    const generation = isFolioId(params.id) ? ctx.hot.generation(params.id) : 0
    const meta = isFolioId(params.id) ? await folios.get(params.id) : undefined
    if (!meta) throw fail(ERRORS.notFound)
    const { access, version } = frameSegment(params.access)
    const found = access === '-' ? undefined : await ctx.viewerAccess.check(access, meta.id, 'frame')
    // A page of the frame whose token ran out asks the share page for a fresh one.
    if (found === EXPIRED && isNavigation(event)) return expiredPage(params.path, event.url.search)
    const grant = found === EXPIRED ? undefined : found
    if ((access !== '-' && !grant) || !(await ctx.viewerAccess.canView(meta, grant))) {
      // A draft: the answer an unknown folio gets, word for word.
      if (meta.status === 'draft') throw fail(ERRORS.notFound)
      throw fail(ERRORS.notFound, 'This link has expired or the folio is not public: open its share page again.')
    }
    if (version !== undefined && version !== meta.head) {
      // An older version's address: viewers see the latest (an older one may hold what its author took out).
      if (version > meta.head) throw fail(ERRORS.notFound, `This folio has no version v${version}.`)
      const latest = `/v/${meta.id}/${access}@${versionId(meta.head)}/${params.path ?? ''}${event.url.search}`
      return new FastResponse(null, { status: 302, headers: { location: latest, 'cache-control': 'no-store', ...FOLIO_FILE_HEADERS } })
    }
    const head = await folios.manifest(meta.id, meta.head)
    const path = filePath(params.path)
    const ref = path !== undefined ? head?.files[path] : undefined
    if (!ref || path === undefined) throw fail(ERRORS.notFound, `This folio has no file ${JSON.stringify(path ?? params.path)}.`)
    const type = mimeForPath(path, ref.m)
    const isHtml = type.startsWith('text/html')
    // Strong validator: the content hash (and, for pages, what is added to them).
    const etag = `"${ref.h}${isHtml ? `.${pageAdditions}` : ''}"`
    const headers = {
      'content-type': type,
      etag,
      ...FOLIO_FILE_HEADERS,
      'cache-control': version === undefined ? LATEST_CACHE : VERSIONED_CACHE,
      vary: 'accept-encoding',
    }
    if (noneMatchHits(event.req.headers.get('if-none-match'), etag)) return new FastResponse(null, { status: 304, headers })
    // Through the folio: a content replaced a moment ago may already sit in its packed history.
    let body = await folios.served(meta.id, ref)
    const base = `/v/${meta.id}/${params.access}/`
    if (isHtml) {
      const tail = `<script data-folio-base="${escapeHtml(base)}">${bridge}</script>`
      body = Buffer.from(injectBeforeBodyEnd(injectAtDocumentStart(body.toString('utf8'), shims), tail))
    }
    if (access === '-') {
      const { 'content-type': contentType, etag: _etag, ...rest } = headers
      ctx.hot.put(requestTarget(event), { body, contentType, etag, headers: rest, access: 'public', folioId: meta.id, generation })
    }
    // Its compressed copy is kept under what names these bytes: the content's hash, and for a page
    // the base written into it too (the same page of two folios, or under two tokens, differs).
    return encoded(event, body, headers, isHtml ? `${etag}${base}` : etag)
  })

  mountRoute(app, ctx, renewFrame, async ({ event, params }) => {
    const { meta, grant } = await requireViewable(ctx, event, params.id)
    event.res.headers.set('cache-control', 'no-store')
    return frameAccess(ctx.viewerAccess, meta, grant)
  })

  async function contentBoot(ctx: ViewerRoutesDeps, meta: FolioMeta, grant: Grant | undefined, preview: boolean) {
    const latest = versionId(meta.head)
    const [head, comments, reactions] = await Promise.all([
      folios.manifest(meta.id, meta.head),
      engagement.openComments(meta.id, latest, PAGE_COMMENTS),
      engagement.reactions(meta.id),
    ])
    const files = Object.keys(head?.files ?? {}).sort(compareFilePaths)
    const frame = await frameAccess(ctx.viewerAccess, meta, grant)
    return {
      id: meta.id,
      title: meta.title,
      description: meta.description,
      view: 'content' as const,
      preview,
      draft: meta.status === 'draft',
      isPrivate: meta.isPrivate,
      allowComments: meta.allowComments,
      presentationModeOnly: meta.presentationModeOnly,
      latestVersionId: latest,
      activeFileList: files,
      entry: files.includes('index.html') ? 'index.html' : (files.find((f) => /\.html?$/i.test(f)) ?? files[0] ?? 'index.html'),
      frameBase: frame.frameBase,
      frameExpiresAt: frame.expiresAt,
      frameTokenSeconds: ctx.viewerAccess.frameTokenSeconds,
      comments,
      reactions,
      api: `/api/files/${meta.id}`,
    }
  }
}

/**
 * An answer in the encoding the client prefers, when it is worth compressing. `copyKey` names
 * these exact bytes (an ETag, with the address for pages that carry it): their compressed copy is
 * made once and kept (ctx.compressed); without one (a page made for this request) it is made now.
 */
async function encodedAnswer(ctx: ViewerRoutesDeps, event: H3Event, body: Buffer, headers: Record<string, string>, copyKey: string | undefined, status = 200) {
  const encoding = preferredEncoding(event.req.headers.get('accept-encoding'))
  const all = { ...headers, vary: 'accept-encoding' }
  if (!encoding || !isCompressible(headers['content-type'] ?? '', body.length)) return new FastResponse(asBody(body), { status, headers: all })
  const copy = copyKey === undefined ? await compress(body, encoding) : await ctx.compressed.get(copyKey, encoding, body)
  if (copy === body || copy.length >= body.length) return new FastResponse(asBody(body), { status, headers: all })
  return new FastResponse(asBody(copy), { status, headers: { ...all, 'content-encoding': encoding satisfies ContentEncoding } })
}

/** The frame loading a page (not a script, image or fetch of it): browsers say so in Sec-Fetch-Dest. */
function isNavigation(event: H3Event): boolean {
  const dest = event.req.headers.get('sec-fetch-dest')
  if (dest) return dest === 'iframe' || dest === 'document'
  return (event.req.headers.get('accept') ?? '').includes('text/html')
}

/**
 * In the frame, for a page whose token ran out: the share page (its parent, which checks that
 * the message comes from its frame) reloads the frame at the same path with a fresh token.
 * Opened on its own it just says what happened.
 */
function expiredPage(rawPath: string | undefined, search: string) {
  const path = (filePath(rawPath) ?? 'index.html') + search
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link expired</title></head><body>
<p>This link has expired: open the folio's share page again.</p>
<script>(() => {
  if (window.parent === window) return;
  window.parent.postMessage({ source: 'folio-bridge', type: 'expired', path: ${jsonForScript(path)} }, new URL('/', location.href).origin);
})();</script>
</body></html>`
  return new FastResponse(html, { status: 404, headers: { ...FOLIO_FILE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } })
}

/** "-@v3" → the access ("-" or a frame token) and the version it names, if it names one. */
function frameSegment(segment: string): { access: string; version?: number } {
  const m = /^(.+)@v(\d{1,9})$/.exec(segment)
  return m ? { access: m[1]!, version: Number(m[2]) } : { access: segment }
}

/** A Buffer is a Uint8Array, which srvx sends as is; the DOM typings just do not say so. */
const asBody = (bytes: Buffer) => bytes as unknown as BodyInit

/** The file a raw URL names: percent-decoded, a folder means its index.html; undefined if malformed. */
function filePath(raw: string | undefined): string | undefined {
  try {
    const path = decodeURIComponent(raw ?? '')
    return path === '' || path.endsWith('/') ? `${path}index.html` : path
  } catch {
    return undefined
  }
}
