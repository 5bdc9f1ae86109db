/*
 * The owner's nudges: each watched folio's event stream (GET /api/files/{id}/events, which sends
 * the owner a `view` event as a view starts and ends) turns into a toast and a fresh list within
 * a second, instead of at the next 10 s poll. Read with fetch, not EventSource: from another
 * machine the stream needs the key in a header.
 *
 * Two at most: the folios most recently updated (or the one of its page). A browser opens six
 * connections to a server over HTTP/1.1 and an open stream holds one for good: with more, the
 * page's own requests (a resolve, a publish) would wait behind them. The 10 s poll covers the rest.
 */

import { storedKey } from './dash-api.js'
import { toast } from './dash-dom.js'

const WATCHED = 2
const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 30_000]
const streams = new Map() // folio id → AbortController

async function follow(id, stop, onView) {
  for (let failures = 0; !stop.signal.aborted; ) {
    try {
      const key = storedKey()
      const res = await fetch(`/api/files/${encodeURIComponent(id)}/events`, {
        headers: { accept: 'text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        credentials: 'same-origin',
        signal: stop.signal,
      })
      // Refused (a draft the stream does not admit, a key gone): the 10 s poll still covers it.
      if (res.status === 401 || res.status === 403 || res.status === 404) return
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`)
      failures = 0
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
      let buffer = ''
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buffer += value
        let end
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const message = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const name = /^event: ?(.*)$/m.exec(message)?.[1]
          const data = /^data: ?(.*)$/m.exec(message)?.[1]
          if (name === 'view' && data) {
            try {
              onView(id, JSON.parse(data))
            } catch {
              // not ours to fail on
            }
          }
        }
      }
    } catch {
      if (stop.signal.aborted) return
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]))
  }
}

/** Follows exactly these folios' streams (the first WATCHED of them); `onView(id, view)` for each view event. */
export function watchViews(folios, onView) {
  const wanted = new Set(folios.slice(0, WATCHED).map((f) => f.id))
  for (const [id, stop] of streams) {
    if (!wanted.has(id)) {
      stop.abort()
      streams.delete(id)
    }
  }
  for (const id of wanted) {
    if (streams.has(id)) continue
    const stop = new AbortController()
    streams.set(id, stop)
    void follow(id, stop, onView)
  }
}

/** A view's nudge: the sentence, with the folio's title. */
export function nudge(folio, view) {
  toast(`${view.text} — “${folio?.title || 'a folio'}”`)
}
