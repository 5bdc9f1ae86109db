import { randomBytes } from 'node:crypto'
import type { H3 } from 'h3'
import { ERRORS } from '../../api/errors.js'
import { getWorkspace, inviteMember, listMembers, removeMember, setMemberRole } from '../../api/workspace.js'
import { managesWorkspace, type Principal, type Role } from '../../domain/principal.js'
import { aiMessagesThisMonth } from '../limits/ai-quota.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'
import { type Invitation, INVITATION_MS, invitationKey } from './invitations.js'
import { mountRoute, type RouteDeps } from '../route.js'

/** What this file takes from the server's context (RouteDeps: what mounting a route takes). */
export type WorkspaceRoutesDeps = RouteDeps & Pick<ServerContext, 'shared' | 'store'>

const forbidden = (message: string) => fail(ERRORS.forbidden, message)

/** Member management is for the Owner and Admins; what touches an Owner is for an Owner. */
function mayManage(principal: Principal | undefined, ...roles: Role[]): asserts principal is Principal {
  if (!managesWorkspace(principal)) throw forbidden('Only the Owner or an Admin manages members.')
  if (roles.includes('owner') && principal!.role !== 'owner') throw forbidden('Only an Owner makes, changes or removes an Owner.')
}

/** GET /api/workspace and its members (Cloud): what the owner sees of the workspace. */
export function registerWorkspaceRoutes(app: H3, ctx: WorkspaceRoutesDeps): void {
  const workspaces = ctx.store.workspaces

  mountRoute(app, ctx, getWorkspace, async ({ principal }) => {
    const ws = workspaces.get(principal!.workspaceId)
    if (!ws) throw fail(ERRORS.unauthorized)
    const { limits } = ctx.planLimits!.planOf(ws.id)
    const [storageBytes, aiMessages] = await Promise.all([ctx.store.usage.bytes(ws.id), aiMessagesThisMonth(ctx, ws.id)])
    return { id: ws.id, name: ws.name, plan: ws.plan, usage: { storageBytes, aiMessagesThisMonth: aiMessages }, limits }
  })

  mountRoute(app, ctx, listMembers, ({ principal }) => workspaces.members(principal!.workspaceId))

  mountRoute(app, ctx, setMemberRole, async ({ principal, params, body }) => {
    const ws = principal!.workspaceId
    const member = workspaces.member(ws, params.email)
    if (!member) throw fail(ERRORS.memberNotFound, `${params.email} is not a member of this workspace.`)
    mayManage(principal, member.role, body.role)
    if (member.role === 'owner' && body.role !== 'owner') lastOwnerStays(ctx, ws)
    return (await workspaces.setRole(ws, params.email, body.role))!
  })

  mountRoute(app, ctx, removeMember, async ({ principal, params }) => {
    const ws = principal!.workspaceId
    const member = workspaces.member(ws, params.email)
    if (!member) throw fail(ERRORS.memberNotFound, `${params.email} is not a member of this workspace.`)
    mayManage(principal, member.role)
    if (member.role === 'owner') lastOwnerStays(ctx, ws)
    await workspaces.removeMember(ws, params.email)
    return { success: true }
  })

  mountRoute(app, ctx, inviteMember, async ({ principal, body }) => {
    mayManage(principal, body.role)
    const code = randomBytes(18).toString('base64url')
    const expiresAt = Date.now() + INVITATION_MS
    const invitation: Invitation = {
      workspaceId: principal.workspaceId,
      email: body.email.trim().toLowerCase(),
      role: body.role,
      invitedBy: principal.email ?? principal.name,
    }
    await ctx.shared.set(invitationKey(code), invitation, expiresAt, null)
    return { invitation: { code, email: invitation.email, role: invitation.role, expiresAt: new Date(expiresAt).toISOString() } }
  })
}

/** A workspace always keeps an Owner: the last one can be neither demoted nor removed. */
function lastOwnerStays(ctx: WorkspaceRoutesDeps, workspaceId: string): void {
  const owners = ctx.store.workspaces.members(workspaceId).filter((m) => m.role === 'owner')
  if (owners.length <= 1) throw forbidden('This is the workspace’s last Owner: make someone else an Owner first.')
}
