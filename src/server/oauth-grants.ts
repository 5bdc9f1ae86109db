import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { ERRORS } from '../api/errors.js'
import type { Principal, Role } from '../domain/principal.js'
import type { SharedState } from '../store/index.js'
import { secretsEqual } from './auth-secrets.js'
import { type CredentialChanges, CredentialIndex, NO_EXPIRY, newToken, tokenHash } from './credential-index.js'
import { fail } from './errors.js'

/** Own prefixes: auth.ts's resolver tells them from workspace keys without a lookup. */
export const ACCESS_TOKEN_PREFIX = 'folio_at_'
export const REFRESH_TOKEN_PREFIX = 'folio_rt_'
/** A refresh token not used for this long ends its grant (each use makes a new one). */
const REFRESH_MS = 90 * 24 * 3_600_000

/** Who approved on the consent page, and so whom the tokens act for. */
export interface Approver {
  workspaceId: string
  /** The member who approved (Cloud, signed in by e-mail code); absent: the key holder / local owner. */
  email?: string
  role: Role
  /** The name the tokens' writes are recorded under (versions' author, comments by the owner). */
  name: string
}

/** An authorization a workspace gave a client: what its tokens act as, until revoked. */
export interface Grant extends Approver {
  id: string
  clientId: string
  clientName: string
  scope: string
  /** The workspace key's generation at approval: rotating or revoking the key ends the grant. */
  generation: number
  createdAt: string
  /** The live refresh token's hash (revoking the grant removes it). */
  refreshHash?: string
}

interface CodeRecord {
  clientId: string
  clientName: string
  redirectUri: string
  codeChallenge: string
  scope: string
  approver: Approver
  generation: number
  /** Given when the code is exchanged: a second exchange revokes it. */
  grantId: string
  used: boolean
}

interface AccessRecord {
  grantId: string
}

interface RefreshRecord {
  grantId: string
  clientId: string
  /** Replaced by a newer refresh token: presenting it again means it was stolen (RFC 9700 §4.14.2). */
  rotated: boolean
}

export interface IssuedTokens {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token: string
  scope: string
}

export interface OAuthGrantsDeps {
  shared: SharedState
  /** The workspace key's generation now (Cloud: per workspace; OSS: the one key's). */
  keyGeneration: (workspaceId: string) => number
  /** A member's role now (Cloud); undefined when the address is no longer a member. OSS: absent. */
  memberRole?: (workspaceId: string, email: string) => Role | undefined
  codeSeconds: number
  accessTokenSeconds: number
  /** Several instances (store/change-feed.ts): grants and tokens another made are read on a miss. */
  changes?: CredentialChanges
}

const invalidGrant = (why: string) => fail(ERRORS.oauthInvalidGrant, why)

/**
 * Authorization codes, grants and their tokens (RFC 6749 with PKCE, OAuth 2.1's rules): codes
 * single-use for a few minutes, a reused code revokes what it issued, refresh tokens rotated with
 * reuse detection. Everything is kept in SharedState under the token's sha256; grants and access
 * tokens are mirrored in memory (CredentialIndex) so that resolving a Bearer token never waits.
 */
export class OAuthGrants {
  readonly #deps: OAuthGrantsDeps
  readonly grants: CredentialIndex<Grant>
  readonly #access: CredentialIndex<AccessRecord>

  constructor(deps: OAuthGrantsDeps) {
    this.#deps = deps
    this.grants = new CredentialIndex(deps.shared, 'oauth:grant:', deps.changes)
    this.#access = new CredentialIndex(deps.shared, 'oauth:access:', deps.changes)
  }

