import type { IncomingMessage } from 'node:http'
import type { H3Event } from 'h3'
import type { Access } from '../../api/contract.js'
import { ERRORS } from '../../api/errors.js'
import type { Principal } from '../../domain/principal.js'
import type { WorkspaceRepository } from '../../store/repositories/workspace-repository.js'
import type { ApiKeys } from './api-keys.js'
import type { ServerConfig } from '../config.js'
import { isOwnHost } from '../http/host-check.js'
import { fromThisMachine, nodeRequest } from '../http/remote.js'
import { stringsEqual } from './auth-secrets.js'
import { fail } from '../http/errors.js'

/** Who is calling (domain/principal.ts). In OSS the open API acts as the local owner. */
export type { Principal }

export const LOCAL_WORKSPACE = 'local'

const HOW_TO_AUTHENTICATE = {
  oss: 'Send Authorization: Bearer <API key> (folio keys show prints the key of this server). A wrong key, other machines, requests through the tunnel, pages of other origins and host names not in FOLIO_ALLOWED_HOSTS always need the right one.',
  cloud: "Send Authorization: Bearer <your workspace's API key>. An agent gets one with POST /api/agent/auth; a rotated or revoked key stops working at once.",
}

export const unauthorized = (mode: ServerConfig['mode'] = 'oss') => fail(ERRORS.unauthorized, HOW_TO_AUTHENTICATE[mode], { 'www-authenticate': 'Bearer' })

export { secretsEqual } from './auth-secrets.js'

const KEY_SEEN = Symbol('folio.keySeen')
type SocketWithKey = { [KEY_SEEN]?: { header: string; principal: Principal; epoch: number } }

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
  /** The Cookie header: a person's sign-in session (Cloud) is read from it by a resolver. */
  cookie?: string | null
  /** The request's method: a resolver of cookies refuses foreign-origin writes (CSRF). */
  method?: string
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
 * A way to prove who one is in Cloud besides the workspace key: a sign-in session (the cookie),
 * an agent's pre-claim key, an OAuth access token. It answers from memory (the hot cache asks it
 * for every request): the caller, or undefined when the credential is not one of its own.
 */
export type CredentialResolver = (token: string | undefined, headers: CredentialHeaders) => Principal | undefined

/**
 * Several instances: reads a credential the resolver of the same kind does not know from the
 * shared state (another instance may have made it); true when it is known now.
 */
export type CredentialRefresher = (token: string | undefined, headers: CredentialHeaders) => Promise<boolean>

/**
 * The one place that decides who may call what. Routes declare an Access level in their
 * contract; API keys, OAuth tokens and Cloud workspaces plug in here. It reads four headers and
 * the socket (credentialsOf), so the h3 pipeline and the hot cache in front of it decide alike.
 */
