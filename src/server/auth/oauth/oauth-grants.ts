import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { ERRORS } from '../../../api/errors.js'
import type { Principal, Role } from '../../../domain/principal.js'
import type { SharedState } from '../../../store/index.js'
import { secretsEqual } from '../auth-secrets.js'
import { type CredentialChanges, CredentialIndex, NO_EXPIRY, newToken, tokenHash } from '../credential-index.js'
import { fail } from '../../http/errors.js'
import { openPair, type RefreshedPair, sealPair } from './oauth-refresh-grace.js'

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
  /**
   * Replaced by a newer refresh token: presenting it again means it was stolen (RFC 9700 §4.14.2),
   * unless within the grace period (below).
   */
  rotated: boolean
  /** When it was replaced (epoch ms). */
  rotatedAt?: number
  /** The hash of the refresh token that replaced it: where the answer it got is kept for the grace period. */
  successor?: string
}

/**
 * What a refresh answered, kept for the grace period under `oauth:refresh-grace:<hash of the new
 * refresh token>`, sealed with the presented token (oauth-refresh-grace.ts): several connections
 * of one client that share a refresh token and refresh at once all get this pair.
 */
interface GraceRecord {
  sealed: string
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
  /** How long a replaced refresh token, presented again by its client, gets the pair it was replaced by. */
  refreshGraceSeconds: number
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
    if (!codeVerifier || !/^[A-Za-z0-9\-._~]{43,128}$/.test(codeVerifier))
      throw fail(ERRORS.oauthInvalidRequest, 'code_verifier (PKCE, 43 to 128 characters) is required.')
    const challenge = createHash('sha256').update(codeVerifier).digest('base64url')
    if (!secretsEqual(challenge, record.codeChallenge)) throw invalidGrant('code_verifier does not match the code_challenge (PKCE).')
    // Used before anything is issued, compared-and-set: of two exchanges at once, one wins.
    const marked = await this.#deps.shared.set(key, { ...record, used: true }, found.expiresAt, found.version)
    if (marked === false) {
      await this.revoke(record.grantId)
      throw invalidGrant('The code was used already: the tokens it gave are revoked.')
    }
    if (this.#deps.keyGeneration(record.approver.workspaceId) !== record.generation)
      throw invalidGrant('The workspace key changed since the approval: approve again.')
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

  /**
   * refresh_token: rotation. A rotated token presented again revokes its whole grant, except
   * within the grace period: then its client gets the same new pair again. One client's several
   * connections (MCP sessions of one app) share a refresh token and refresh at once; the one
   * that lost the race must not log them all out. What answers the retry is in SharedState, not
   * in this process: the retry may reach another instance.
   */
  async refresh(clientId: string, refreshToken: string): Promise<IssuedTokens> {
    const key = `oauth:refresh:${tokenHash(refreshToken)}`
    const found = await this.#deps.shared.get<RefreshRecord>(key)
    if (!found || found.value.clientId !== clientId) throw invalidGrant('The refresh token is unknown, expired, or another client’s.')
    if (found.value.rotated) return this.#again(found.value, refreshToken)
    const grant = await this.#liveGrant(found.value.grantId)
    if (!grant) throw invalidGrant('The authorization was revoked (or the workspace key changed): approve the client again.')
    // The new pair is stored (with its sealed copy) before the old token is marked: whoever
    // then finds it rotated finds the pair too, whichever instance it asks.
    const now = Date.now()
    const pair = this.#newPair(now)
    const successor = tokenHash(pair.refreshToken)
    await this.#store(grant, pair)
    await this.#deps.shared.set(
      `oauth:refresh-grace:${successor}`,
      { sealed: sealPair(pair, refreshToken) } satisfies GraceRecord,
      now + this.#deps.refreshGraceSeconds * 1000,
    )
    // Compared-and-set: of two refreshes at once, one rotates; the other drops its pair and answers the winner's.
    const marked = await this.#deps.shared.set(
      key,
      { ...found.value, rotated: true, rotatedAt: now, successor } satisfies RefreshRecord,
      found.expiresAt,
      found.version,
    )
    if (marked === false) {
      await this.#discard(pair)
      const winner = await this.#deps.shared.get<RefreshRecord>(key)
      if (!winner?.value.rotated) throw invalidGrant('The authorization was revoked (or the workspace key changed): approve the client again.')
      return this.#again(winner.value, refreshToken)
    }
    await this.grants.put(grant.id, { ...grant, refreshHash: successor }, NO_EXPIRY)
    return this.#answer(grant, pair, now)
  }

  /** A replaced refresh token presented again: the pair it got, within the grace period; else the grant ends. */
  async #again(record: RefreshRecord, refreshToken: string): Promise<IssuedTokens> {
    const now = Date.now()
    const inGrace = record.rotatedAt !== undefined && record.successor !== undefined && now - record.rotatedAt < this.#deps.refreshGraceSeconds * 1000
    const kept = inGrace ? await this.#deps.shared.get<GraceRecord>(`oauth:refresh-grace:${record.successor}`) : undefined
    const pair = kept && openPair(kept.value.sealed, refreshToken)
    if (!pair) {
      await this.revoke(record.grantId)
      throw invalidGrant('This refresh token was replaced already: the grant is revoked (approve the client again).')
    }
    const grant = await this.#liveGrant(record.grantId)
    if (!grant) throw invalidGrant('The authorization was revoked (or the workspace key changed): approve the client again.')
    return this.#answer(grant, pair, now)
  }

  /** The grant, read from SharedState if another instance made it, if it still holds. */
  async #liveGrant(grantId: string): Promise<Grant | undefined> {
    await this.grants.lookup(grantId)
    return this.live(grantId)
  }

  /** A new access token and refresh token for the grant (stored as hashes, the grant updated). */
  async #issue(grant: Grant): Promise<IssuedTokens> {
    const now = Date.now()
    const pair = this.#newPair(now)
    await this.#store(grant, pair)
    await this.grants.put(grant.id, { ...grant, refreshHash: tokenHash(pair.refreshToken) }, NO_EXPIRY)
    return this.#answer(grant, pair, now)
  }

  #newPair(now: number): RefreshedPair {
    return {
      accessToken: newToken(ACCESS_TOKEN_PREFIX),
      refreshToken: newToken(REFRESH_TOKEN_PREFIX),
      accessExpiresAt: now + this.#deps.accessTokenSeconds * 1000,
    }
  }

  /** The pair's records: each token under its hash, pointing at the grant. */
  async #store(grant: Grant, pair: RefreshedPair): Promise<void> {
    const record: RefreshRecord = { grantId: grant.id, clientId: grant.clientId, rotated: false }
    await this.#deps.shared.set(`oauth:refresh:${tokenHash(pair.refreshToken)}`, record, Date.now() + REFRESH_MS)
    await this.#access.put(tokenHash(pair.accessToken), { grantId: grant.id }, pair.accessExpiresAt)
  }

  /** A pair that lost the race to rotate: never handed out, so nothing of it is kept. */
  async #discard(pair: RefreshedPair): Promise<void> {
    const successor = tokenHash(pair.refreshToken)
    await this.#deps.shared.delete(`oauth:refresh-grace:${successor}`)
    await this.#deps.shared.delete(`oauth:refresh:${successor}`)
    await this.#access.remove(tokenHash(pair.accessToken))
  }

  /** The token answer; a pair answered again says how long its access token has left. */
  #answer(grant: Grant, pair: RefreshedPair, now: number): IssuedTokens {
    const expiresIn = Math.max(1, Math.ceil((pair.accessExpiresAt - now) / 1000))
    return { access_token: pair.accessToken, token_type: 'Bearer', expires_in: expiresIn, refresh_token: pair.refreshToken, scope: grant.scope }
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
