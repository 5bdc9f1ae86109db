import type { H3, H3Event } from 'h3'
import { FastResponse } from 'srvx'
import { ERRORS } from '../../api/errors.js'
import { dashboardPage, folioPage, rawFile, renewFrame, sharePage, viewerAsset } from '../../api/viewer.js'
import { PAGE_COMMENTS } from '../../api/engagement.js'
import { compareFilePaths } from '../../domain/file-paths.js'
import { escapeHtml } from '../../domain/html.js'
import { injectBeforeBodyEnd, jsonForScript } from '../../domain/html-inject.js'
import { isFolioId, versionId } from '../../domain/ids.js'
import { mimeForPath } from '../../domain/image-sniff.js'
import type { FolioMeta } from '../../domain/model.js'
import type { ServerContext } from '../context.js'
import { fail } from '../errors.js'
import { isOwner, requireViewable } from '../folio-access.js'
import { mountRoute, requestTarget } from '../route.js'
import { accessCookie, EXPIRED, frameAccess, type Grant, grantOf } from '../viewer-access.js'
import { noneMatchHits } from '../conditional.js'

/**
 * Sent with every file of a folio: its scripts run in a sandbox with an opaque origin (no
 * cookies, no storage, no same-origin API calls), even when the file is opened on its own.
 */
const FOLIO_FILE_HEADERS = {
  'content-security-policy': 'sandbox allow-scripts allow-popups allow-forms allow-modals allow-downloads',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'x-content-type-options': 'nosniff',
  // Not no-referrer: that would make the page's own POSTs carry Origin: null.
  'referrer-policy': 'same-origin',
}

