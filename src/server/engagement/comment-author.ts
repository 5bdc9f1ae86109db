import type { Principal } from '../../domain/principal.js'
import type { ServerContext } from '../context.js'

/** What this file takes from the server's context. */
export type CommentAuthorDeps = Pick<ServerContext, 'config' | 'store'>

/** Who a comment is by when nobody is named and no person is behind the request (spec). */
export const GUEST_AUTHOR = 'Guest'

/**
 * The author of a new comment (spec, POST /api/files/{id}/comments: `author` defaults to the
 * authenticated e-mail, else Guest). A name the request gives is kept. Otherwise the e-mail of
 * the person behind the credential: a member's token or sign-in session, or the member who
 * approved an OAuth token, carries their own. A credential that carries none stands for the
 * workspace key's holder (the key itself, a session opened by pasting it, an OAuth grant the key
 * approved): in Cloud that is the workspace's Owner, the earliest one when there are several
 * (normally who made it). OSS has no e-mail addresses: its owner comments as Guest, as before.
 */
export function commentAuthor(ctx: CommentAuthorDeps, principal: Principal | undefined, given: string | undefined): string {
  if (given) return given
  if (!principal) return GUEST_AUTHOR
  if (principal.email) return principal.email
  if (ctx.config.mode !== 'cloud' || !ctx.store.workspaces.get(principal.workspaceId)) return GUEST_AUTHOR
  return ctx.store.workspaces.members(principal.workspaceId).find((m) => m.role === 'owner')?.email ?? GUEST_AUTHOR
}
