import { timingSafeEqual } from 'node:crypto'
import type { H3Event } from 'h3'
import type { Access } from '../api/contract.js'
import type { ServerConfig } from './config.js'
import { ApiError } from './errors.js'

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
  new ApiError(401, 'Unauthorized', 'Send Authorization: Bearer <API key> (folio keys show prints the key of this server).', {
    'www-authenticate': 'Bearer',
  })

/** Constant-time comparison of secrets of any length (timingSafeEqual needs equal lengths). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  const same = timingSafeEqual(a.length === b.length ? a : b, b)
  return same && a.length === b.length
}

/** The token of an `Authorization: Bearer <token>` header, if that is what it holds. */
export function bearerToken(header: string | null | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  return match?.[1]
}

/** What a credential check concluded: the caller (undefined: anonymous, allowed) or a refusal. */
export const DENIED = Symbol('denied')

/**
 * The one place that decides who may call what. Routes declare an Access level in their
 * contract; API keys, OAuth tokens and Cloud workspaces plug in here. It reads only the
 * Authorization header, so the h3 pipeline and the hot cache in front of it decide alike.
 */
export function createAuth(config: ServerConfig) {
  // Built once: every request of the local owner shares them (they are never mutated).
  const viaKey: Principal = Object.freeze({ workspaceId: LOCAL_WORKSPACE, name: config.localAuthor, role: 'owner', via: 'api-key' })
  const viaOpen: Principal = Object.freeze({ workspaceId: LOCAL_WORKSPACE, name: config.localAuthor, role: 'owner', via: 'open' })

  const keyIsValid = (header: string | null | undefined): boolean => {
    if (!config.apiKey) return false
    const token = bearerToken(header)
    return Boolean(token && secretsEqual(token, config.apiKey))
  }

  const resolve = (header: string | null | undefined, access: Access): Principal | undefined | typeof DENIED => {
    if (access === 'public') return keyIsValid(header) ? viaKey : undefined
    if (config.mode === 'oss') {
      // Spec, Authentication 8: open by default; the sync endpoint needs the key when one is set.
      if (access === 'sync' && config.apiKey) return keyIsValid(header) ? viaKey : DENIED
      return keyIsValid(header) ? viaKey : viaOpen
    }
    return keyIsValid(header) ? viaKey : DENIED
  }

  return {
    resolve,
    /** Returns the caller, or throws 401. Public endpoints return the caller when identified. */
    authorize(event: H3Event, access: Access): Principal | undefined {
      const principal = resolve(event.req.headers.get('authorization'), access)
      if (principal === DENIED) throw unauthorized()
      return principal
    },
  }
}

export type Auth = ReturnType<typeof createAuth>
