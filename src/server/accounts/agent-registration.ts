import { randomUUID } from 'node:crypto'
import { ERRORS } from '../../api/errors.js'
import type { Role } from '../../domain/principal.js'
import type { SharedState, Versioned, Workspace, WorkspaceRepository } from '../../store/index.js'
import { AGENT_TOKEN_PREFIX, type CloudCredentials, PRE_CLAIM_PREFIX } from './cloud-credentials.js'
import { NO_EXPIRY, newToken, tokenHash } from '../auth/credential-index.js'
import { EmailCodes } from '../mail/email-codes.js'
import { fail } from '../http/errors.js'
import { readAssertion, type TrustedIssuers } from './identity-assertions.js'
import type { Mailer } from '../mail/mailer.js'

/** Spec, Limits: a registration session lives 15 minutes. */
export const SESSION_MS = 15 * 60_000
/** Codes one session may send (each one replaces the last). */
const SENDS_PER_SESSION = 5
/** Claim codes one address may receive in an hour, whoever asks: bounds guessing and mail bombing. */
const CODES_PER_ADDRESS_HOUR = 10

interface RegistrationSession {
  status: 'pending_claim' | 'completed'
  workspaceId: string
  email?: string
  sends: number
  createdAt: number
}

export interface RegistrationDeps {
  shared: SharedState
  workspaces: WorkspaceRepository
  credentials: CloudCredentials
  mailer: Mailer
  issuers: TrustedIssuers
  log: (message: string, error?: unknown) => void
}

const organizationOf = (ws: Workspace) => ({ id: ws.id, name: ws.name, plan: ws.plan })
const sessionKey = (id: string) => `agent:session:${id}`
const expired = () => fail(ERRORS.sessionExpired, 'No live registration session has this id (they last 15 minutes): start again with POST /api/agent/auth.')
const completed = () => fail(ERRORS.registrationCompleted, 'This registration session has already issued its key.')

/** A registration session a claim may send a code for: live, not completed, with sends left. */
function claimable<S extends { value: RegistrationSession }>(session: S | undefined): S {
  if (!session) throw expired()
  if (session.value.status === 'completed') throw completed()
  if (session.value.sends >= SENDS_PER_SESSION) throw fail(ERRORS.tooManyRequests, `A session sends at most ${SENDS_PER_SESSION} codes: start a new one.`)
  return session
}

/**
 * Agent self-registration (spec: Agent authentication, flows A and B; the Agent registration
 * session table). Nothing an unproven caller says reaches an existing workspace: an unsigned
 * assertion, or an anonymous registration, always gets a workspace of its own; an existing
 * account is joined only through an address proven by an e-mailed code or a trusted signature.
 */
export class AgentRegistration {
  readonly #deps: RegistrationDeps
  readonly #codes: EmailCodes

  constructor(deps: RegistrationDeps) {
    this.#deps = deps
    this.#codes = new EmailCodes(deps.shared)
  }

