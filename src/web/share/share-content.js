/*
 * The content view: the folio in its sandboxed frame, the bar above it and the comments panel
 * beside it. Its parts (comments, the comment form, reactions, presentation, live updates,
 * analytics) live in modules of their own and share one `view`: the boot data, the state, the
 * elements (`ui`) and each other's functions, looked up when called, so the order the parts
 * are created in does not matter.
 */

import { createAccess, takePlace } from './share-access.js'
import { startAnalytics } from './share-analytics.js'
import { createCommentHistory } from './share-comment-sets.js'
import { createComments } from './share-comments.js'
import { createComposer } from './share-composer.js'
import { createFrameAccess } from './share-frame.js'
import { createFrameStorage } from './frame-storage.js'
import { startLive } from './share-live.js'
import { createModeration } from './share-moderation.js'
import { createPresentation } from './share-presentation.js'
import { createReactions } from './share-reactions.js'
import { createThreads } from './share-thread.js'
import { h } from '../common/ui.js'

const encodePath = (path) => path.split('/').map(encodeURIComponent).join('/')

export function renderContent(app, boot) {
  // The same folio loaded again (republished, unlocked with a new key): back where the viewer was.
  const files = boot.activeFileList || []
  const entry = boot.entry || 'index.html'
  const place = takePlace(boot)
  const startFile = place && files.includes(place.file) ? place.file : entry
  const state = {
    title: boot.title || 'Untitled folio',
    allowComments: boot.allowComments !== false,
    presentationOnly: Boolean(boot.presentationModeOnly),
    isPrivate: boot.isPrivate, // may be absent from boot: then the first meta event sets it
    latestVersionId: boot.latestVersionId,
    files,
    entry,
    currentFile: startFile,
    comments: Array.isArray(boot.comments) ? boot.comments : [], // on the page (the server's list)
    allComments: null, // every comment this viewer may see, once fetched (share-comment-sets.js)
    showHistory: false,
    reactions: { ...(boot.reactions || {}) },
    commenting: false,
    pendingFocus: null, // comment id to focus once another file has loaded
    draft: null, // the click being commented on
    where: null, // {file, hash, slide, scroll} as the bridge last said
    pinSlides: {}, // comment id → the slide its element is on now (the file on screen)
    restore: place?.scroll ?? null, // scroll to give the next page that says ready
    presenting: false,
    closed: false,
    withdrawn: false,
  }

  document.body.className = 'content-page'
  const ui = {}
  // A fresh frame token refused (access withdrawn): share-access.js asks what happened.
  const frameAccess = createFrameAccess(boot, { onRevoked: () => view.access.check() })
  const frameStorage = createFrameStorage(boot)
  const view = { app, boot, state, ui, toBridge, toast, loadFrame, askWhere, frameAccess, stop }
  view.moderation = createModeration(view)
  view.history = createCommentHistory(view)
  view.threads = createThreads(view)
  view.reactions = createReactions(view)
  view.comments = createComments(view)
  view.composer = createComposer(view)
  view.presentation = createPresentation(view)
  view.access = createAccess(view)

  /* -- the bar and the stage: the server rendered them, with the frame already loading -- */
  const rendered = adoptRendered(app)
  ui.title = rendered?.title ?? h('h1', { class: 'bar-title', title: state.title }, state.title)
  const badge = boot.preview && h('span', { class: 'badge' }, boot.draft ? 'Preview · draft' : boot.isPrivate ? 'Preview · private' : 'Preview')
  ui.header =
    rendered?.header ??
    h(
      'header',
      { class: 'bar' },
      h('div', { class: 'bar-start' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, 'f'), ui.title, badge),
      h('div', { class: 'bar-end' }),
    )
  ui.header.querySelector('.bar-end').append(ui.reactions, ui.commentToggle, ui.countButton)

  /* -- stage: the frame and everything floating over it (kept inside so fullscreen shows it) -- */
  const startSrc = boot.frameBase + encodePath(state.currentFile) + (place && state.currentFile === place.file ? hashOf(place.hash) : '')
  ui.frame =
    rendered?.frame ??
    h('iframe', {
      class: 'frame',
      title: state.title,
      allow: 'fullscreen',
      // NEVER allow-same-origin: with allow-scripts it would let the folio escape the sandbox.
      sandbox: 'allow-scripts allow-popups allow-forms allow-modals allow-downloads',
    })
  // The server's starter script started the frame, unless the viewer comes back to a place.
  if (!ui.frame.getAttribute('src')) {
    frameStorage.handTo(ui.frame)
    ui.frame.src = startSrc
  }
  ui.toasts = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' })
  ui.stage = rendered?.stage ?? h('main', { class: 'stage', id: 'stage' }, ui.frame)
  // Appended around the frame, never moving it: a moved iframe loads its page again.
  ui.stage.append(ui.marker, ui.popover.form, ui.launch, ui.exit, ui.toasts)
  if (rendered) rendered.body.append(ui.panel)
  else app.replaceChildren(ui.header, h('div', { class: 'body' }, ui.stage, ui.panel))

  /* ---------- bridge messages ---------- */

  function toBridge(message) {
    // "*" because the frame's origin is opaque by design; nothing we send is secret.
    ui.frame.contentWindow?.postMessage({ source: 'folio-viewer', ...message }, '*')
  }

  // From bridge.js: ready {file, width, height} · resize {width, height}
  // · click {x, y, selector, elementHtml, file, anchor, clientX, clientY} · mode-exit · pin-click {id}
  // · where {file, hash, slide, part, scroll} (also the answer to where?) · pin-slides {slides: {id: slide}} · key {key: 'Escape'}
  // · navigate {id, hash}
  // From the server's page for a frame token that ran out: expired {path}
  window.addEventListener('message', (event) => {
    if (state.closed || event.source !== ui.frame.contentWindow) return
    const data = event.data
    if (data?.source === 'folio-frame') return frameStorage.take(data)
    if (data?.source !== 'folio-bridge') return
    switch (data.type) {
      case 'ready':
        // Said on the page too: comment mode reaches the folio from now on (tests wait for it).
        ui.stage.dataset.bridge = 'ready'
        if (typeof data.file === 'string') state.currentFile = data.file
        toBridge({ type: 'base', base: frameAccess.base }) // the page may have been loaded under an older one
        if (state.commenting) toBridge({ type: 'mode', commenting: true }) // a new page forgot it
        if (state.restore) toBridge({ type: 'restore', scroll: state.restore })
        state.restore = null
        state.pinSlides = {}
        view.comments.framesChanged()
        if (state.pendingFocus) {
          toBridge({ type: 'focus', id: state.pendingFocus })
          state.pendingFocus = null
        }
        if (!state.linkedOpened) {
          state.linkedOpened = true // once: later pages of the folio keep the viewer's own place
          void view.comments.openLinked()
        }
        break
      case 'painted':
        startTheRest()
        break
      case 'where':
        if (typeof data.file !== 'string') break
        {
          const slideChanged = data.slide !== state.where?.slide
          state.where = { file: data.file, hash: typeof data.hash === 'string' ? data.hash : '', slide: data.slide, scroll: data.scroll }
          state.part = data.part
          analytics.where?.(data.part)
          if (slideChanged) view.comments.render() // the list marks the slide on screen
          for (const answered of whereAsked.splice(0)) answered()
        }
        break
      case 'pin-slides':
        if (data.slides && typeof data.slides === 'object') {
          state.pinSlides = data.slides
          view.comments.render()
        }
        break
      case 'click':
        if (state.commenting && state.allowComments) view.composer.open(data)
        break
      case 'mode-exit':
        view.comments.setCommenting(false, { fromBridge: true })
        break
      case 'key':
        if (data.key === 'Escape') onEscape()
        break
      case 'pin-click':
        view.comments.setPanel(true, { focusList: false })
        view.comments.highlightListItem(data.id)
        break
      case 'navigate':
        // The pin is on a slide this deck shows only when loaded at that hash.
        if (typeof data.hash === 'string' && typeof data.id === 'string') {
          state.pendingFocus = data.id
          loadFrame(state.currentFile, null, { hash: data.hash })
        }
        break
      case 'expired':
        if (typeof data.path === 'string') reloadExpired(data.path)
        break
    }
  })

  frameAccess.onChange((base) => toBridge({ type: 'base', base }))
  // The frame may have been ready before this script ran: it says so again when asked.
  toBridge({ type: 'hello' })

  // The bridge says where the viewer is at most every 200 ms: before a new version replaces the
  // page, ask it now (a page without the bridge, an image, does not answer: then what we have).
  const whereAsked = []
  function askWhere() {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const i = whereAsked.indexOf(answered)
        if (i !== -1) whereAsked.splice(i, 1)
        resolve()
      }, 150)
      const answered = () => {
        clearTimeout(timer)
        resolve()
      }
      whereAsked.push(answered)
      toBridge({ type: 'where?' })
    })
  }

  // The frame went to a page with a token that ran out (a script navigated, a form was sent):
  // the same page again under a fresh one. Never in a loop: a third time within a minute stops.
  const expiries = []
  function reloadExpired(path) {
    const now = Date.now()
    while (expiries.length && now - expiries[0] > 60_000) expiries.shift()
    if (expiries.push(now) > 2) {
      toast('This folio could not be reloaded: reload the page.')
      return
    }
    const at = path.indexOf('?')
    const file = at === -1 ? path : path.slice(0, at)
    const query = at === -1 ? '' : path.slice(at)
    frameAccess.renew().then(
      (base) => {
        state.currentFile = file
        ui.frame.src = base + encodePath(file) + query
      },
      () => {},
    )
  }

  /* ---------- frame ---------- */

  /** Loads a file of the folio; version: a new version's id; hash and scroll: where to show it. */
  function loadFrame(file, version, { hash = '', scroll = null } = {}) {
    state.currentFile = file
    state.restore = scroll
    if (version) frameAccess.atVersion(version)
    ui.stage.dataset.bridge = 'loading'
    frameAccess.urlOf(file).then((url) => {
      if (state.currentFile === file && !state.closed) ui.frame.src = url + hashOf(hash)
    })
  }

  /** Everything that keeps the view live stops: the content is going away (share-access.js). */
  function stop() {
    state.closed = true
    live.stop()
    analytics.stop()
    frameAccess.stop()
    view.history.stop()
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {})
  }

  /* ---------- toasts ---------- */

  function toast(message) {
    const t = h('div', { class: 'toast' }, message)
    ui.toasts.append(t)
    setTimeout(() => t.classList.add('out'), 2800)
    setTimeout(() => t.remove(), 3200)
  }

  /* ---------- keyboard (focus in the frame goes to bridge.js instead) ---------- */

  function onEscape() {
    if (!ui.popover.form.hidden) view.composer.close({ refocus: true })
    else if (!ui.panel.hidden) view.comments.setPanel(false)
    else if (state.commenting) view.comments.setCommenting(false)
    else if (document.body.classList.contains('maximised')) view.presentation.end()
  }

  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !state.closed) onEscape()
  })

  /* ---------- analytics, live updates and the full comment list: once the folio is shown ---------- */

  // None of them is needed to show the folio: on a slow link the folio's own requests go first.
  // Started when the frame's bridge says the page has been drawn, a moment after the frame loaded
  // (a page without the bridge: an image), or after a while whatever happened.
  let analytics = { stop() {} }
  const versionNumber = (id) => (typeof id === 'string' && /^v\d+$/.test(id) ? Number(id.slice(1)) : undefined)
  view.versionNumber = versionNumber
  let live = { stop() {}, revive() {} }
  view.live = live
  let restStarted = false
  function startTheRest() {
    if (restStarted || state.closed) return
    restStarted = true
    // The owner previewing is not an audience: don't let it inflate views.
    if (!boot.preview) {
      analytics = startAnalytics(`${boot.api}/analytics`, { folioId: boot.id, link: boot.link, version: versionNumber(state.latestVersionId) })
      analytics.where(state.part)
    }
    view.analytics = analytics
    live = startLive(view)
    view.live = live
    view.history.now()
  }
  ui.frame.addEventListener('load', () => setTimeout(startTheRest, 1000), { once: true })
  setTimeout(startTheRest, 4000)

  /* ---------- first paint ---------- */

  view.reactions.render()
  view.comments.render()
  view.comments.keepTimesFresh()
}

/** A frame hash from what the bridge reported ("#3", "#/intro"); anything else is none. */
function hashOf(hash) {
  return typeof hash === 'string' && hash.startsWith('#') && hash.length <= 200 ? hash : ''
}

/** The bar, stage and frame the server rendered into #app (share-page.ts), if it did. */
function adoptRendered(app) {
  const frame = app.querySelector('iframe#folio-frame')
  const stage = frame?.closest('.stage')
  const header = app.querySelector('header.bar')
  const body = stage?.parentElement
  if (!frame || !stage || !header || !body) return null
  for (const script of stage.querySelectorAll('script')) script.remove() // the frame's starter: run, done
  return { frame, stage, header, body, title: header.querySelector('.bar-title') }
}
