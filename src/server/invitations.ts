import type { Role } from '../domain/principal.js'
import type { SharedState } from '../store/index.js'
import { newToken, tokenHash } from './credential-index.js'

/** How long an invitation waits for its person. */
export const INVITATION_MS = 7 * 24 * 3_600_000

export interface Invitation {
  workspaceId: string
  email: string
  role: Role
  invitedBy?: string
  createdAt: string
}

const keyOf = (code: string) => `invitation:${tokenHash(code)}`

/**
 * An invitation to a workspace, for one address (members invite: the Owner or an Admin). Kept in
 * SharedState as the hash of its code; the person accepts it by signing in with a code e-mailed
 * to that address, so holding the invitation alone lets nobody in.
 */
export async function createInvitation(shared: SharedState, input: Omit<Invitation, 'createdAt'>, now = Date.now()): Promise<{ code: string; expiresAt: number }> {
  const code = newToken('folio_inv_')
  const expiresAt = now + INVITATION_MS
  await shared.set<Invitation>(keyOf(code), { ...input, email: input.email.toLowerCase(), createdAt: new Date(now).toISOString() }, expiresAt)
  return { code, expiresAt }
}

/** Uses up the invitation if it is live and for this (proven) address; undefined otherwise. */
export async function takeInvitation(shared: SharedState, code: string, email: string): Promise<Invitation | undefined> {
  const stored = await shared.get<Invitation>(keyOf(code))
  if (!stored || stored.value.email !== email.toLowerCase()) return undefined
  return (await shared.delete(keyOf(code), stored.version)) ? stored.value : undefined
}
