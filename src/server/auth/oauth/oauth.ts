import type { SharedState, WorkspaceRepository } from '../../../store/index.js'
import type { ApiKeys } from '../api-keys.js'
import type { Auth } from '../auth.js'
import type { ServerConfig } from '../../config.js'
import { OAuthClients } from './oauth-clients.js'
import type { CredentialChanges } from '../credential-index.js'
import { OAuthGrants } from './oauth-grants.js'

/** OAuth 2.0 (both modes): registered clients, and the grants with their codes and tokens. */
export interface OAuth {
  clients: OAuthClients
  grants: OAuthGrants
  /** Reads grants and access tokens into memory: before the server takes its first request. */
  load(): Promise<void>
}

export interface OAuthDeps {
  auth: Auth
  shared: SharedState
  config: ServerConfig
  keys: ApiKeys
  workspaces: WorkspaceRepository
  /** Several instances: grants and tokens made elsewhere are read on a miss (server/auth/credential-index.ts). */
  changes?: CredentialChanges
}

/**
 * Builds OAuth and plugs its access tokens into auth.ts. A grant lives under the workspace key's
 * generation: rotating or revoking the key (Cloud: the workspace's; OSS: the server's one key)
 * ends every third-party token of the workspace, as it ends sign-in sessions. The owner who
 * rotates because the key leaked cannot be sure which grants the thief made, so none survive.
 */
export function createOAuth({ auth, shared, config, keys, workspaces, changes }: OAuthDeps): OAuth {
  const cloud = config.mode === 'cloud'
  const grants = new OAuthGrants({
    shared,
    keyGeneration: cloud ? (id) => workspaces.keyGeneration(id) : () => keys.generation,
    memberRole: cloud ? (id, email) => workspaces.member(id, email)?.role : undefined,
    codeSeconds: config.oauthCodeSeconds,
    accessTokenSeconds: config.oauthAccessTokenSeconds,
    refreshGraceSeconds: config.oauthRefreshGraceSeconds,
    changes,
  })
  auth.addResolver(grants.resolve, grants.refreshAccess)
  return {
    clients: new OAuthClients(shared),
    grants,
    async load() {
      await grants.load()
    },
  }
}