export function createAuth(config: ServerConfig, keys: ApiKeys, workspaces?: WorkspaceRepository) {
  // Built once: every request of the local owner shares them (they are never mutated).
  const viaKey: Principal = Object.freeze({ workspaceId: LOCAL_WORKSPACE, name: config.localAuthor, role: 'owner', via: 'api-key' })
  const viaOpen: Principal = Object.freeze({ workspaceId: LOCAL_WORKSPACE, name: config.localAuthor, role: 'owner', via: 'open' })

  const resolvers: CredentialResolver[] = []
  const refreshers: CredentialRefresher[] = []

  /**
   * A keep-alive connection sends the same Authorization header request after request: the
   * workspace key it proved last is remembered on the socket, so the next request compares the
   * header in constant time instead of parsing and hashing it (the bench's Cloud GET). Any change
   * of any workspace key (epoch) forgets every socket's.
   */
  let epoch = 0
  workspaces?.onChange(() => epoch++)
  const rememberedKey = (req: IncomingMessage | undefined): Principal | undefined => {
    const header = req?.headers.authorization
    const seen = header ? (req!.socket as SocketWithKey | undefined)?.[KEY_SEEN] : undefined
    return seen && seen.epoch === epoch && stringsEqual(seen.header, header!) ? seen.principal : undefined
  }
  const rememberKey = (req: IncomingMessage | undefined, principal: Principal) => {
    const socket = req?.socket as SocketWithKey | undefined
    if (socket && req!.headers.authorization) socket[KEY_SEEN] = { header: req!.headers.authorization, principal, epoch }
  }

  /**
   * Cloud: a workspace key (looked up by its hash, in memory), else a credential one of the
   * resolvers knows. Nothing else lets anyone in, wherever the request comes from.
   */
  const resolveCloud = (headers: CredentialHeaders, access: Access): Principal | undefined | typeof DENIED => {
    const token = bearerToken(headers.authorization)
    let principal = workspaces?.principalOfKey(token)
    for (let i = 0; !principal && i < resolvers.length; i++) principal = resolvers[i]!(token, headers)
    if (principal || access === 'public') return principal
    return DENIED
  }

  const resolve = (headers: CredentialHeaders, access: Access): Principal | undefined | typeof DENIED => {
    if (config.mode === 'cloud') return resolveCloud(headers, access)
    const token = bearerToken(headers.authorization)
    // The key, else a token one of the resolvers knows (OAuth access tokens, in both modes).
    let principal = keys.matches(token) ? viaKey : undefined
    for (let i = 0; !principal && token !== undefined && i < resolvers.length; i++) principal = resolvers[i]!(token, headers)
    if (access === 'public' || principal) return principal
    // Spec, Authentication 9: an invalid credential gets 401, even where none is needed. A stale
    // key (after a rotation) should be found out here, not first over the tunnel.
    if (token !== undefined) return DENIED
    // Anyone reaching an OSS server from elsewhere needs the key: another machine (folio serve
    // --host 0.0.0.0) or the tunnel. The README promises the open API to programs on this machine.
    if (!headers.local) return DENIED
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
    // Cloud lets nobody in for being local: the socket is not even looked at.
    const local = config.mode === 'cloud' ? false : fromThisMachine(req, config.trustProxy)
    return { authorization: h?.authorization, origin: h?.origin, host: h?.host, cookie: h?.cookie, method: req?.method, local }
  }
  const resolveRequest = (req: IncomingMessage | undefined, access: Access): Principal | undefined | typeof DENIED => {
    if (config.mode !== 'cloud') return resolve(credentialsOf(req), access)
    const remembered = rememberedKey(req)
    if (remembered) return remembered
    const found = resolve(credentialsOf(req), access)
    if (found && found !== DENIED && found.via === 'api-key') rememberKey(req, found)
    return found
  }
  /**
   * Who is calling, decided once per request and access level: the route's check, the viewer
   * grant and the owner test of one request read the same answer (and do the work once). Only a
   * Cloud refresh after a miss asks again (authorizeOrRefresh).
   */
  const decided = new WeakMap<H3Event, Map<Access, ReturnType<typeof resolveRequest>>>()
  const resolveEvent = (event: H3Event, access: Access) => {
    let byAccess = decided.get(event)
    if (!byAccess) decided.set(event, (byAccess = new Map()))
    if (!byAccess.has(access)) byAccess.set(access, resolveRequest(nodeRequest(event), access))
    return byAccess.get(access) as ReturnType<typeof resolveRequest>
  }

  return {
    resolve,
    /**
     * Plugs in another kind of credential: sessions and pre-claim keys (Cloud), OAuth access
     * tokens (both modes; in OSS only a Bearer token is offered to resolvers). Asked in the order
     * added, after the workspace key.
     */
    addResolver(resolver: CredentialResolver, refresher?: CredentialRefresher): void {
      resolvers.push(resolver)
      if (refresher) refreshers.push(refresher)
    },
    credentialsOf,
    resolveRequest,
    resolveEvent,
    /** Returns the caller, or throws 401. Public endpoints return the caller when identified. */
    authorize(event: H3Event, access: Access): Principal | undefined {
      const principal = resolveEvent(event, access)
      if (principal === DENIED) throw unauthorized(config.mode)
      return principal
    },
    /**
     * authorize(), except that in Cloud on several instances a credential unknown here is
     * looked for first (another instance may have made it): a workspace key in the storage (the
     * repository bounds how often it walks), the others in SharedState (a keyed read); then the
     * answer is a promise. A known caller, and every refusal on one instance, stay synchronous.
     */
    authorizeOrRefresh(event: H3Event, access: Access): Principal | undefined | Promise<Principal | undefined> {
      const principal = resolveEvent(event, access)
      if (principal !== DENIED) return principal
      if (config.mode !== 'cloud' || !workspaces?.refreshesOnMiss) throw unauthorized(config.mode)
      const headers = credentialsOf(nodeRequest(event))
      const token = bearerToken(headers.authorization)
      const looks = [workspaces.refreshOnMiss(token), ...refreshers.map((refresh) => refresh(token, headers))]
      return Promise.all(looks).then((known) => {
        const again = known.some(Boolean) ? resolveRequest(nodeRequest(event), access) : DENIED
        decided.get(event)?.set(access, again)
        if (again === DENIED) throw unauthorized(config.mode)
        return again
      })
    },
  }
}

export type Auth = ReturnType<typeof createAuth>