  async load(): Promise<this> {
    await Promise.all([this.grants.load(), this.#access.load()])
    return this
  }

  /** The consent was given: a code for the client's redirect URI, bound to its PKCE challenge. */
  async issueCode(input: Omit<CodeRecord, 'grantId' | 'used' | 'generation'>): Promise<string> {
    const code = randomBytes(32).toString('base64url')
    const record: CodeRecord = { ...input, generation: this.#deps.keyGeneration(input.approver.workspaceId), grantId: randomUUID(), used: false }
    await this.#deps.shared.set(`oauth:code:${tokenHash(code)}`, record, Date.now() + this.#deps.codeSeconds * 1000)
    return code
  }

  /**
   * authorization_code: the code exists, is this client's, unexpired and unused; the redirect
   * URI is the authorize request's exactly; the verifier hashes to the challenge (S256). A code
   * presented twice revokes the grant its first exchange made (RFC 6749 §4.1.2).
   */
  async exchangeCode(clientId: string, code: string, codeVerifier: string | undefined, redirectUri: string | undefined): Promise<IssuedTokens> {
    const key = `oauth:code:${tokenHash(code)}`
    const found = await this.#deps.shared.get<CodeRecord>(key)
    if (!found || found.value.clientId !== clientId) throw invalidGrant('The code is unknown, expired, or another client’s.')
    const record = found.value
    if (record.used) {
      await this.revoke(record.grantId)
      throw invalidGrant('The code was used already: the tokens it gave are revoked.')
    }
    if (redirectUri !== record.redirectUri) throw invalidGrant('redirect_uri is not the one of the authorization request.')
    if (!codeVerifier || !/^[A-Za-z0-9\-._~]{43,128}$/.test(codeVerifier)) throw fail(ERRORS.oauthInvalidRequest, 'code_verifier (PKCE, 43 to 128 characters) is required.')
    const challenge = createHash('sha256').update(codeVerifier).digest('base64url')
    if (!secretsEqual(challenge, record.codeChallenge)) throw invalidGrant('code_verifier does not match the code_challenge (PKCE).')
    // Used before anything is issued, compared-and-set: of two exchanges at once, one wins.
    const marked = await this.#deps.shared.set(key, { ...record, used: true }, found.expiresAt, found.version)
    if (marked === false) {
      await this.revoke(record.grantId)
      throw invalidGrant('The code was used already: the tokens it gave are revoked.')
    }
    if (this.#deps.keyGeneration(record.approver.workspaceId) !== record.generation) throw invalidGrant('The workspace key changed since the approval: approve again.')
    const grant: Grant = {
      ...record.approver,
      id: record.grantId,
      clientId,
      clientName: record.clientName,
      scope: record.scope,
      generation: record.generation,
      createdAt: new Date().toISOString(),
    }
    return this.#issue(grant)
  }

  /** refresh_token: rotation; a rotated token presented again revokes its whole grant. */
  async refresh(clientId: string, refreshToken: string): Promise<IssuedTokens> {
    const key = `oauth:refresh:${tokenHash(refreshToken)}`
    const found = await this.#deps.shared.get<RefreshRecord>(key)
    if (!found || found.value.clientId !== clientId) throw invalidGrant('The refresh token is unknown, expired, or another client’s.')
    if (found.value.rotated) {
      await this.revoke(found.value.grantId)
      throw invalidGrant('This refresh token was replaced already: the grant is revoked (approve the client again).')
    }
    await this.grants.lookup(found.value.grantId)
    const grant = this.live(found.value.grantId)
    if (!grant) throw invalidGrant('The authorization was revoked (or the workspace key changed): approve the client again.')
    const marked = await this.#deps.shared.set(key, { ...found.value, rotated: true }, found.expiresAt, found.version)
    if (marked === false) {
      await this.revoke(grant.id)
      throw invalidGrant('This refresh token was replaced already: the grant is revoked (approve the client again).')
    }
    return this.#issue(grant)
  }

  /** A new access token and refresh token for the grant (stored as hashes, the grant updated). */
  async #issue(grant: Grant): Promise<IssuedTokens> {
    const accessToken = newToken(ACCESS_TOKEN_PREFIX)
    const refreshToken = newToken(REFRESH_TOKEN_PREFIX)
    const refreshHash = tokenHash(refreshToken)
    const now = Date.now()
    await this.#deps.shared.set(`oauth:refresh:${refreshHash}`, { grantId: grant.id, clientId: grant.clientId, rotated: false } satisfies RefreshRecord, now + REFRESH_MS)
    await this.grants.put(grant.id, { ...grant, refreshHash }, NO_EXPIRY)
    await this.#access.put(tokenHash(accessToken), { grantId: grant.id }, now + this.#deps.accessTokenSeconds * 1000)
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.#deps.accessTokenSeconds, refresh_token: refreshToken, scope: grant.scope }
  }

  /**
   * RFC 7009: a token of this client ends its whole grant (access and refresh tokens alike: an
   * agent that lets go of one has no use for the other). Unknown tokens and other clients'
   * tokens change nothing, and are not told apart.
   */
  async revokeToken(clientId: string, token: string): Promise<void> {
    const hash = tokenHash(token)
    let grantId: string | undefined
    if (token.startsWith(ACCESS_TOKEN_PREFIX)) grantId = (await this.#access.lookup(hash))?.grantId
    else if (token.startsWith(REFRESH_TOKEN_PREFIX)) grantId = (await this.#deps.shared.get<RefreshRecord>(`oauth:refresh:${hash}`))?.value.grantId
    const grant = grantId ? await this.grants.lookup(grantId) : undefined
    if (grant && grant.clientId === clientId) await this.revoke(grant.id)
  }

  /** Ends a grant: its access tokens stop at once, its refresh token is gone. */
  async revoke(grantId: string): Promise<void> {
    const grant = await this.grants.lookup(grantId)
    await this.grants.remove(grantId)
    // Every instance's tokens of the grant, not only those issued here.
    for (const entry of await this.#access.all()) if (entry.value.grantId === grantId) await this.#access.remove(entry.hash)
    if (grant?.refreshHash) await this.#deps.shared.delete(`oauth:refresh:${grant.refreshHash}`)
  }

  /** A grant that still holds: not revoked, made under the workspace key's current generation. */
  live(grantId: string): Grant | undefined {
    const grant = this.grants.find(grantId)
    if (!grant || this.#deps.keyGeneration(grant.workspaceId) !== grant.generation) return undefined
    return grant
  }

  /** The workspace's live grants, newest first (the owner's list). */
  async list(workspaceId: string): Promise<Grant[]> {
    return (await this.grants.all())
      .map((e) => e.value)
      .filter((g) => g.workspaceId === workspaceId && this.live(g.id) && this.roleOf(g))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  }

  /** The role a grant acts with now: its member's current one (undefined: no longer a member). */
  roleOf(grant: Grant): Role | undefined {
    if (!grant.email || !this.#deps.memberRole) return grant.role
    return this.#deps.memberRole(grant.workspaceId, grant.email)
  }

  /** auth.ts's refresher (several instances): an access token and its grant read from SharedState when not in memory. */
  readonly refreshAccess = async (token: string | undefined): Promise<boolean> => {
    if (!token?.startsWith(ACCESS_TOKEN_PREFIX)) return false
    const access = await this.#access.lookup(tokenHash(token))
    return access !== undefined && (await this.grants.lookup(access.grantId)) !== undefined
  }

  /**
   * auth.ts's resolver: the principal an access token acts as (memory only). Its grant must hold
   * and, for a member's approval, the member must still be one (with their role now).
   */
  readonly resolve = (token: string | undefined): Principal | undefined => {
    if (!token?.startsWith(ACCESS_TOKEN_PREFIX)) return undefined
    const access = this.#access.find(tokenHash(token))
    const grant = access && this.live(access.grantId)
    if (!grant) return undefined
    const role = this.roleOf(grant)
    if (!role) return undefined
    return { workspaceId: grant.workspaceId, name: grant.name, email: grant.email, role, via: 'oauth', credentialId: grant.id }
  }
}
