import type { IncomingMessage } from 'node:http'
import type { H3Event } from 'h3'
import type { Access } from '../api/contract.js'
import { ERRORS } from '../api/errors.js'
import type { ApiKeys } from './api-keys.js'
import type { ServerConfig } from './config.js'
import { isOwnHost } from './host-check.js'
import { fromThisMachine, nodeRequest } from './remote.js'
import { fail } from './errors.js'

/** Who is calling. In OSS the open API acts as the local owner. */
export interface Principal {
  workspaceId: string
  name: string
  email?: string
  role: 'owner' | 'admin' | 'member'
  via: 'open' | 'api-key'
}

export const LOCAL_WORKSPACE = 'local'

export const unauthorized = () =>
  fail(ERRORS.unauthorized, 'Send Authorization: Bearer <API key> (folio keys show prints the key of this server). A wrong key, other machines, requests through the tunnel, pages of other origins and host names not in FOLIO_ALLOWED_HOSTS always need the right one.', {
    'www-authenticate': 'Bearer',
  })

export { secretsEqual } from './auth-secrets.js'

/** The token of an `Authorization: Bearer <token>` header, if that is what it holds. */
export function bearerToken(header: string | null | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  return match?.[1]
}

/** What a credential check concluded: the caller (undefined: anonymous, allowed) or a refusal. */
export const DENIED = Symbol('denied')

/** What a credential decision reads: three headers and where the request came from. */
export interface CredentialHeaders {
  authorization?: string | null
  origin?: string | null
  host?: string | null
  /**
   * A program on this machine: a loopback socket peer, not through the tunnel (remote.ts).
   * Anything else (another machine on the LAN, the tunnel, no socket at all) is not.
   */
  local: boolean
}

/**
 * A browser page of another origin, or a folio running in the viewer's sandbox (Origin: null).
 * Programs (curl, the CLI) send no Origin; same-origin pages send their own.
 */
function fromForeignPage(headers: CredentialHeaders): boolean {
  const origin = headers.origin
  if (!origin) return false
  if (origin === 'null' || !headers.host) return true
  try {
    return new URL(origin).host !== headers.host
  } catch {
    return true
  }
}

/**
 * The one place that decides who may call what. Routes declare an Access level in their
 * contract; API keys, OAuth tokens and Cloud workspaces plug in here. It reads three headers and
 * the socket (credentialsOf), so the h3 pipeline and the hot cache in front of it decide alike.
 */
export function createAuth(config: ServerConfig, keys: ApiKeys) {
  // Built once: every request of the local owner shares them (they are never mutated).
  const viaKey: Principal = Object.freeze({ workspaceId: LOCAL_WORKSPACE, name: config.localAuthor, role: 'owner', via: 'api-key' })
  const viaOpen: Principal = Object.freeze({ workspaceId: LOCAL_WORKSPACE, name: config.localAuthor, role: 'owner', via: 'open' })

  const resolve = (headers: CredentialHeaders, access: Access): Principal | undefined | typeof DENIED => {
    const token = bearerToken(headers.authorization)
    const withKey = keys.matches(token)
    if (access === 'public') return withKey ? viaKey : undefined
    if (withKey) return viaKey
    // Spec, Authentication 9: an invalid credential gets 401, even where none is needed. A stale
    // key (after a rotation) should be found out here, not first over the tunnel.
    if (token !== undefined) return DENIED
    // Cloud needs the key everywhere; so does anyone reaching an OSS server from elsewhere: another
    // machine (folio serve --host 0.0.0.0) or the tunnel. The README promises the open API to
    // programs on this machine.
    if (config.mode === 'cloud' || !headers.local) return DENIED
    // Spec, Authentication 8: OSS is open by default, and the sync endpoint needs the key when
    // FOLIO_API_KEY is set (so does reading that key). "Open" means open to this machine's
    // programs and this server's own pages: another site, or a folio's script in the viewer
    // sandbox, gets nothing without a key.
    if (access === 'guarded' && keys.fromEnvironment) return DENIED
    if (!isOwnHost(headers.host, config.allowedHosts)) return DENIED
    return fromForeignPage(headers) ? DENIED : viaOpen
  }

  /** What the router and the hot cache in front of it read of a node request, alike. */
  const credentialsOf = (req: IncomingMessage | undefined): CredentialHeaders => {
    const h = req?.headers
    return { authorization: h?.authorization, origin: h?.origin, host: h?.host, local: fromThisMachine(req, config.trustProxy) }
  }
  const resolveRequest = (req: IncomingMessage | undefined, access: Access) => resolve(credentialsOf(req), access)
  const resolveEvent = (event: H3Event, access: Access) => resolveRequest(nodeRequest(event), access)

  return {
    resolve,
    resolveRequest,
    resolveEvent,
    /** Returns the caller, or throws 401. Public endpoints return the caller when identified. */
    authorize(event: H3Event, access: Access): Principal | undefined {
      const principal = resolveEvent(event, access)
      if (principal === DENIED) throw unauthorized()
      return principal
    },
  }
}

export type Auth = ReturnType<typeof createAuth>
