/*
 * Whether this viewer may still see the folio. The server says so with a `revoked` event before
 * it closes the live stream (unpublished, made private, its key changed, deleted); a stream that
 * drops, or a frame token refused, says the same without words: then GET /public tells. Either
 * way the content leaves the screen at once and the page shows why. It then asks GET /public every
 * few seconds and comes back (a reload, at the same file, hash and scroll) once it is viewable.
 */

import { placeKey as placeKeyOf } from '../../domain/share-page-storage.ts'
import { renderDraft, renderGate, renderMissing } from './share-notices.js'

const FAST_POLL_MS = 3000
const SLOW_POLL_MS = 10_000
const FAST_FOR_MS = 2 * 60_000
/**
 * How long a page keeps asking about a folio that is not there. A draft is not there for anyone
 * but its owner (the same 404 as a deleted folio), and it may be published in a moment: a link
 * shared early, or a viewer whose folio went back to draft, then shows it without a reload.
 */
const GONE_WATCH_MS = 60 * 60_000
const PLACE_MAX_AGE_MS = 30 * 60_000

const placeKey = (boot) => placeKeyOf(boot.id)

/** Where the viewer was (file, hash, scroll), for the same page loaded again. */
export function rememberPlace(boot, place) {
  try {
    sessionStorage.setItem(placeKey(boot), JSON.stringify({ ...place, at: Date.now() }))
  } catch {
    // storage disabled: the folio opens at its start
  }
}

/** The place remembered for this folio (once), if recent. */
export function takePlace(boot) {
  try {
    const raw = sessionStorage.getItem(placeKey(boot))
    sessionStorage.removeItem(placeKey(boot))
    const place = raw ? JSON.parse(raw) : null
    return place && typeof place === 'object' && Date.now() - place.at < PLACE_MAX_AGE_MS ? place : null
  } catch {
    return null
  }
}

/** What GET /public says of this viewer: {gone} (deleted), or whether it may see the folio and why not. */
async function askPublic(boot) {
  const res = await fetch(`${boot.api}/public`, { credentials: 'same-origin', cache: 'no-store' })
  if (res.status === 404) return { gone: true }
  if (res.status === 401 || res.status === 403) return { viewable: false, reason: 'private' }
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  const data = await res.json()
  // The file list is given only to a viewer who may see the folio.
  const viewable = Array.isArray(data?.activeFileList) && data.activeFileList.length > 0
  return { viewable, reason: data?.status === 'draft' ? 'draft' : 'private' }
}

/**
 * Asks GET /public every few seconds (more slowly after a while): a reload once the folio may be
 * seen, onReason(reason) when why-not changes ('draft', 'private', 'deleted'). Not there
 * ('deleted': a deleted folio, or a draft that is not this viewer's) it stops after an hour.
 */
export function pollUntilViewable(boot, onReason) {
  const started = Date.now()
  let goneSince = null
  let timer = null
  const next = () => {
    timer = setTimeout(tick, Date.now() - started < FAST_FOR_MS ? FAST_POLL_MS : SLOW_POLL_MS)
  }
  async function tick() {
    try {
      const seen = await askPublic(boot)
      if (seen.gone) {
        goneSince ??= Date.now()
        onReason('deleted')
        if (Date.now() - goneSince >= GONE_WATCH_MS) return
      } else {
        goneSince = null
        if (seen.viewable) return location.reload()
        onReason(seen.reason)
      }
    } catch {
      // The server is away for a moment: ask again later.
    }
    next()
  }
  next()
  return { stop: () => clearTimeout(timer) }
}

/** A notice for a reason; the gate page's own unlock reloads the page. */
function showNotice(app, boot, reason) {
  if (reason === 'deleted') renderMissing(app)
  else if (reason === 'draft') renderDraft(app)
  else renderGate(app, boot)
}

export function createAccess(view) {
  const { app, boot, state } = view
  let shown = null // the reason on screen
  // biome-ignore lint/correctness/noUnusedVariables: read by the ??= below
  let polling = null
  let checking = null

  /** The content leaves the screen now; the notice says why. reason: draft, private, key-changed, deleted. */
  function withdraw(reason) {
    const why = reason === 'deleted' || reason === 'draft' ? reason : 'private'
    if (!state.withdrawn) {
      state.withdrawn = true
      const where = state.where?.file === state.currentFile ? state.where : null
      rememberPlace(boot, { file: state.currentFile, hash: where?.hash || '', scroll: where?.scroll })
      view.stop()
    }
    if (why === shown) return
    shown = why
    showNotice(app, { ...boot, title: state.title }, why)
    // Deleted too: to a viewer, a folio made a draft is gone the same way, and may come back.
    polling ??= pollUntilViewable(boot, (next) => withdraw(next))
  }

  /** After a dropped stream or a refused frame token: is the folio still there for this viewer? */
  function check() {
    if (state.withdrawn) return Promise.resolve()
    checking ??= (async () => {
      try {
        const seen = await askPublic(boot)
        if (seen.gone) withdraw('deleted')
        else if (!seen.viewable && !boot.preview) withdraw(seen.reason)
        else view.live.revive() // still ours: make sure updates keep coming
      } catch {
        // Offline for a moment: the stream retries by itself.
      } finally {
        checking = null
      }
    })()
    return checking
  }

  return { withdraw, check }
}
