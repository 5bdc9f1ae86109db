import type { ResponseOf } from '../api/contract.js'
import { listFolios } from '../api/files.js'
import { getTunnel } from '../api/tunnel.js'
import { ApiClientError, type FolioClient, ServerUnreachableError } from '../client/index.js'

/**
 * What `folio status` shows, fetched in one go through the typed client. Failures become
 * fields (an unreachable server, a Cloud server without a tunnel, a private folio's comments):
 * loadSnapshot never throws for them, so the live view keeps polling.
 */

export type FolioListItem = ResponseOf<typeof listFolios>[number]
export type TunnelStatus = ResponseOf<typeof getTunnel>

export interface FolioRow {
  id: string
  title: string
  status: FolioListItem['status']
  isPrivate: boolean
  latestVersionId: string
  updatedAt: string
  analytics: FolioListItem['analytics']
  reactions: Record<string, number>
  /** Its latest comments, when the snapshot was loaded with comments for every folio. */
  comments?: CommentsSnapshot
}

export type TunnelSnapshot =
  | ({ available: true } & TunnelStatus)
  /** cloud: the server answered 403 (no tunnel in Cloud mode); unauthorized: 401; error: anything else. */
  | { available: false; reason: 'cloud' | 'unauthorized' | 'error'; message: string }

export interface CommentLine {
  id: string
  author: string
  text: string
  createdAt: string
  resolved: boolean
  /** The comment this one answers. */
  parentId?: string
}

export interface CommentsSnapshot {
  folioId: string
  state: 'ok'
  /** The latest comments viewers can see, newest first (at most `commentLimit`). */
  latest: CommentLine[]
  total: number
  /** Of those, not resolved. */
  open: number
}

export interface StatusSnapshot {
  server: { url: string; reachable: boolean; error?: string }
  /** null while the server is unreachable. */
  tunnel: TunnelSnapshot | null
  /** Most recently updated first, as the API lists them. */
  folios: FolioRow[]
  /** Why the list is missing although the server answered (e.g. a key is needed). */
  foliosError?: string
  /** The server answered 401: no key was sent (needed), or the one sent is not its key (refused). */
  key?: 'needed' | 'refused'
  /** Comments of the selected folio; null when there is no folio. */
  comments: CommentsSnapshot | null
  fetchedAt: string
}

/** Comments of each folio the live view keeps (its panel scrolls through them). */
export const LIVE_COMMENTS = 20

/** Only `call` is needed: tests pass a fake. */
export type StatusClient = Pick<FolioClient, 'call'>

export interface LoadOptions {
  /** The server URL as shown to people (the CLI context's). */
  server: string
  /** The folio whose comments to fetch; the first folio when absent or gone. */
  selectedId?: string
  /**
   * 'selected' (the live view, which shows one folio's comments at a time) or 'every': each row
   * gets its own comments (the one-off snapshot of folio status without a terminal).
   */
  commentsFor?: 'selected' | 'every'
  /** How many comments to keep (default 3). */
  commentLimit?: number
  /** Whether the client sends a key: a 401 then means the key was refused, not missing. */
  keySent?: boolean
  /** Per request (default 5 s): a hung server must not freeze the view. */
  timeoutMs?: number
  now?: () => Date
}

/** One line for people out of any client error. */
export function describeError(error: unknown): string {
  if (error instanceof ApiClientError) return error.detail ? `${error.detail} (${error.error})` : `${error.error} (HTTP ${error.status})`
  if (error instanceof ServerUnreachableError) return error.reason
  return (error as Error)?.message ?? String(error)
}

const toRow = (f: FolioListItem): FolioRow => ({
  id: f.id,
  title: f.title,
  status: f.status,
  isPrivate: f.isPrivate,
  latestVersionId: f.latestVersionId,
  updatedAt: f.updatedAt,
  analytics: f.analytics,
  reactions: f.reactions,
})

