/*
 * Live updates over the folio's event stream: a new version reloads the frame where the viewer
 * was (file, hash, scroll; no page reload), comments and reactions replace what is shown,
 * metadata changes the bar. Each time the stream opens, GET /public tells what changed while it
 * was not open. Access going away (revoked, deleted, a stream that drops and is refused) is
 * share-access.js's.
 */

export function startLive(view) {
  const { boot, state, ui } = view
  let events = null
  let heard = new Set() // the kinds of event heard since the stream last opened

  function open() {
    events = new EventSource(`${boot.api}/events`)
    const on = (name, fn) =>
      events.addEventListener(name, (e) => {
        let data
        try {
          data = JSON.parse(e.data || '{}')
        } catch {
          return
        }
        heard.add(name)
        if (!state.closed) fn(data)
      })
    events.addEventListener('open', () => {
      heard = new Set()
      void catchUp(heard)
    })

    on('version', onVersion)
    on('comments', onComments)
    on('reactions', onReactions)
    on('meta', onMeta)

    on('revoked', ({ reason }) => {
      if (!boot.preview || reason === 'deleted') view.access.withdraw(typeof reason === 'string' ? reason : 'private')
    })

    on('deleted', () => view.access.withdraw('deleted'))

    // The server closed the stream, or a reconnect was refused (403/404): the folio may not be
    // this viewer's to see any more. Never leave its content on screen on a guess: ask.
    events.addEventListener('error', () => {
      if (!state.closed) view.access.check()
    })
  }

  /**
   * What changed while no stream was open (between the page being served and its stream opening,
   * or while it was down) was sent to nobody: GET /public tells it. Each event is the whole of its
   * kind as it is now, so one heard since the stream opened is at least as new as this answer.
   */
  async function catchUp(since) {
    let data
    try {
      const res = await fetch(`${boot.api}/public`, { credentials: 'same-origin', cache: 'no-store' })
      if (!res.ok) return // refused or gone: share-access.js hears of it from the stream
      data = await res.json()
    } catch {
      return // offline for a moment: the stream reopens, and asks again
    }
    if (state.closed || since !== heard || !data || typeof data !== 'object') return
    // Files and comments are given only to a viewer who may see the folio: if none, ask why.
    if (!Array.isArray(data.activeFileList) || data.activeFileList.length === 0) return view.access.check()
    if (!since.has('meta')) onMeta(data)
    if (!since.has('version')) await onVersion(data)
    if (state.closed || since !== heard) return
    if (!since.has('comments') && JSON.stringify(data.comments) !== JSON.stringify(state.comments)) onComments(data)
    if (!since.has('reactions') && JSON.stringify(data.reactions) !== JSON.stringify(state.reactions)) onReactions(data)
  }

  async function onVersion({ latestVersionId, activeFileList }) {
    if (!latestVersionId || latestVersionId === state.latestVersionId) return
    state.latestVersionId = latestVersionId
    view.analytics?.version?.(view.versionNumber?.(latestVersionId))
    if (Array.isArray(activeFileList)) state.files = activeFileList
    view.composer.close()
    await view.askWhere()
    if (state.closed || state.latestVersionId !== latestVersionId) return // gone, or a newer one came
    const stays = state.files.includes(state.currentFile)
    const where = stays && state.where?.file === state.currentFile ? state.where : {}
    // The pins stay until the `comments` event after this one says where the server found
    // their elements in the new version.
    view.loadFrame(stays ? state.currentFile : state.entry, latestVersionId, { hash: where.hash || '', scroll: where.scroll })
    view.comments.render()
    view.history.refresh()
    view.toast(`Updated to ${latestVersionId}`)
  }

  function onComments({ comments }) {
    if (!Array.isArray(comments)) return
    state.comments = comments
    // A comment that left this list was resolved, deleted or outdated: which, the next fetch
    // says; until then it stays what the page knew of it (never "No comments yet" meanwhile).
    view.history.learn(comments)
    view.comments.render()
    view.history.refresh()
  }

  function onReactions({ reactions }) {
    if (!reactions || typeof reactions !== 'object') return
    state.reactions = reactions
    view.reactions.render()
  }

  function onMeta(meta) {
    if (meta.status === 'draft' && !boot.preview) {
      view.access.withdraw('draft')
      return
    }
    if (typeof meta.isPrivate === 'boolean' && meta.isPrivate !== state.isPrivate) {
      state.isPrivate = meta.isPrivate
      view.access.check() // made private: is this viewer one who holds the key?
    }
    if (typeof meta.title === 'string' && meta.title !== state.title) {
      state.title = meta.title
      ui.title.textContent = meta.title
      ui.title.title = meta.title
      ui.frame.title = meta.title
      ui.launch.querySelector('.launch-title').textContent = meta.title
      document.title = meta.title
    }
    if (typeof meta.allowComments === 'boolean' && meta.allowComments !== state.allowComments) {
      state.allowComments = meta.allowComments
      if (!meta.allowComments) view.comments.setCommenting(false)
      view.comments.render()
    }
    if (typeof meta.presentationModeOnly === 'boolean') {
      state.presentationOnly = meta.presentationModeOnly
      if (!state.presenting) ui.launch.hidden = !state.presentationOnly
    }
  }

  open()
  return {
    /** Still allowed after a dropped stream: open it again if the browser gave up on it. */
    revive() {
      if (!state.closed && events.readyState === EventSource.CLOSED) open()
    },
    stop() {
      events.close()
    },
  }
}
