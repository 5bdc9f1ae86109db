import { createHmac, timingSafeEqual } from 'node:crypto'
import type { H3Event } from 'h3'
import type { FolioMeta } from '../../domain/model.js'
import { type Auth, DENIED } from './auth.js'
import { isCollaborator } from '../mail/collaborator-notices.js'

/**
 * What lets a viewer see a folio that is not simply public:
 *   key   — they proved the private folio's access key (bound to that key: changing it ends the grant)
 *   owner — the owner opened a preview
 * Grants travel as signed tokens of two scopes, never interchangeable:
 *   cookie — in an HttpOnly, SameSite=Strict cookie scoped to the folio, for the share page and
 *            its API calls (12 h). No script sees it.
 *   frame  — in the sandboxed frame's path (its opaque origin gets no cookies), for the folio's
 *            files only, for a few minutes: any script the folio includes can read its URL. The
 *            share page fetches a fresh one before it runs out (GET /api/files/{id}/frame).
 * The key itself never leaves the POST.
 */
export type Grant = { kind: 'key'; keyHash: string } | { kind: 'owner' }

export type TokenScope = 'cookie' | 'frame'

export const COOKIE_TOKEN_SECONDS = 12 * 60 * 60

const SCOPE_MARK: Record<TokenScope, string> = { cookie: 'c', frame: 'f' }

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url')

/** A frame token that was ours and right, but is past its time: the share page can renew it. */
export const EXPIRED = Symbol('expired')

export function createViewerAccess(secret: () => Promise<Buffer>, options: { frameTokenSeconds: number }) {
  const frameSeconds = options.frameTokenSeconds
  const sign = async (payload: string) =>
    createHmac('sha256', await secret())
      .update(payload)
      .digest()

  const fingerprint = async (accessKey: string) =>
    createHmac('sha256', await secret())
      .update(`key:${accessKey.trim()}`)
      .digest('base64url')
      .slice(0, 22)

  /** The grant a token carries, EXPIRED, or undefined (not ours, another folio, another scope). */
  async function check(token: string | undefined, folioId: string, scope: TokenScope): Promise<Grant | typeof EXPIRED | undefined> {
    if (!token || token.length > 512) return undefined
    const [payload, mac] = token.split('.')
    if (!payload || !mac) return undefined
    const expected = await sign(payload)
    const given = Buffer.from(mac, 'base64url')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
    try {
      const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { f: string; s?: string; k: string; h?: string; x: number }
      // A token without a scope was made by an older folio, when one token did both jobs: none.
      if (data.f !== folioId || data.s !== SCOPE_MARK[scope] || typeof data.x !== 'number') return undefined
      if (data.x <= Date.now()) return EXPIRED
      if (data.k === 'owner') return { kind: 'owner' }
      if (data.k === 'key' && typeof data.h === 'string') return { kind: 'key', keyHash: data.h }
    } catch {
      // a token we did not make
    }
    return undefined
  }

  return {
    fingerprint,
    frameTokenSeconds: frameSeconds,

    /** A signed token for this grant and scope; expiresAt in ms. */
    async mint(folioId: string, grant: Grant, scope: TokenScope): Promise<{ token: string; expiresAt: number }> {
      const expiresAt = Date.now() + (scope === 'frame' ? frameSeconds : COOKIE_TOKEN_SECONDS) * 1000
      const payload = b64url(
        JSON.stringify({ f: folioId, s: SCOPE_MARK[scope], k: grant.kind, h: grant.kind === 'key' ? grant.keyHash : undefined, x: expiresAt }),
      )
      return { token: `${payload}.${(await sign(payload)).toString('base64url')}`, expiresAt }
    },

    check,

    async verify(token: string | undefined, folioId: string, scope: TokenScope): Promise<Grant | undefined> {
      const found = await check(token, folioId, scope)
      return found === EXPIRED ? undefined : found
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

/** What grantOf needs of the server context (structural: this file imports no context). */
export interface GrantContext {
  auth: Auth
  viewerAccess: ViewerAccess
  cloud?: {
    credentials: {
      sessionOf(headers: { cookie?: string | null; origin?: string | null; host?: string | null; method?: string }): { email?: string } | undefined
    }
  }
}

const cookieHeaders = (event: H3Event) => ({
  cookie: event.req.headers.get('cookie'),
  origin: event.req.headers.get('origin'),
  host: event.req.headers.get('host'),
  method: event.req.method,
})

export const accessCookieName = (folioId: string) => `folio_access_${folioId}`

/** The viewer's grant for this folio: its workspace's credential counts as the owner, else the access cookie (cookie scope only). */
export async function grantOf(
  ctx: GrantContext,
  event: H3Event,
  folio: { id: string; workspaceId: string; collaborators?: unknown[] },
): Promise<Grant | undefined> {
  const principal = ctx.auth.resolveEvent(event, 'public')
  // Only a credential of the folio's own workspace: another workspace's key is a stranger here.
  if (principal && principal !== DENIED && principal.workspaceId === folio.workspaceId) return { kind: 'owner' }
  // Cloud: a person signed in with an address among the folio's collaborators sees it as its
  // owner does (drafts, private), this folio only; owner actions still need the workspace's
  // credential (folio-access.ts isOwner).
  const email = folio.collaborators?.length ? ctx.cloud?.credentials.sessionOf(cookieHeaders(event))?.email : undefined
  if (email && isCollaborator({ collaborators: folio.collaborators! }, email)) return { kind: 'owner' }
  return ctx.viewerAccess.verify(readCookie(event.req.headers.get('cookie'), accessCookieName(folio.id)), folio.id, 'cookie')
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

/** The access cookie for a grant: a cookie-scope token, HttpOnly, SameSite=Strict. */
export async function accessCookie(viewerAccess: ViewerAccess, folioId: string, grant: Grant, secure: boolean): Promise<string> {
  const { token } = await viewerAccess.mint(folioId, grant, 'cookie')
  return `${accessCookieName(folioId)}=${token}; Path=/; Max-Age=${COOKIE_TOKEN_SECONDS}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`
}

/**
 * Where the frame loads the folio's files from: `-` for a published public folio, else a fresh
 * frame token; then the version (/v/{id}/-@v3/), so that what the browser keeps of one version
 * is never mistaken for another's.
 */
export async function frameAccess(
  viewerAccess: ViewerAccess,
  meta: FolioMeta,
  grant: Grant | undefined,
): Promise<{ frameBase: string; expiresAt: number | null }> {
  const version = `@v${meta.head}`
  const needsToken = meta.isPrivate || meta.status === 'draft'
  if (!needsToken || !grant) return { frameBase: `/v/${meta.id}/-${version}/`, expiresAt: null }
  const { token, expiresAt } = await viewerAccess.mint(meta.id, grant, 'frame')
  return { frameBase: `/v/${meta.id}/${token}${version}/`, expiresAt }
}
