import { randomUUID } from 'node:crypto'
import { ERRORS } from '../../api/errors.js'
import type { Role } from '../../domain/principal.js'
import type { SharedState, WorkspaceRepository } from '../../store/index.js'
import { type CloudCredentials, SESSION_COOKIE, type SignInSession } from './cloud-credentials.js'
import { newToken, tokenHash } from '../auth/credential-index.js'
import { EmailCodes } from '../mail/email-codes.js'
import { fail } from '../http/errors.js'
import { takeInvitation } from './invitations.js'
import type { Mailer } from '../mail/mailer.js'

/** How long a sign-in lasts (the cookie and the session alike). */
export const SESSION_MS = 7 * 24 * 3_600_000
const CODE_MS = 15 * 60_000
const CODES_PER_ADDRESS_HOUR = 10

export interface SignInDeps {
  shared: SharedState
  workspaces: WorkspaceRepository
  credentials: CloudCredentials
  mailer: Mailer
  log: (message: string, error?: unknown) => void
}

const RANK: Record<Role, number> = { owner: 0, admin: 1, member: 2 }

/**
 * People signing in (Cloud): by a code e-mailed to their address, or by pasting the workspace
 * key. Either way the browser gets an HttpOnly, SameSite=Strict cookie holding a random token;
 * SharedState keeps its hash (CloudCredentials resolves it). A session ends on sign-out, when
 * the Owner or an Admin revokes it, and when the workspace key rotates or is revoked.
 */
export class SignIn {
  readonly #deps: SignInDeps
  readonly #codes: EmailCodes

  constructor(deps: SignInDeps) {
    this.#deps = deps
    this.#codes = new EmailCodes(deps.shared)
  }

  async sendCode(email: string): Promise<void> {
    const address = email.toLowerCase()
    const perAddress = await this.#deps.shared.hit(`signin:codes-to:${tokenHash(address)}`, 3_600_000)
    if (perAddress.count > CODES_PER_ADDRESS_HOUR) throw fail(ERRORS.tooManyRequests, 'Too many codes were sent to this address this hour: try again later.')
    const code = await this.#codes.issue(purposeOf(address), address, Date.now() + CODE_MS)
    try {
      await this.#deps.mailer.send({
        to: address,
        subject: `Your folio sign-in code: ${code}`,
        text: `Your folio sign-in code is ${code}. It works for the next 15 minutes, once.\n\nIf you did not ask to sign in, ignore this message.`,
      })
    } catch (error) {
      this.#deps.log('Could not send a sign-in code (FOLIO_SMTP_URL)', error)
      throw fail(ERRORS.mailFailed, 'The code could not be sent: try again in a moment.')
    }
  }

  /** The e-mailed code proves the address; the session is in one of its workspaces (or none). */
  async withCode(input: { email: string; code: string; workspaceId?: string; invitation?: string }, userAgent?: string) {
    const address = input.email.toLowerCase()
    const check = await this.#codes.check(purposeOf(address), address, input.code)
    if (!check.ok) {
      if (check.reason === 'exhausted') throw fail(ERRORS.tooManyAttempts, 'Five wrong codes: ask for a new one (POST /api/auth/code).')
      throw fail(
        ERRORS.invalidCode,
        check.reason === 'none'
          ? 'No live code was sent to this address: ask for one with POST /api/auth/code.'
          : `Wrong code: ${check.attemptsLeft} attempt(s) left.`,
      )
    }
    const { workspaces } = this.#deps
    let workspaceId = input.workspaceId
    if (input.invitation) {
      const invitation = await takeInvitation(this.#deps.shared, input.invitation, address)
      if (!invitation || !workspaces.get(invitation.workspaceId))
        throw fail(ERRORS.invitationInvalid, 'This invitation is unknown, used, expired, or for another address.')
      await workspaces.addMember(invitation.workspaceId, { email: address, role: invitation.role })
      workspaceId = invitation.workspaceId
    }
    const account = await workspaces.accountOf(address)
    const mine = (account?.workspaces ?? []).filter((w) => workspaces.get(w.id)).sort((a, b) => RANK[a.role] - RANK[b.role])
    const chosen = mine.find((w) => w.id === workspaceId) ?? mine[0]
    return this.#start({ workspaceId: chosen?.id, email: address, method: 'email-code' }, userAgent)
  }

  /** Whoever holds the workspace key may act as its Owner: so may their browser. */
  async withKey(apiKey: string, userAgent?: string) {
    const principal = this.#deps.workspaces.principalOfKey(apiKey)
    if (!principal) throw fail(ERRORS.unauthorized, 'That is not a live workspace key.')
    return this.#start({ workspaceId: principal.workspaceId, method: 'workspace-key' }, userAgent)
  }

  async #start(input: Pick<SignInSession, 'workspaceId' | 'email' | 'method'>, userAgent?: string) {
    const token = newToken('')
    const now = Date.now()
    const session: SignInSession = {
      id: randomUUID(),
      ...input,
      generation: input.workspaceId ? this.#deps.workspaces.keyGeneration(input.workspaceId) : 0,
      createdAt: new Date(now).toISOString(),
      userAgent: userAgent?.slice(0, 300),
    }
    await this.#deps.credentials.sessions.put(tokenHash(token), session, now + SESSION_MS)
    return { token, session: this.describe(session, now + SESSION_MS) }
  }

  /** A session as the API shows it. */
  describe(session: SignInSession, expiresAt: number) {
    const workspace = session.workspaceId ? this.#deps.workspaces.get(session.workspaceId) : undefined
    const principal = this.#deps.credentials.sessionPrincipal(session)
    return {
      id: session.id,
      email: session.email ?? null,
      method: session.method,
      workspace: workspace ? { id: workspace.id, name: workspace.name, plan: workspace.plan } : null,
      role: principal?.role ?? null,
      createdAt: session.createdAt,
      expiresAt: new Date(expiresAt).toISOString(),
    }
  }

  /** The workspace's live sessions (those of the current key generation), newest first. */
  async list(workspaceId: string) {
    const generation = this.#deps.workspaces.keyGeneration(workspaceId)
    return (await this.#deps.credentials.sessions.all())
      .filter((e) => e.value.workspaceId === workspaceId && e.value.generation === generation)
      .sort((a, b) => b.value.createdAt.localeCompare(a.value.createdAt))
      .map((e) => ({ hash: e.hash, session: e.value, shown: this.describe(e.value, e.expiresAt) }))
  }

  async end(hash: string): Promise<void> {
    await this.#deps.credentials.sessions.remove(hash)
  }
}

const purposeOf = (address: string) => `signin:${tokenHash(address)}`

/** The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it). */
export function sessionCookie(token: string, secure: boolean, maxAgeSeconds = SESSION_MS / 1000): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`
}
