/** A workspace member's role (spec: Owner, Admin, Member). */
export type Role = 'owner' | 'admin' | 'member'

export const ROLES: readonly Role[] = ['owner', 'admin', 'member']

/**
 * Who is calling, once a credential was checked (server/auth/auth.ts decides; the store hands out the
 * principal of a workspace key). `via` says which credential: the open OSS API, the workspace
 * key, a person's sign-in session, an OAuth token, or an agent's pre-claim key.
 */
export interface Principal {
  workspaceId: string
  name: string
  email?: string
  role: Role
  via: 'open' | 'api-key' | 'session' | 'oauth' | 'pre-claim'
  /** Which credential exactly (a session's id, a token's id), for revoking it. */
  credentialId?: string
}

/**
 * Owner and Admin manage the key and the members (spec: Authentication 2): themselves, never an
 * application they authorized with OAuth (it works with folios, not with who may work on them).
 */
export const managesWorkspace = (principal: Principal | undefined): boolean =>
  principal?.via !== 'oauth' && (principal?.role === 'owner' || principal?.role === 'admin')
