import type { ResponseOf } from '../api/contract.js'
import { listComments } from '../api/engagement.js'
import { getFolio, listFolios } from '../api/files.js'
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
  author: string
  text: string
  createdAt: string
  resolved: boolean
}

export interface CommentsSnapshot {
  folioId: string
  /** hidden: the folio is private (403); error: the comments could not be fetched. */
  state: 'ok' | 'hidden' | 'error'
  /** The latest comments, newest first (at most `commentLimit`). */
  latest: CommentLine[]
  total: number
  error?: string
}

export interface StatusSnapshot {
  server: { url: string; reachable: boolean; error?: string }
  /** null while the server is unreachable. */
  tunnel: TunnelSnapshot | null
  /** Most recently updated first, as the API lists them. */
  folios: FolioRow[]
  /** Why the list is missing although the server answered (e.g. a key is needed). */
  foliosError?: string
  /** Comments of the selected folio; null when there is no folio. */
  comments: CommentsSnapshot | null
  fetchedAt: string
}

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

function tunnelFrom(result: PromiseSettledResult<TunnelStatus>): TunnelSnapshot {
  if (result.status === 'fulfilled') return { available: true, ...result.value }
  const error = result.reason
  if (error instanceof ApiClientError && error.status === 403) return { available: false, reason: 'cloud', message: 'no tunnel in Cloud mode' }
  if (error instanceof ApiClientError && error.status === 401) return { available: false, reason: 'unauthorized', message: 'the tunnel needs the API key (--key or FOLIO_API_KEY)' }
  return { available: false, reason: 'error', message: describeError(error) }
}

type CommentItem = ResponseOf<typeof listComments>[number]

/**
 * The public comments endpoint answers 403 for folios a viewer may not see (private ones, and
 * drafts unless the caller proved the API key). The owner still reads them with the folio
 * itself (GET /api/files/{id}, no file contents); when that is refused too, they stay hidden.
 */
async function fetchComments(client: StatusClient, folioId: string, timeoutMs: number): Promise<CommentItem[] | 'hidden'> {
  try {
    return await client.call(listComments, { params: { id: folioId } }, timeoutMs)
  } catch (error) {
    if (!(error instanceof ApiClientError && error.status === 403)) throw error
  }
  try {
    // The owner's view also holds comments viewers deleted: the panel shows what viewers see.
    return (await client.call(getFolio, { params: { id: folioId }, query: { files: 'none' } }, timeoutMs)).comments.filter((c) => c.deletedAt === undefined)
  } catch (error) {
    if (error instanceof ApiClientError && (error.status === 401 || error.status === 403)) return 'hidden'
    throw error
  }
}

async function loadComments(client: StatusClient, folioId: string, limit: number, timeoutMs: number): Promise<CommentsSnapshot> {
  try {
    const all = await fetchComments(client, folioId, timeoutMs)
    if (all === 'hidden') return { folioId, state: 'hidden', latest: [], total: 0 }
    const latest = all
      .slice(-limit)
      .reverse()
      .map((c) => ({ author: c.author, text: c.text, createdAt: c.createdAt, resolved: c.resolved }))
    return { folioId, state: 'ok', latest, total: all.length }
  } catch (error) {
    return { folioId, state: 'error', latest: [], total: 0, error: describeError(error) }
  }
}

/** Comments of every folio: a few requests at a time, so a long list does not flood the server. */
const COMMENT_FETCHES_AT_ONCE = 6

async function eachWithConcurrency<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await work(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
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
  const rows = folios.status === 'fulfilled' ? folios.value.map(toRow) : []
  const selected = rows.find((f) => f.id === options.selectedId) ?? rows[0]
  const limit = options.commentLimit ?? 3
  if (options.commentsFor === 'every') {
    await eachWithConcurrency(rows, COMMENT_FETCHES_AT_ONCE, async (row) => {
      row.comments = await loadComments(client, row.id, limit, timeoutMs)
    })
  }
  const comments = selected ? (selected.comments ?? (await loadComments(client, selected.id, limit, timeoutMs))) : null
  const snapshot: StatusSnapshot = { server: { url: options.server, reachable: true }, tunnel: tunnelFrom(tunnel), folios: rows, comments, fetchedAt }
  if (folios.status === 'rejected') {
    const error = folios.reason
    snapshot.foliosError =
      error instanceof ApiClientError && error.status === 401 ? 'the folio list needs the API key: pass --key or FOLIO_API_KEY, or run folio login' : describeError(error)
  }
  return snapshot
}

/** The share page of a folio; drafts open in the owner's preview. */
export function shareUrlFor(server: string, folio: Pick<FolioRow, 'id' | 'status'>): string {
  const url = `${server.replace(/\/+$/, '')}/share/${encodeURIComponent(folio.id)}`
  return folio.status === 'draft' ? `${url}?preview=1` : url
}

