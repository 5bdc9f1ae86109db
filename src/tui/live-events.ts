import { folioEvents } from '../api/sharing.js'
import { type FolioClient, readEventStream } from '../client/index.js'

/**
 * The live part of folio status: one event stream (GET /api/files/{id}/events, what share pages
 * read) per watched folio, reopened when it drops. Events only say that something changed; the
 * view then reloads its snapshot, so what it shows has one source.
 *
 * A client may hold 16 streams on a server, shared with the share pages its browser has open:
 * the view watches a few folios (the selected one and the most recently updated), and its slower
 * poll covers the others and what has no event (the time of a view in progress). A view starting
 * or ending is one (`view`, sent to the owner only).
 * The stream is the share page's, so it admits what a viewer may see: a draft or a private folio
 * only with the API key (not the open local access); one it refuses is not asked again.
 */

export type EventClient = Pick<FolioClient, 'request'>

/** Names of the events that mean "reload": everything but keep-alives. */
export type ChangeListener = (folioId: string, event: string) => void

export interface FolioWatch {
  /** Watch exactly these folios: streams of the others close, new ones open. */
  watch(ids: string[]): void
  /** Ids with an open stream (for tests and the status line). */
  connected(): string[]
  close(): void
}

export interface WatchOptions {
  /** Waits between attempts after a failure; the last one repeats. */
  retryMs?: number[]
  /** No byte for this long (the server sends a keep-alive every 25 s): the stream is reopened. */
  silenceMs?: number
}

const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000]
const SILENCE_MS = 60_000

export function watchFolioEvents(client: EventClient, onChange: ChangeListener, options: WatchOptions = {}): FolioWatch {
  const retry = options.retryMs ?? RETRY_MS
  const silence = options.silenceMs ?? SILENCE_MS
  const streams = new Map<string, { stop: AbortController; open: boolean }>()

  const follow = async (id: string, entry: { stop: AbortController; open: boolean }) => {
    let failures = 0
    while (!entry.stop.signal.aborted) {
      const connection = new AbortController()
      const abort = () => connection.abort()
      entry.stop.signal.addEventListener('abort', abort, { once: true })
      const timer = setTimeout(abort, silence)
      try {
        const response = await client.request(folioEvents, { params: { id }, signal: connection.signal, headers: { accept: 'text/event-stream' } })
        if (response.ok && response.body) {
          entry.open = true
          failures = 0
          // What changed while the stream was closed: the view reloads once it is open again.
          onChange(id, 'connected')
          for await (const message of readEventStream(response.body)) {
            timer.refresh()
            if (message.type === 'event') onChange(id, message.event)
          }
        } else {
          await response.body?.cancel()
          // Not this viewer's to watch (a draft or a private folio without the key) or gone: the
          // poll covers it; asking again every few seconds would only fill the server's log.
          if (response.status === 401 || response.status === 403 || response.status === 404) return
        }
      } catch {
        // Cut, silent or refused: tried again below, unless the watch ended.
      } finally {
        entry.open = false
        clearTimeout(timer)
        entry.stop.signal.removeEventListener('abort', abort)
      }
      if (entry.stop.signal.aborted) return
      const wait = retry[Math.min(failures++, retry.length - 1)]!
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, wait)
        entry.stop.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
      })
    }
  }

  return {
    watch(ids) {
      const wanted = new Set(ids)
      for (const [id, entry] of streams) {
        if (wanted.has(id)) continue
        entry.stop.abort()
        streams.delete(id)
      }
      for (const id of wanted) {
        if (streams.has(id)) continue
        const entry = { stop: new AbortController(), open: false }
        streams.set(id, entry)
        void follow(id, entry)
      }
    },
    connected: () => [...streams].filter(([, e]) => e.open).map(([id]) => id),
    close() {
      for (const entry of streams.values()) entry.stop.abort()
      streams.clear()
    },
  }
}
