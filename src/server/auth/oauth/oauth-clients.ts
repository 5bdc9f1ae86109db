import { randomUUID } from 'node:crypto'
import { ERRORS } from '../../../api/errors.js'
import type { SharedState } from '../../../store/index.js'
import { secretsEqual } from '../auth-secrets.js'
import { NO_EXPIRY, newToken, tokenHash } from '../credential-index.js'
import { fail } from '../../http/errors.js'
import { redirectUriProblem } from './oauth-redirects.js'

export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post'
export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post']
const GRANT_TYPES = ['authorization_code', 'refresh_token']

/** A registered client (RFC 7591), kept for good: clients remember their client_id across runs. */
export interface OAuthClient {
  id: string
  name?: string
  uri?: string
  redirectUris: string[]
  authMethod: ClientAuthMethod
  /** sha256 of the secret of a confidential client. */
  secretHash?: string
  grantTypes: string[]
  createdAt: string
}

/** The registration answer (RFC 7591 §3.2.1): the metadata as registered, and the credentials. */
export interface ClientRegistration {
  client_id: string
  client_id_issued_at: number
  client_secret?: string
  client_secret_expires_at?: number
  client_name?: string
  client_uri?: string
  redirect_uris: string[]
  grant_types: string[]
  response_types: string[]
  token_endpoint_auth_method: ClientAuthMethod
}

const invalidMetadata = (why: string) => fail(ERRORS.oauthInvalidClientMetadata, why)
const optionalString = (value: unknown, name: string, max: number): string | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || value.length > max) throw invalidMetadata(`${name} must be a string of at most ${max} characters.`)
  return value
}

/** Client registration and authentication at the token and revocation endpoints. */
export class OAuthClients {
  readonly #shared: SharedState

  constructor(shared: SharedState) {
    this.#shared = shared
  }

  /** RFC 7591: anyone may register (rate-limited by the route); public clients by default for agents. */
  async register(metadata: Record<string, unknown>): Promise<ClientRegistration> {
    const uris = metadata.redirect_uris
    if (!Array.isArray(uris) || uris.length === 0 || uris.length > 20 || !uris.every((u) => typeof u === 'string' && u.length <= 2000)) {
      throw fail(ERRORS.oauthInvalidRedirectUri, 'redirect_uris must be a list of 1 to 20 URIs.')
    }
    for (const uri of uris as string[]) {
      const problem = redirectUriProblem(uri)
      if (problem) throw fail(ERRORS.oauthInvalidRedirectUri, problem)
    }
    // RFC 7591's default is client_secret_basic; MCP clients ask for none (public, PKCE only).
    const authMethod = (metadata.token_endpoint_auth_method ?? 'client_secret_basic') as ClientAuthMethod
    if (!CLIENT_AUTH_METHODS.includes(authMethod)) throw invalidMetadata(`token_endpoint_auth_method must be one of ${CLIENT_AUTH_METHODS.join(', ')}.`)
    const grantTypes = metadata.grant_types ?? GRANT_TYPES
    if (!Array.isArray(grantTypes) || !grantTypes.includes('authorization_code') || grantTypes.some((g) => !GRANT_TYPES.includes(g as string))) {
      throw invalidMetadata('grant_types may hold authorization_code and refresh_token only, and must hold authorization_code.')
    }
    const responseTypes = metadata.response_types ?? ['code']
    if (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== 'code')) throw invalidMetadata('response_types may only be ["code"].')
    const secret = authMethod === 'none' ? undefined : newToken('folio_cs_')
    const client: OAuthClient = {
      id: randomUUID(),
      name: optionalString(metadata.client_name, 'client_name', 200),
      uri: optionalString(metadata.client_uri, 'client_uri', 2000),
      redirectUris: uris as string[],
      authMethod,
      secretHash: secret && tokenHash(secret),
      grantTypes: grantTypes as string[],
      createdAt: new Date().toISOString(),
    }
    await this.#shared.set(`oauth:client:${client.id}`, client, NO_EXPIRY)
    return {
      client_id: client.id,
      client_id_issued_at: Math.floor(Date.parse(client.createdAt) / 1000),
      // 0: the secret does not expire (oauth4webapi insists on the number when a secret is given).
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      ...(client.name ? { client_name: client.name } : {}),
      ...(client.uri ? { client_uri: client.uri } : {}),
      redirect_uris: client.redirectUris,
      grant_types: client.grantTypes,
      response_types: ['code'],
      token_endpoint_auth_method: authMethod,
    }
  }

  async get(clientId: string | undefined): Promise<OAuthClient | undefined> {
    if (!clientId || clientId.length > 100) return undefined
    return (await this.#shared.get<OAuthClient>(`oauth:client:${clientId}`))?.value
  }

  /**
   * The client a token or revocation request authenticates as (RFC 6749 §2.3): HTTP Basic,
   * client_id + client_secret in the form, or client_id alone for a public client. A
   * confidential client must prove its secret; 401 invalid_client otherwise.
   */
  async authenticate(authorization: string | null, form: URLSearchParams): Promise<OAuthClient> {
    let id = form.get('client_id') ?? undefined
    let secret = form.get('client_secret') ?? undefined
    const basic = authorization ? /^Basic\s+(\S+)$/i.exec(authorization) : null
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8')
      const colon = decoded.indexOf(':')
      try {
        id = decodeURIComponent(decoded.slice(0, colon === -1 ? undefined : colon))
        secret = colon === -1 ? undefined : decodeURIComponent(decoded.slice(colon + 1))
      } catch {
        throw clientFailure(true)
      }
    }
    const client = await this.get(id)
    if (!client) throw clientFailure(Boolean(basic))
    if (client.authMethod !== 'none' && !(secret && client.secretHash && secretsEqual(tokenHash(secret), client.secretHash)))
      throw clientFailure(Boolean(basic))
    return client
  }
}

/** RFC 6749 §5.2: 401, with a Basic challenge when the client tried Basic. */
const clientFailure = (triedBasic: boolean) =>
  fail(
    ERRORS.oauthInvalidClient,
    'Unknown client_id or wrong client secret: register again (POST /api/oauth/register).',
    triedBasic ? { 'www-authenticate': 'Basic realm="folio"' } : undefined,
  )
