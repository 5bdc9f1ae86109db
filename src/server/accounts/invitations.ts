import type { Role } from '../../domain/principal.js'
import type { SharedState } from '../../store/index.js'

/** How long an invitation lasts before it must be made again. */
export const INVITATION_MS = 7 * 24 * 60 * 60_000

/** Where invitations are kept in the shared state (server/accounts/workspace-routes.ts makes them). */
export const invitationKey = (code: string) => `invitation:${code}`

export interface Invitation {
  workspaceId: string
  email: string
  role: Role
  invitedBy: string
}

/**
 * Accepting an invitation (members invite, server/accounts/workspace-routes.ts, keeps it in SharedState for 7
 * days). The person proves the invited address by signing in with a code e-mailed to it, so
 * holding the invitation code alone lets nobody in. Uses the invitation up if it is live and for
 * this address; undefined otherwise (compare-and-set: two sign-ins cannot both take it).
 */
export async function takeInvitation(shared: SharedState, code: string, email: string): Promise<Invitation | undefined> {
  const stored = await shared.get<Invitation>(invitationKey(code))
  if (!stored || stored.value.email !== email.toLowerCase()) return undefined
  return (await shared.delete(invitationKey(code), stored.version)) ? stored.value : undefined
}
