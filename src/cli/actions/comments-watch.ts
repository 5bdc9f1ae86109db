import { setTimeout as sleep } from 'node:timers/promises'
import { folioEvents } from '../../api/sharing.js'
import { ApiClientError, readEventStream, ServerUnreachableError } from '../../client/index.js'
import { isOpen } from '../../domain/comment-threads.js'
import { arrivalLine, listText, readComments, threads } from '../comment-lines.js'
import type { CliContext } from '../context.js'
import { CliError } from '../errors.js'

/** Headers must come within this long, or the connection is tried again. */
const CONNECT_TIMEOUT_MS = 15_000
/** The server writes a keep-alive line every 25 s: this long without a byte means the stream died quietly. */
const SILENCE_MS = 60_000
/** Waits between reconnection attempts; the last one repeats. */
const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000]

/** The stream ended for a reason worth a new attempt (the server restarted, a proxy hung up). */
class StreamLost extends Error {}

/**
 * folio comments <id> --watch: the list, then each new comment as it arrives, until Ctrl+C (exit 0).
 * The share page's live stream (GET /api/files/{id}/events) says when comments changed; the
 * owner's list (every version, replies, deleted ones) says which are new, so nothing made while
 * the stream was down is missed: each (re)connection catches up first.
 */
export async function watchComments(ctx: CliContext, id: string, options: { all: boolean }): Promise<void> {
  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  const seen = new Set<string>()
  let first = true
  let failures = 0
  let connectedOnce = false

  /** Prints what is new since the last look (the first look: the list itself). */
  const catchUp = async () => {
    const folio = await readComments(ctx.client, id)
    const fresh = folio.comments.filter((c) => !seen.has(c.id)).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1))
    for (const c of fresh) seen.add(c.id)
    if (first) {
      first = false
      const list = threads(folio.comments, options.all ? 'all' : 'open')
      ctx.print(
        { event: 'watching', id, comments: list.reduce((n, t) => n + 1 + t.replies.length, 0) },
        () => `${listText(folio, list, options.all)}\nWatching “${folio.title}” for new comments. Ctrl+C to stop.`,
      )
      return
    }
    const byId = new Map(folio.comments.map((c) => [c.id, c]))
    for (const c of fresh) if (options.all || isOpen(c)) ctx.print({ event: 'comment', comment: c }, () => arrivalLine(c, byId))
  }

  try {
    while (!stop.signal.aborted) {
      try {
        await follow(ctx, id, stop.signal, catchUp, () => {
          failures = 0
          connectedOnce = true
        })
        throw new StreamLost('the server closed the stream')
      } catch (error) {
        if (stop.signal.aborted) break
        // A server that is not there at the start is a mistake to report, not to wait out.
        if (!connectedOnce || !isPassing(error)) throw error
        const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!
        if (failures === 0) ctx.warn(`Lost the live stream from ${ctx.server} (${reason(error)}); reconnecting…`)
        failures++
        await sleep(wait, undefined, { signal: stop.signal }).catch(() => {})
      }
    }
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
  ctx.note('Stopped watching.')
}

/** One connection: open the stream, catch up, then catch up on every `comments` event until it ends. */
async function follow(ctx: CliContext, id: string, stop: AbortSignal, catchUp: () => Promise<void>, connected: () => void): Promise<void> {
  const connection = new AbortController()
  const abort = () => connection.abort()
  stop.addEventListener('abort', abort, { once: true })
  let timer = setTimeout(abort, CONNECT_TIMEOUT_MS)
  try {
    const response = await ctx.client
      .request(folioEvents, { params: { id }, signal: connection.signal, headers: { accept: 'text/event-stream' } })
      .catch((error: unknown) => {
        throw connection.signal.aborted && !stop.aborted ? new ServerUnreachableError(ctx.server, `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`) : error
      })
    if (!response.ok || !response.body) throw await errorOf(response)
    connected()
    // Caught up only once the stream is open: a comment made in between comes as an event.
    await catchUp()
    clearTimeout(timer)
    timer = setTimeout(abort, SILENCE_MS)
    for await (const message of readEventStream(response.body)) {
      timer.refresh()
      if (message.type !== 'event') continue
      if (message.event === 'comments') await catchUp()
      else if (message.event === 'deleted' || (message.event === 'revoked' && /"deleted"/.test(message.data))) {
        throw new CliError(`Folio ${id} was deleted while you watched its comments.`)
      } else if (message.event === 'revoked') {
        throw new StreamLost('the server ended the stream')
      }
    }
  } finally {
    clearTimeout(timer)
    stop.removeEventListener('abort', abort)
  }
}

async function errorOf(response: Response): Promise<ApiClientError> {
  const body = (await response.json().catch(() => ({}))) as { error?: string; message?: string }
  return new ApiClientError(response.status, body.error ?? `HTTP ${response.status}`, body.message, response.headers)
}

/** What a new attempt may cure: the server away or restarting, a stream cut or gone silent, a busy server. */
function isPassing(error: unknown): boolean {
  if (error instanceof StreamLost || error instanceof ServerUnreachableError) return true
  if (error instanceof ApiClientError) return error.status === 429 || error.status >= 500
  // fetch and the body reader report a cut connection or our own silence timer as these.
  const name = (error as Error)?.name
  return name === 'AbortError' || name === 'TypeError' || (error as NodeJS.ErrnoException)?.code === 'ECONNRESET'
}

function reason(error: unknown): string {
  if (error instanceof ServerUnreachableError) return error.reason
  if (error instanceof StreamLost || error instanceof ApiClientError) return error.message
  return (error as Error)?.name === 'AbortError' ? 'no word from it for a while' : ((error as Error)?.message ?? String(error))
}