function tunnelFrom(result: PromiseSettledResult<TunnelStatus>, keySent: boolean): TunnelSnapshot {
  if (result.status === 'fulfilled') return { available: true, ...result.value }
  const error = result.reason
  if (error instanceof ApiClientError && error.status === 403) return { available: false, reason: 'cloud', message: 'no tunnel in Cloud mode' }
  if (error instanceof ApiClientError && error.status === 401) {
    return {
      available: false,
      reason: 'unauthorized',
      message: keySent ? 'the tunnel: the server refused the API key' : 'the tunnel needs the API key (--key or FOLIO_API_KEY)',
    }
  }
  return { available: false, reason: 'error', message: describeError(error) }
}

/**
 * The list carries every comment of every folio (the owner's view, so drafts and private folios
 * too): no request per folio. Comments a viewer deleted stay out, as viewers no longer see them.
 */
function commentsOf(item: FolioListItem, limit: number): CommentsSnapshot {
  const visible = item.comments.filter((c) => c.deletedAt === undefined)
  const latest = visible
    .slice(-limit)
    .reverse()
    .map((c) => ({ id: c.id, author: c.author, text: c.text, createdAt: c.createdAt, resolved: c.resolved, ...(c.parentId ? { parentId: c.parentId } : {}) }))
  return { folioId: item.id, state: 'ok', latest, total: visible.length, open: visible.filter((c) => !c.resolved).length }
}

/** Fetches the folio list, the tunnel and the selected folio's comments (or every folio's). Never throws for HTTP trouble. */
export async function loadSnapshot(client: StatusClient, options: LoadOptions): Promise<StatusSnapshot> {
  const timeoutMs = options.timeoutMs ?? 5000
  const fetchedAt = (options.now?.() ?? new Date()).toISOString()
  const [folios, tunnel] = await Promise.allSettled([client.call(listFolios, {}, timeoutMs), client.call(getTunnel, {}, timeoutMs)])
  const unreachable = [folios, tunnel].find((r) => r.status === 'rejected' && r.reason instanceof ServerUnreachableError) as PromiseRejectedResult | undefined
  if (unreachable) {
    return { server: { url: options.server, reachable: false, error: describeError(unreachable.reason) }, tunnel: null, folios: [], comments: null, fetchedAt }
  }
  const items = folios.status === 'fulfilled' ? folios.value : []
  const rows = items.map(toRow)
  const limit = options.commentLimit ?? 3
  const selected = items.find((f) => f.id === options.selectedId) ?? items[0]
  if (options.commentsFor === 'every') items.forEach((item, i) => (rows[i]!.comments = commentsOf(item, limit)))
  const comments = selected ? commentsOf(selected, limit) : null
  const snapshot: StatusSnapshot = {
    server: { url: options.server, reachable: true },
    tunnel: tunnelFrom(tunnel, Boolean(options.keySent)),
    folios: rows,
    comments,
    fetchedAt,
  }
  if (folios.status === 'rejected') {
    const error = folios.reason
    if (error instanceof ApiClientError && error.status === 401) {
      snapshot.key = options.keySent ? 'refused' : 'needed'
      snapshot.foliosError = options.keySent
        ? 'the server refused the API key: it is not this server’s key (rotated or revoked?); pass the right one with --key or FOLIO_API_KEY, or run folio login'
        : 'the folio list needs the API key: pass --key or FOLIO_API_KEY, or run folio login'
    } else snapshot.foliosError = describeError(error)
  }
  return snapshot
}

/** The share page of a folio; drafts open in the owner's preview. */
export function shareUrlFor(server: string, folio: Pick<FolioRow, 'id' | 'status'>): string {
  const url = `${server.replace(/\/+$/, '')}/share/${encodeURIComponent(folio.id)}`
  return folio.status === 'draft' ? `${url}?preview=1` : url
}

/** The comments to show for `folio`: its own (every folio's were loaded), else the snapshot's selected ones if they are its. */
export function commentsFor(snapshot: StatusSnapshot, folio: Pick<FolioRow, 'id' | 'comments'>): CommentsSnapshot | null {
  return folio.comments ?? (snapshot.comments?.folioId === folio.id ? snapshot.comments : null)
}
