import { createHmac, timingSafeEqual } from 'node:crypto'
import type { H3Event } from 'h3'
import type { FolioMeta } from '../domain/model.js'
import { type Auth, DENIED } from './auth.js'

/**
 * What lets a viewer see a folio that is not simply public:
 *   key   — they proved the private folio's access key (bound to that key: changing it ends the grant)
 *   owner — the owner opened a preview
 * Grants travel as short-lived signed tokens: in an HttpOnly cookie scoped to the folio (for
 * the share page and its API calls) and in the frame's path (the sandboxed frame has an opaque
 * origin, so cookies do not reach the folio's own files). The key itself never leaves the POST.
 */
export type Grant = { kind: 'key'; keyHash: string } | { kind: 'owner' }

const TOKEN_TTL_S = 12 * 60 * 60

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url')

export function createViewerAccess(secret: () => Promise<Buffer>) {
  const sign = async (payload: string) => createHmac('sha256', await secret()).update(payload).digest()

  const fingerprint = async (accessKey: string) => createHmac('sha256', await secret()).update(`key:${accessKey.trim()}`).digest('base64url').slice(0, 22)

  return {
    fingerprint,

    async mint(folioId: string, grant: Grant, ttlSeconds = TOKEN_TTL_S): Promise<string> {
      const payload = b64url(JSON.stringify({ f: folioId, k: grant.kind, h: grant.kind === 'key' ? grant.keyHash : undefined, e: Math.floor(Date.now() / 1000) + ttlSeconds }))
      return `${payload}.${(await sign(payload)).toString('base64url')}`
    },

    async verify(token: string | undefined, folioId: string): Promise<Grant | undefined> {
      if (!token || token.length > 512) return undefined
      const [payload, mac] = token.split('.')
      if (!payload || !mac) return undefined
      const expected = await sign(payload)
      const given = Buffer.from(mac, 'base64url')
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
      try {
        const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { f: string; k: string; h?: string; e: number }
        if (data.f !== folioId || typeof data.e !== 'number' || data.e < Date.now() / 1000) return undefined
        if (data.k === 'owner') return { kind: 'owner' }
        if (data.k === 'key' && typeof data.h === 'string') return { kind: 'key', keyHash: data.h }
      } catch {
        // a token we did not make
      }
      return undefined
    },

    /** Draft: owner only. Private: the owner, or whoever proved the current key. Else: anyone. */
    async canView(meta: FolioMeta, grant: Grant | undefined): Promise<boolean> {
      if (grant?.kind === 'owner') return true
      if (meta.status === 'draft') return false
      if (!meta.isPrivate) return true
      return grant?.kind === 'key' && meta.accessKey.trim() !== '' && grant.keyHash === (await fingerprint(meta.accessKey))
    },
  }
}

export type ViewerAccess = ReturnType<typeof createViewerAccess>

export const accessCookieName = (folioId: string) => `folio_access_${folioId}`

/** The viewer's grant for this folio: an API key counts as the owner, else the access cookie. */
export async function grantOf(ctx: { auth: Auth; viewerAccess: ViewerAccess }, event: H3Event, folioId: string): Promise<Grant | undefined> {
  const principal = ctx.auth.resolveEvent(event, 'public')
  if (principal && principal !== DENIED) return { kind: 'owner' }
  return ctx.viewerAccess.verify(readCookie(event.req.headers.get('cookie'), accessCookieName(folioId)), folioId)
}

export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue
    // A mangled cookie is no grant at all, never an error: viewers do not control their jar.
    try {
      return decodeURIComponent(part.slice(eq + 1).trim())
    } catch {
      return undefined
    }
  }
  return undefined
}

export function accessCookie(folioId: string, token: string, secure: boolean): string {
  return `${accessCookieName(folioId)}=${token}; Path=/; Max-Age=${TOKEN_TTL_S}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`
}