/** The share page, the folio's files behind it, the dashboard and their assets. */
export function registerViewerRoutes(app: H3, ctx: ServerContext): void {
  const { folios, engagement } = ctx.store

  // One shell for both: the page reads the folio id from its address and asks the API.
  const dashboard = async () => {
    const page = await ctx.templates.asset('index.html')
    if (!page) throw fail(ERRORS.notFound)
    return new FastResponse(asBody(page.body), { headers: { ...PAGE_HEADERS, 'cache-control': 'no-cache' } })
  }
  mountRoute(app, ctx, dashboardPage, dashboard)
  mountRoute(app, ctx, folioPage, dashboard)

  mountRoute(app, ctx, viewerAsset, async ({ event, params }) => {
    const asset = await ctx.templates.asset(params.asset)
    if (!asset || params.asset === 'index.html' || params.asset === 'share.html') throw fail(ERRORS.notFound)
    const headers = { 'content-type': asset.type, etag: asset.etag, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }
    if (noneMatchHits(event.req.headers.get('if-none-match'), asset.etag)) return new FastResponse(null, { status: 304, headers })
    return new FastResponse(asBody(asset.body), { headers })
  })

  mountRoute(app, ctx, sharePage, async ({ event, params, query }) => {
    const meta = isFolioId(params.id) ? await folios.get(params.id) : undefined
    if (!meta) return renderShare(ctx, { id: params.id, title: 'Not found', view: 'missing' }, { status: 404, noindex: true })
    let grant = await grantOf(ctx, event, meta)
    let preview = false
    // The owner may preview a draft or private folio (in OSS the local API is open).
    if (query.preview !== undefined && isOwner(ctx, event, meta)) {
      grant = { kind: 'owner' }
      preview = true
      event.res.headers.append('set-cookie', await accessCookie(ctx.viewerAccess, meta.id, grant, event.url.protocol === 'https:'))
    }
    // Search engines keep out of drafts and private folios, whoever opens them.
    const noindex = meta.isPrivate || meta.status === 'draft'
    if (!(await ctx.viewerAccess.canView(meta, grant))) {
      return renderShare(ctx, { id: meta.id, title: meta.title, description: meta.description, view: meta.status === 'draft' ? 'draft' : 'gate', api: `/api/files/${meta.id}` }, { noindex })
    }
    return renderShare(ctx, await contentBoot(ctx, meta, grant, preview), { noindex })
  })

  mountRoute(app, ctx, rawFile, async ({ event, params }) => {
    const generation = isFolioId(params.id) ? ctx.hot.generation(params.id) : 0
    const meta = isFolioId(params.id) ? await folios.get(params.id) : undefined
    if (!meta) throw fail(ERRORS.notFound)
    const found = params.access === '-' ? undefined : await ctx.viewerAccess.check(params.access, meta.id, 'frame')
    // A page of the frame whose token ran out asks the share page for a fresh one.
    if (found === EXPIRED && isNavigation(event)) return expiredPage(params.path, event.url.search)
    const grant = found === EXPIRED ? undefined : found
    if ((params.access !== '-' && !grant) || !(await ctx.viewerAccess.canView(meta, grant))) {
      throw fail(ERRORS.notFound, 'This link has expired or the folio is not public: open its share page again.')
    }
    const head = await folios.manifest(meta.id, meta.head)
    const path = filePath(params.path)
    const ref = path !== undefined ? head?.files[path] : undefined
    if (!ref || path === undefined) throw fail(ERRORS.notFound, `This folio has no file ${JSON.stringify(path ?? params.path)}.`)
    const type = mimeForPath(path, ref.m)
    const isHtml = type.startsWith('text/html')
    const bridge = isHtml ? await ctx.templates.asset('bridge.js') : undefined
    // Strong validator: the content hash (and, for pages, the bridge it carries).
    const etag = `"${ref.h}${bridge ? `.${bridge.etag.slice(1, 9)}` : ''}"`
    const headers = { 'content-type': type, etag, ...FOLIO_FILE_HEADERS }
    if (noneMatchHits(event.req.headers.get('if-none-match'), etag)) return new FastResponse(null, { status: 304, headers })
    // Through the folio: a content replaced a moment ago may already sit in its packed history.
    let body = await folios.served(meta.id, ref)
    if (isHtml) {
      const base = `/v/${meta.id}/${params.access}/`
      body = Buffer.from(injectBeforeBodyEnd(body.toString('utf8'), `<script src="/_folio/bridge.js" data-folio-base="${escapeHtml(base)}"></script>`))
    }
    if (params.access === '-') {
      const { 'content-type': contentType, etag: _etag, ...rest } = headers
      ctx.hot.put(requestTarget(event), { body, contentType, etag, headers: rest, access: 'public', folioId: meta.id, generation })
    }
    return new FastResponse(asBody(body), { headers })
  })

  mountRoute(app, ctx, renewFrame, async ({ event, params }) => {
    const { meta, grant } = await requireViewable(ctx, event, params.id)
    event.res.headers.set('cache-control', 'no-store')
    return frameAccess(ctx.viewerAccess, meta, grant)
  })

  async function contentBoot(ctx: ServerContext, meta: FolioMeta, grant: Grant | undefined, preview: boolean) {
    const latest = versionId(meta.head)
    const [head, comments, reactions] = await Promise.all([folios.manifest(meta.id, meta.head), engagement.openComments(meta.id, latest, PAGE_COMMENTS), engagement.reactions(meta.id)])
    const files = Object.keys(head?.files ?? {}).sort(compareFilePaths)
    const frame = await frameAccess(ctx.viewerAccess, meta, grant)
    return {
      id: meta.id,
      title: meta.title,
      description: meta.description,
      view: 'content',
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

async function renderShare(ctx: ServerContext, boot: { id: string; title: string; view: string; description?: unknown } & Record<string, unknown>, options: { status?: number; noindex: boolean }) {
  const template = await ctx.templates.asset('share.html')
  if (!template) throw fail(ERRORS.notFound)
  // One pass with a function: text written by owners or viewers (a title, a comment) can neither
  // be taken for another placeholder nor expand as a replacement pattern ($', $&). The head tags
  // go into the template first, with placeholders of their own, for the same reason.
  const values: Record<string, string> = {
    title: escapeHtml(boot.title),
    description: escapeHtml(previewText(typeof boot.description === 'string' ? boot.description : '')),
    boot: jsonForScript({ api: `/api/files/${boot.id}`, ...boot }),
  }
  const head = [
    '<meta property="og:title" content="{{title}}">',
    values.description ? '<meta property="og:description" content="{{description}}">' : '',
    options.noindex ? '<meta name="robots" content="noindex">' : '',
  ].filter(Boolean)
  const html = injectIntoHead(template.body.toString('utf8'), head.join('\n  ')).replace(/\{\{(title|description|boot)\}\}/g, (_, name: string) => values[name]!)
  // no-store: the page may carry a signed, short-lived frame link.
  return new FastResponse(html, { status: options.status ?? 200, headers: { ...PAGE_HEADERS, 'cache-control': 'no-store' } })
}

/** A description as a link preview shows it: one line, at most 300 characters. */
function previewText(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat
}

/** Puts tags at the end of the template's head (before its first </head>), else at the start. */
function injectIntoHead(html: string, tags: string): string {
  const at = html.toLowerCase().indexOf('</head>')
  return at === -1 ? tags + html : `${html.slice(0, at)}  ${tags}\n${html.slice(at)}`
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

