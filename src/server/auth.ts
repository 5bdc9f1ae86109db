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

export function bearerToken(event: H3Event): string | undefined {
  const header = event.req.headers.get('authorization')
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  return match?.[1]
}

/**
 * The one place that decides who may call what. Routes declare an Access level in their
 * contract; API keys, OAuth tokens and Cloud workspaces plug in here.
 */
export function createAuth(config: ServerConfig) {
  const keyPrincipal = (): Principal => ({ workspaceId: LOCAL_WORKSPACE, name: config.localAuthor, role: 'owner', via: 'api-key' })
  const openPrincipal = (): Principal => ({ workspaceId: LOCAL_WORKSPACE, name: config.localAuthor, role: 'owner', via: 'open' })

  const hasValidKey = (event: H3Event): boolean => {
    const token = bearerToken(event)
    return Boolean(config.apiKey && token && secretsEqual(token, config.apiKey))
  }

  return {
    /** Returns the caller, or throws 401. Public endpoints return the caller when identified. */
    authorize(event: H3Event, access: Access): Principal | undefined {
      if (access === 'public') return hasValidKey(event) ? keyPrincipal() : undefined
      if (config.mode === 'oss') {
        // Spec, Authentication 8: open by default; the sync endpoint needs the key when one is set.
        if (access === 'sync' && config.apiKey) {
          if (!hasValidKey(event)) throw unauthorized()
          return keyPrincipal()
        }
        return hasValidKey(event) ? keyPrincipal() : openPrincipal()
      }
      if (!hasValidKey(event)) throw unauthorized()
      return keyPrincipal()
    },
  }
}

export type Auth = ReturnType<typeof createAuth>
