/*
 * Analytics beacons: one view when the page has been shown, then the time it was visible, every
 * 30 s and when the viewer leaves, with the time per slide or section (the bridge says which is
 * on screen), how far this view got, and on leaving a short summary for the author's nudge.
 * Hidden time does not count.
 *
 * What is kept about the viewer: "this browser saw this folio before", as a random id in this
 * browser's own storage (never sent). With Global Privacy Control or Do Not Track on, only the
 * view is sent, nothing else (the server drops the rest of such a beacon too).
 */

import { postJson } from '../common/post-json.js'

const BEACON_EVERY_MS = 30_000

const doNotTrack = () => navigator.globalPrivacyControl === true || navigator.doNotTrack === '1' || window.doNotTrack === '1'

/** Whether this browser has seen folio `id` before; marks it seen. Storage may be off: then it is new. */
function seenBefore(id) {
  try {
    const key = `folio-seen:${id}`
    const before = localStorage.getItem(key) !== null
    if (!before) localStorage.setItem(key, crypto.randomUUID?.() ?? String(Math.random()).slice(2))
    return before
  } catch {
    return false
  }
}

/**
 * Starts reporting to `url` (the folio's analytics endpoint). `link`: the recipient link the page
 * was opened with; `version`: the version number on screen. Returns where(part) for the bridge's
 * part messages, version(n) for a new version, and stop().
 */
export function startAnalytics(url, { folioId, link, version } = {}) {
  const quiet = doNotTrack()
  let visibleMs = 0 // visible time not yet reported
  let since = document.visibilityState === 'visible' ? performance.now() : null
  let timer = null
  let stopped = false
  let versionNumber = version

  // This view's parts: what is on screen, time not yet reported, and what it has seen.
  let part = null // { kind, index, count, title }
  const unsent = new Map() // index → ms
  const entered = new Set() // indices first seen since the last beacon
  const seen = new Set()
  const titles = new Map() // index → title, sent with the first beacon that reports the part
  const msOn = new Map() // index → ms, the whole view (for the summary's longest part)
  let furthest = 0
  let reportedFurthest = 0
  let completedSent = false
  let viewSeconds = 0

  const common = () => ({ ...(link ? { link } : {}), ...(versionNumber ? { version: versionNumber } : {}) })
  postJson(url, {
    isInitial: true,
    device: innerWidth < 768 ? 'mobile' : 'desktop',
    ...(quiet ? {} : { returning: seenBefore(folioId ?? url) }),
    ...(link ? { link } : {}),
    ...(quiet || !versionNumber ? {} : { version: versionNumber }),
  }).catch(() => {})

  /** Moves the visible time since the last call onto the part on screen. */
  const settle = () => {
    if (since === null) return
    const now = performance.now()
    const ms = now - since
    since = now
    visibleMs += ms
    if (part) {
      unsent.set(part.index, (unsent.get(part.index) ?? 0) + ms)
      msOn.set(part.index, (msOn.get(part.index) ?? 0) + ms)
    }
  }

  /** The beacon's body for what has not been reported; null when there is nothing. */
  const take = (extra = {}) => {
    settle()
    if (quiet) return null // the view was all that is sent
    const seconds = Math.round(visibleMs / 1000)
    visibleMs -= seconds * 1000 // the rest waits for the next beacon
    viewSeconds += seconds
    const body = { ...common(), ...extra }
    if (seconds > 0) body.sessionSeconds = seconds
    if (part) {
      const parts = []
      for (const index of new Set([...unsent.keys(), ...entered])) {
        const s = Math.round((unsent.get(index) ?? 0) / 100) / 10
        const first = entered.has(index)
        if (s > 0 || first) parts.push({ n: index, s, ...(first ? { v: true, ...(titles.has(index) ? { t: titles.get(index) } : {}) } : {}) })
      }
      unsent.clear()
      entered.clear()
      if (parts.length) Object.assign(body, { kind: part.kind, total: part.count, parts })
      if (furthest !== reportedFurthest) {
        Object.assign(body, { kind: part.kind, total: part.count, furthest, ...(reportedFurthest ? { previousFurthest: reportedFurthest } : {}) })
        reportedFurthest = furthest
      }
      if (!completedSent && furthest >= part.count) {
        body.completed = true
        completedSent = true
      }
    }
    return Object.keys(body).some((k) => k !== 'link' && k !== 'version') ? body : null
  }
  const schedule = () => {
    clearTimeout(timer)
    if (since !== null && !stopped) timer = setTimeout(tick, Math.max(0, BEACON_EVERY_MS - visibleMs - (performance.now() - since)))
  }
  function tick() {
    const body = take()
    if (body) postJson(url, body).catch(() => {})
    schedule()
  }
  // Leaving: fetch may be cancelled with the page, sendBeacon is not. text/plain keeps it a
  // "simple" request (no preflight); the server parses the body as JSON anyway.
  function send(body) {
    if (body) navigator.sendBeacon(url, new Blob([JSON.stringify(body)], { type: 'text/plain' }))
  }
  function summary() {
    let longest
    let most = 0
    for (const [index, ms] of msOn) {
      if (ms > most) {
        most = ms
        longest = index
      }
    }
    return { seen: seen.size, ...(part ? { total: part.count } : {}), seconds: viewSeconds, ...(longest ? { longest } : {}) }
  }
  const onVisibility = () => {
    if (stopped) return
    if (document.visibilityState === 'hidden') {
      send(take())
      since = null // hidden time does not count
      clearTimeout(timer)
    } else {
      since = performance.now()
      schedule()
    }
  }
  let ended = false
  const onPageHide = () => {
    if (stopped || ended) return
    ended = true
    const body = take()
    if (!quiet) send({ ...common(), ...body, end: summary() })
  }
  document.addEventListener('visibilitychange', onVisibility)
  window.addEventListener('pagehide', onPageHide)
  schedule()
  return {
    /** The bridge says what is on screen: { kind, index, count, title } or undefined. */
    where(next) {
      if (stopped) return
      const valid = next && (next.kind === 'slides' || next.kind === 'sections') && Number.isInteger(next.index) && next.index >= 1
      settle()
      if (!valid) return
      part = { kind: next.kind, index: next.index, count: Math.max(next.count || 0, next.index), title: next.title }
      if (typeof next.title === 'string') titles.set(next.index, next.title)
      if (!seen.has(next.index)) {
        seen.add(next.index)
        entered.add(next.index)
      }
      furthest = Math.max(furthest, next.index)
    },
    version(n) {
      if (n === versionNumber) return
      const body = take()
      if (body) postJson(url, body).catch(() => {})
      versionNumber = n
    },
    stop() {
      stopped = true
      clearTimeout(timer)
      document.removeEventListener('visibilitychange', onVisibility)
      window.removeEventListener('pagehide', onPageHide)
    },
  }
}
