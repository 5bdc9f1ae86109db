import type { Principal, Role } from '../../domain/principal.js'
import type { SharedState, WorkspaceRepository } from '../../store/index.js'
import type { CredentialHeaders } from '../auth/auth.js'
import { type CredentialChanges, CredentialIndex, tokenHash } from '../auth/credential-index.js'
import { readCookie } from '../auth/viewer-access.js'

/** An agent's key before its registration is claimed (own prefix: it is not a workspace key). */
export const PRE_CLAIM_PREFIX = 'folio_pre_'
/** Member tokens look like workspace keys: clients that check the format take them alike. */
export const AGENT_TOKEN_PREFIX = 'folio_live_'
export const SESSION_COOKIE = 'folio_session'

/** A pre-claim key: the registration session's new workspace, until the session expires. */
export interface PreClaim {
  workspaceId: string
  sessionId: string
}

/**
 * An agent's credential in an existing workspace, given when a proven address (an e-mailed code,
 * a trusted issuer's signature) belongs to one of its members: the workspace's own key is kept
 * only as a hash and cannot be handed out, and rotating it for a newcomer would lock out everyone
 * else. It acts with that member's role and ends when the member leaves or the key rotates.
 */
export interface AgentToken {
  workspaceId: string
  email: string
  generation: number
  createdAt: string
}

/** A person signed in (dashboard, owner actions): by an e-mailed code or by pasting the key. */
export interface SignInSession {
  id: string
  /** Undefined: an address with no workspace (a collaborator of someone else's folio). */
  workspaceId?: string
  email?: string
  method: 'email-code' | 'workspace-key'
  /** The workspace key's generation at sign-in: a rotation or revocation ends the session. */
  generation: number
  createdAt: string
  userAgent?: string
}

/**
 * The Cloud credentials besides the workspace key, as one resolver for auth.ts: pre-claim keys,
 * agent tokens and sign-in session cookies. All three are SharedState records mirrored in memory
 * (CredentialIndex) so that resolving never waits.
 */
export class CloudCredentials {
  readonly preClaims: CredentialIndex<PreClaim>
  readonly agentTokens: CredentialIndex<AgentToken>
  readonly sessions: CredentialIndex<SignInSession>
  readonly #workspaces: WorkspaceRepository

  /** `changes`: several instances (store/change-feed.ts); a credential another made is read on a miss. */
  constructor(shared: SharedState, workspaces: WorkspaceRepository, changes?: CredentialChanges) {
    this.#workspaces = workspaces
    this.preClaims = new CredentialIndex(shared, 'agent:pre-claim:', changes)
    this.agentTokens = new CredentialIndex(shared, 'agent:token:', changes)
    this.sessions = new CredentialIndex(shared, 'signin:session:', changes)
  }

  async load(): Promise<this> {
    await Promise.all([this.preClaims.load(), this.agentTokens.load(), this.sessions.load()])
    return this
  }

  /** auth.ts's resolver: the caller this credential stands for, if it is one of ours and live. */
  readonly resolve = (token: string | undefined, headers: CredentialHeaders): Principal | undefined => {
    if (token?.startsWith(PRE_CLAIM_PREFIX)) return this.#preClaim(token)
    if (token?.startsWith(AGENT_TOKEN_PREFIX)) return this.#agentToken(token)
    if (token === undefined && headers.cookie) return this.sessionPrincipal(this.sessionOf(headers))
    return undefined
  }

  /**
   * auth.ts's refresher (several instances): reads the request's credential from SharedState when
   * it is not in memory (another instance made it); true when it is known now.
   */
  readonly refresh = async (token: string | undefined, headers: CredentialHeaders): Promise<boolean> => {
    if (token?.startsWith(PRE_CLAIM_PREFIX)) return (await this.preClaims.lookup(tokenHash(token))) !== undefined
    if (token?.startsWith(AGENT_TOKEN_PREFIX)) return (await this.agentTokens.lookup(tokenHash(token))) !== undefined
    const session = token === undefined ? readCookie(headers.cookie ?? null, SESSION_COOKIE) : undefined
    return session ? (await this.sessions.lookup(tokenHash(session))) !== undefined : false
  }

  /**
   * The sign-in session a request carries, if live and sent by our own pages: the cookie is
   * SameSite=Strict, a request whose Origin is another site's is never signed in, and a write
   * must carry our own Origin (CSRF).
   */
  sessionOf(headers: Pick<CredentialHeaders, 'cookie' | 'origin' | 'host' | 'method'>): (SignInSession & { hash: string }) | undefined {
    const token = readCookie(headers.cookie ?? null, SESSION_COOKIE)
    if (!token || !sameOrigin(headers)) return undefined
    // A write must also say where it comes from: browsers send Origin with every POST, PUT and
    // DELETE, so a write without one did not come from our pages.
    if (headers.method && headers.method !== 'GET' && headers.method !== 'HEAD' && !headers.origin) return undefined
    const hash = tokenHash(token)
    const session = this.sessions.find(hash)
    if (!session) return undefined
    // A session of a workspace ends with the key generation it was made under.
    if (session.workspaceId !== undefined && this.#workspaces.keyGeneration(session.workspaceId) !== session.generation) return undefined
    return { ...session, hash }
  }

  /** The principal of a session: the member it was made for (with their role now), or the key holder. */
  sessionPrincipal(session: SignInSession | undefined): Principal | undefined {
    if (!session?.workspaceId) return undefined
    const workspace = this.#workspaces.get(session.workspaceId)
    if (!workspace) return undefined
    let role: Role = 'owner'
    if (session.method === 'email-code') {
      const member = session.email ? this.#workspaces.member(session.workspaceId, session.email) : undefined
      if (!member) return undefined
      role = member.role
    }
    return { workspaceId: workspace.id, name: session.email ?? workspace.name, email: session.email, role, via: 'session', credentialId: session.id }
  }

  #preClaim(token: string): Principal | undefined {
    const preClaim = this.preClaims.find(tokenHash(token))
    const workspace = preClaim && this.#workspaces.get(preClaim.workspaceId)
    if (!workspace) return undefined
    return { workspaceId: workspace.id, name: 'Unclaimed agent', role: 'owner', via: 'pre-claim', credentialId: preClaim.sessionId }
  }

  #agentToken(token: string): Principal | undefined {
    const hash = tokenHash(token)
    const agent = this.agentTokens.find(hash)
    if (!agent || this.#workspaces.keyGeneration(agent.workspaceId) !== agent.generation) return undefined
    const member = this.#workspaces.member(agent.workspaceId, agent.email)
    if (!member) return undefined
    return { workspaceId: agent.workspaceId, name: agent.email, email: agent.email, role: member.role, via: 'api-key', credentialId: hash.slice(0, 16) }
  }
}

/** No Origin (a navigation, a program) or our own: anything else is another site's request. */
function sameOrigin(headers: Pick<CredentialHeaders, 'origin' | 'host'>): boolean {
  if (!headers.origin) return true
  try {
    return new URL(headers.origin).host === headers.host
  } catch {
    return false
  }
}
