import { folioEvents } from '../../api/sharing.js'
import { type FolioClient, readEventStream } from '../../client/index.js'

/** While the live stream is refused (a draft or private folio without the API key), the latest version is asked for this often. */
const POLL_MS = 1000
/** The server writes a keep-alive every 25 s: this long without a byte, the stream is opened again. */
const SILENCE_MS = 60_000
const RETRY_MS = [1_000, 2_000, 5_000, 10_000]

/**
 * Tells the watcher, within about a second, that a version may have been made elsewhere (folio
 * restore, the dashboard, another machine), instead of at the next save: the folio's live event
 * stream (GET /api/files/{id}/events, the share page's) says `version`, and every (re)connection
 * may have missed one. The stream admits a draft or a private folio only with the API key (the
 * open local access is not enough: it is the viewers' endpoint); refused, it falls back to asking
 * for the latest version every second (one small request), which is what `changed` does anyway.
 * `changed` only says "look": the watcher compares the latest version with the one it knows.
 */
export function followVersions(client: Pick<FolioClient, 'request'>, id: string, changed: () => void): { close(): void } {
  const stop = new AbortController()
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      stop.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
    })

  const poll = async () => {
    while (!stop.signal.aborted) {
      await wait(POLL_MS)
      if (!stop.signal.aborted) changed()
    }
  }

  const follow = async () => {
    let failures = 0
    while (!stop.signal.aborted) {
      const connection = new AbortController()
      const abort = () => connection.abort()
      stop.signal.addEventListener('abort', abort, { once: true })
      const timer = setTimeout(abort, SILENCE_MS)
      try {
        const response = await client.request(folioEvents, { params: { id }, signal: connection.signal, headers: { accept: 'text/event-stream' } })
        if (response.ok && response.body) {
          failures = 0
          changed() // a version made while the stream was closed
          for await (const message of readEventStream(response.body)) {
            timer.refresh()
            if (message.type === 'event' && (message.event === 'version' || message.event === 'revoked')) changed()
          }
        } else {
          await response.body?.cancel()
          if ([401, 403, 404].includes(response.status)) return void (await poll())
        }
      } catch {
        // Cut, silent, or the server away (the watcher's own probe handles that): tried again.
      } finally {
        clearTimeout(timer)
        stop.signal.removeEventListener('abort', abort)
      }
      await wait(RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]!)
    }
  }

  void follow()
  return { close: () => stop.abort() }
}