  /** Flow A: an identity assertion → a key at once. */
  async assert(assertion: string | undefined) {
    const identity = await readAssertion(assertion, this.#deps.issuers)
    if (identity.verified && identity.email) {
      const joined = await this.#joinAccount(identity.email)
      if (joined)
        return {
          status: 'completed' as const,
          credential: { access_token: joined.token, token_type: 'Bearer' as const, organization: organizationOf(joined.workspace) },
        }
    }
    const who = identity.email ?? identity.sub!
    // Unproven: the address is not recorded as a member (it would show up in that person's
    // account); a trusted issuer's address is.
    const { workspace, apiKey } = await this.#deps.workspaces.create({
      name: `Workspace of ${who}`.slice(0, 200),
      owner: { name: who, email: identity.verified ? identity.email : undefined },
    })
    return { status: 'completed' as const, credential: { access_token: apiKey, token_type: 'Bearer' as const, organization: organizationOf(workspace) } }
  }

  /** Flow B, step 1: a session with a new workspace and a pre-claim key for it. */
  async anonymous() {
    const { workspace } = await this.#deps.workspaces.create({ name: 'Unclaimed agent workspace', owner: { name: 'Unclaimed agent' } })
    const id = randomUUID()
    const now = Date.now()
    const expiresAt = now + SESSION_MS
    await this.#deps.shared.set<RegistrationSession>(
      sessionKey(id),
      { status: 'pending_claim', workspaceId: workspace.id, sends: 0, createdAt: now },
      expiresAt,
    )
    const token = newToken(PRE_CLAIM_PREFIX)
    await this.#deps.credentials.preClaims.put(tokenHash(token), { workspaceId: workspace.id, sessionId: id }, expiresAt)
    return {
      registration_session_id: id,
      status: 'pending_claim' as const,
      credential: { token, token_type: 'APIKey' as const, expires_at: new Date(expiresAt).toISOString() },
    }
  }

  /** Flow B, step 2: a 6-digit code to the address (a new claim replaces the previous code). */
  async claim(email: string, id: string): Promise<{ success: true; status: 'pending_claim'; expires_at: string }> {
    const address = email.toLowerCase()
    // The session first: a made-up, expired or finished one is answered at once and costs the
    // address nothing (its caller pays, through the per-client auth rate limit of this endpoint).
    // Otherwise anyone could spend an address's hourly codes with ids they made up, and the
    // person who owns it would get none for their own agent.
    claimable(await this.#deps.shared.get<RegistrationSession>(sessionKey(id)))
    const perAddress = await this.#deps.shared.hit(`agent:codes-to:${tokenHash(address)}`, 3_600_000)
    if (perAddress.count > CODES_PER_ADDRESS_HOUR) {
      throw fail(ERRORS.tooManyRequests, 'Too many codes were sent to this address this hour: try again later.', {
        'retry-after': String(Math.ceil((perAddress.resetAt - Date.now()) / 1000)),
      })
    }
    // Counting the send with compare-and-set: parallel claims cannot send more than their share.
    let session: Versioned<RegistrationSession>
    do {
      session = claimable(await this.#deps.shared.get<RegistrationSession>(sessionKey(id)))
    } while (
      (await this.#deps.shared.set(
        sessionKey(id),
        { ...session.value, email: address, sends: session.value.sends + 1 },
        session.expiresAt,
        session.version,
      )) === false
    )
    const code = await this.#codes.issue(`agent:${id}`, address, session.expiresAt)
    const minutes = Math.max(1, Math.round((session.expiresAt - Date.now()) / 60_000))
    try {
      await this.#deps.mailer.send({
        to: address,
        subject: `Your folio code: ${code}`,
        text: `An agent asks to register with folio as ${address}.\n\nIts code is ${code}. It works for the next ${minutes} minutes, once.\n\nIf you did not expect this, ignore this message: nothing happens without the code.`,
      })
    } catch (error) {
      this.#deps.log('Could not send a claim code (FOLIO_SMTP_URL)', error)
      throw fail(ERRORS.mailFailed, 'The code could not be sent: try again in a moment.')
    }
    return { success: true, status: 'pending_claim', expires_at: new Date(session.expiresAt).toISOString() }
  }

  /** Flow B, step 3: the right code completes the session and gives a lasting key. */
  async complete(email: string, code: string, id: string) {
    const address = email.toLowerCase()
    const session = await this.#deps.shared.get<RegistrationSession>(sessionKey(id))
    if (!session) throw expired()
    if (session.value.status === 'completed') throw completed()
    const check = await this.#codes.check(`agent:${id}`, address, code)
    if (!check.ok) {
      if (check.reason === 'exhausted')
        throw fail(ERRORS.tooManyAttempts, 'Five wrong codes: this one no longer works. Ask for a new one with POST /api/agent/auth/claim.')
      if (check.reason === 'none') throw fail(ERRORS.invalidCode, 'No code was sent to this address for this session: POST /api/agent/auth/claim first.')
      throw fail(ERRORS.invalidCode, `Wrong code: ${check.attemptsLeft} attempt(s) left.`)
    }
    // The code was single-use, so only one caller gets here per code; the CAS settles a race
    // with a second code of the same session.
    const done = await this.#deps.shared.set<RegistrationSession>(
      sessionKey(id),
      { ...session.value, status: 'completed', email: address },
      session.expiresAt,
      session.version,
    )
    if (done === false) throw completed()
    const { workspaces } = this.#deps
    const joined = await this.#joinAccount(address)
    // The session's own workspace becomes the address's too (what the pre-claim key made stays reachable).
    await workspaces.addMember(session.value.workspaceId, { email: address, role: 'owner' })
    const credential = joined
      ? { token: joined.token, workspace: joined.workspace }
      : { token: await workspaces.rotateKey(session.value.workspaceId), workspace: workspaces.get(session.value.workspaceId)! }
    return {
      status: 'completed' as const,
      credential: { access_token: credential.token, token_type: 'Bearer' as const, expires_at: null, organization: organizationOf(credential.workspace) },
    }
  }

  /** A proven address with an account: a member token for its main workspace (undefined: no account). */
  async #joinAccount(email: string): Promise<{ token: string; workspace: Workspace } | undefined> {
    const { workspaces } = this.#deps
    const account = await workspaces.accountOf(email)
    const rank: Record<Role, number> = { owner: 0, admin: 1, member: 2 }
    const main = account?.workspaces.filter((w) => workspaces.get(w.id)).sort((a, b) => rank[a.role] - rank[b.role])[0]
    if (!main) return undefined
    const token = newToken(AGENT_TOKEN_PREFIX)
    await this.#deps.credentials.agentTokens.put(
      tokenHash(token),
      { workspaceId: main.id, email, generation: workspaces.keyGeneration(main.id), createdAt: new Date().toISOString() },
      NO_EXPIRY,
    )
    return { token, workspace: workspaces.get(main.id)! }
  }
}
