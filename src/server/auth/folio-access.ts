import { ERRORS, type ErrorCase } from '../../api/errors.js'
import { isFolioId } from '../../domain/ids.js'
import type { FolioMeta } from '../../domain/model.js'
import type { H3Event } from 'h3'
import { DENIED, type Principal } from './auth.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { nodeRequest } from '../http/remote.js'
import { isAgentSubRequest } from '../http/sub-request.js'
import { grantOf, type Grant } from './viewer-access.js'

/** What this file takes from the server's context. */
export type FolioAccessDeps = Pick<ServerContext, 'auth' | 'config' | 'store' | 'viewerAccess'>

/**
 * The folio a request names, if the caller may see it. An id that cannot be a folio id, an
 * unknown folio and another workspace's folio all get the same 404, so ids cannot be probed.
 */
export async function requireFolio(
  ctx: FolioAccessDeps,
  id: string,
  principal: Principal | undefined,
  error: ErrorCase = ERRORS.projectNotFound,
): Promise<FolioMeta> {
  if (!isFolioId(id)) throw fail(error)
  const meta = await ctx.store.folios.get(id)
  if (!meta || !visibleTo(meta, principal)) throw fail(error)
  return meta
}

/** The same check answered from memory only (undefined: not cached, or not visible): hot paths. */
export function cachedFolio(ctx: FolioAccessDeps, id: string, principal: Principal | undefined): FolioMeta | undefined {
  const meta = isFolioId(id) ? ctx.store.folios.peek(id) : undefined
  return meta && visibleTo(meta, principal) ? meta : undefined
}

function visibleTo(meta: FolioMeta, principal: Principal | undefined): boolean {
  return !principal || meta.workspaceId === principal.workspaceId
}

/** Who a version written by this request is attributed to. */
export function authorOf(ctx: FolioAccessDeps, principal: Principal | undefined): string {
  return principal?.email ?? principal?.name ?? ctx.config.localAuthor
}

/**
 * For the public (viewer) endpoints: the folio, if this viewer may see it. A private folio needs a
 * grant (the owner's credential, or the access cookie a proved key earns): 403 otherwise. A draft
 * is its owner's alone (spec: "visible only to its owner"): to anyone else it is not there at
 * all, the endpoint's not-found error as for an unknown id (hiddenDraft); its owner without a
 * grant (OSS's open local API) is told it is not published yet.
 */
export async function requireViewable(
  ctx: FolioAccessDeps,
  event: H3Event,
  id: string,
  error: ErrorCase = ERRORS.projectNotFound,
  options: { owner?: boolean } = {},
): Promise<{ meta: FolioMeta; grant: Grant | undefined }> {
  if (!isFolioId(id)) throw fail(error)
  const meta = await ctx.store.folios.get(id)
  if (!meta) throw fail(error)
  const grant = await grantOf(ctx, event, meta)
  if (await ctx.viewerAccess.canView(meta, grant)) return { meta, grant }
  const owner = isOwner(ctx, event, meta)
  if (meta.status === 'draft' && !owner) throw fail(error)
  // options.owner: an owner's agent (an MCP tool, whose caller passed /api/mcp's check) reads and
  // writes comments on a draft or private folio too. Not any local request: in OSS every page on
  // this machine is "the owner", and the share page in a normal tab is a viewer like any other.
  if (options.owner && owner && isAgentSubRequest(nodeRequest(event))) return { meta, grant }
  throw fail(
    ERRORS.accessKeyRequired,
    meta.status === 'draft' ? 'This folio is not published yet.' : 'This folio is private: prove its access key with POST /api/files/{id}/public first.',
  )
}

/**
 * A draft this caller may not even know of: anyone but its owner (the owner's grant: the
 * workspace's credential, the preview cookie, a Cloud collaborator's session; or the caller a
 * protected endpoint would let in). Public endpoints answer it as they answer an unknown id.
 */
export function hiddenDraft(ctx: FolioAccessDeps, event: H3Event, meta: FolioMeta, grant: Grant | undefined): boolean {
  return meta.status === 'draft' && grant?.kind !== 'owner' && !isOwner(ctx, event, meta)
}

/**
 * Whether the caller of a public endpoint is the folio's owner: the one a protected endpoint
 * would let in (the workspace credential, or in OSS the open local API), of the folio's workspace.
 * Public endpoints let everyone in; this is what their owner-only parts ask.
 */
export function isOwner(ctx: FolioAccessDeps, event: H3Event, meta: FolioMeta): boolean {
  const principal = ctx.auth.resolveEvent(event, 'required')
  return principal !== undefined && principal !== DENIED && principal.workspaceId === meta.workspaceId
}

/**
 * Whether a viewer write (a reaction click, an analytics beacon) is the owner looking at their
 * own folio, which must not count: the request carries the owner's credential, the workspace key
 * or the grant the owner's preview (`?preview`) set. The open local API alone is not that: in
 * OSS every program and page on this machine is "the owner", and the share page in a normal tab
 * sends no key, so someone trying their own published page counts like any viewer.
 */
export function isOwnersOwnView(grant: Grant | undefined): boolean {
  // grantOf: a valid key is the owner's grant; else the access cookie, which ?preview sets.
  return grant?.kind === 'owner'
}
