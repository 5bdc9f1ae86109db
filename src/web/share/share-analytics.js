/*
 * Analytics beacons: one view when the page opens, then the time it was visible, every 30 s and
 * when the viewer leaves. Hidden time does not count.
 */

import { postJson } from '../common/post-json.js'

const BEACON_EVERY_MS = 30_000

/** Starts reporting to `url` (the folio's analytics endpoint); stop() ends it. */
export function startAnalytics(url) {
  let visibleMs = 0 // visible time not yet reported
  let since = document.visibilityState === 'visible' ? performance.now() : null
  let timer = null
  let stopped = false

  postJson(url, { isInitial: true, device: innerWidth < 768 ? 'mobile' : 'desktop' }).catch(() => {})

  const pending = () => visibleMs + (since === null ? 0 : performance.now() - since)
  const take = () => {
    const seconds = Math.round(pending() / 1000)
    visibleMs = 0
    if (since !== null) since = performance.now()
    return seconds
  }
  const schedule = () => {
    clearTimeout(timer)
    if (since !== null && !stopped) timer = setTimeout(tick, Math.max(0, BEACON_EVERY_MS - pending()))
  }
  function tick() {
    const seconds = take()
    if (seconds > 0) postJson(url, { sessionSeconds: seconds }).catch(() => {})
    schedule()
  }
  // Leaving: fetch may be cancelled with the page, sendBeacon is not. text/plain keeps it a
  // "simple" request (no preflight); the server parses the body as JSON anyway.
  function flush() {
    const seconds = take()
    if (seconds > 0) {
      navigator.sendBeacon(url, new Blob([JSON.stringify({ sessionSeconds: seconds })], { type: 'text/plain' }))
    }
  }
  const onVisibility = () => {
    if (stopped) return
    if (document.visibilityState === 'hidden') {
      flush()
      since = null // hidden time does not count
      clearTimeout(timer)
    } else {
      since = performance.now()
      schedule()
    }
  }
  const onPageHide = () => {
    if (!stopped && since !== null) flush()
  }
  document.addEventListener('visibilitychange', onVisibility)
  window.addEventListener('pagehide', onPageHide)
  schedule()
  return {
    stop() {
      stopped = true
      clearTimeout(timer)
      document.removeEventListener('visibilitychange', onVisibility)
      window.removeEventListener('pagehide', onPageHide)
    },
  }
}
