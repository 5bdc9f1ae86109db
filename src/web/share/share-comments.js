/*
 * Comments on the folio: the pins drawn inside the frame (by bridge.js), the panel that lists
 * them (share-comment-list.js, each thread by share-thread.js), and comment mode (the toggle in
 * the bar; a click in the folio then opens the form). What shows where: share-comment-sets.js.
 */

import { svg } from '../common/icons.js'
import { pageGroups, renderList } from './share-comment-list.js'
import { commentSets } from './share-comment-sets.js'
import { ago, h } from '../common/ui.js'

export function createComments(view) {
  const { state, ui } = view

  ui.commentToggle = h(
    'button',
    {
      class: 'btn toggle',
      type: 'button',
      'aria-pressed': 'false',
      onclick: () => setCommenting(!state.commenting),
    },
    svg('pin'),
    h('span', { class: 'label' }, 'Comment'),
  )
  ui.countLabel = h('span', { class: 'label' })
  ui.countButton = h(
    'button',
    {
      class: 'btn count-button',
      type: 'button',
      'aria-expanded': 'false',
      'aria-controls': 'comments-panel',
      onclick: () => setPanel(ui.panel.hidden),
    },
    svg('chat'),
    ui.countLabel,
  )

  ui.historyToggle = h('input', {
    type: 'checkbox',
    id: 'show-history',
    onchange: () => {
      state.showHistory = ui.historyToggle.checked
      view.history.refresh()
      render()
    },
  })
  ui.list = h('ol', { class: 'comment-list' })
  ui.panel = h(
    'aside',
    { class: 'panel', id: 'comments-panel', hidden: true, 'aria-labelledby': 'panel-title' },
    h(
      'div',
      { class: 'panel-head' },
      h('h2', { id: 'panel-title' }, 'Comments'),
      h('button', { class: 'icon-button', type: 'button', 'aria-label': 'Close comments', onclick: () => setPanel(false) }, svg('close')),
    ),
    h('label', { class: 'history-toggle', for: 'show-history' }, ui.historyToggle, 'Show earlier versions and resolved'),
    ui.list,
  )

  let lastPins = ''
  let flashed = null // {id, at}: the list item last highlighted, and when

  function render() {
    const sets = commentSets(state)
    const n = sets.openCount
    ui.countLabel.textContent = String(n)
    ui.countButton.setAttribute('aria-label', `${n} comment${n === 1 ? '' : 's'}: show list`)
    ui.commentToggle.hidden = !state.allowComments

    const groups = pageGroups(sets.page, state.currentFile, state.pinSlides)
    const onScreen = groups.filter((g) => g.file === state.currentFile).flatMap((g) => g.threads)
    const numbers = new Map(onScreen.map((t, i) => [t.comment.id, i + 1]))
    sendPins(onScreen, numbers)
    renderList(view, ui.list, { sets, groups, numbers, currentSlide: state.where?.slide })
    keepFlash()
  }

  function sendPins(threads, numbers) {
    // A presentation shows the folio as authored: no pins over the slides.
    const pins = state.presenting
      ? []
      : threads.map(({ comment: c, replies }) => ({
          n: numbers.get(c.id),
          id: c.id,
          x: Number(c.x) || 0,
          y: Number(c.y) || 0,
          anchor: c.anchor && typeof c.anchor === 'object' ? c.anchor : undefined,
          // A comment from the API or MCP names its element by the spec's selector only: the bridge
          // makes its anchor from it (bridge-pin-anchors.js). An anchor already carries its own.
          selector: c.anchor || typeof c.selector !== 'string' ? undefined : c.selector,
          author: c.author || 'Guest',
          text: c.text,
          replies: replies.filter((r) => !r.resolved || c.resolved).map((r) => ({ author: r.author || 'Guest', text: r.text })),
        }))
    // Sent again only when they changed: the bridge redraws on a new list.
    const key = JSON.stringify(pins)
    if (key === lastPins) return
    lastPins = key
    view.toBridge({ type: 'pins', pins })
  }

  /** A new frame (page, version) has no pins yet: the next render sends them whatever they are. */
  function framesChanged() {
    lastPins = ''
    render()
  }

  /** "5 minutes ago" stays true while the page is open. */
  function keepTimesFresh() {
    setInterval(() => {
      for (const t of ui.list.querySelectorAll('time[data-ago]')) t.textContent = ago(t.dataset.ago)
    }, 60_000)
  }

  function focusComment(comment) {
    if (comment.filename !== state.currentFile && state.files.includes(comment.filename)) {
      state.pendingFocus = comment.id // sent once the bridge of that page says ready
      view.loadFrame(comment.filename, null, { hash: comment.anchor?.hash || '' })
    } else {
      view.toBridge({ type: 'focus', id: comment.id })
    }
    // On a phone the panel covers the folio: get out of the way so the pin is visible.
    if (matchMedia('(max-width: 720px)').matches) setPanel(false)
  }

  /**
   * A link to one comment (the owner's inbox and `folio comments --open` send
   * /share/{id}?preview=1#comment=c_…) opens the panel at it, and its thread for a reply.
   * Resolved ones and those of earlier versions are shown with the earlier-versions toggle on.
   */
  async function openLinked() {
    const match = /^#comment=([^&]+)$/.exec(location.hash)
    if (!match) return
    let id
    try {
      id = decodeURIComponent(match[1])
    } catch {
      return
    }
    const known = () => [...state.comments, ...(state.allComments ?? [])]
    let comment = state.comments.find((c) => c.id === id)
    if (!comment) {
      await view.history.now()
      comment = known().find((c) => c.id === id)
      if (!comment) return view.toast('That comment is not on this folio any more.')
      state.showHistory = true
      ui.historyToggle.checked = true
    }
    const thread = (comment.parentId && known().find((c) => c.id === comment.parentId)) || comment
    render()
    setPanel(true, { focusList: false })
    highlightListItem(thread.id)
    focusComment(thread)
  }

  function highlightListItem(id) {
    flashed = { id, at: performance.now() }
    const item = listItem(id)
    if (!item) return
    item.scrollIntoView({ block: 'nearest' })
    item.classList.remove('flash')
    item.style.animationDelay = ''
    void item.offsetWidth // restart the animation
    item.classList.add('flash')
  }

  /**
   * The list is drawn anew on every change (a fetch answering, the bridge telling the slides):
   * the item brought to the viewer's eye keeps its flash, carried on from where it was.
   */
  function keepFlash() {
    const item = flashed && listItem(flashed.id)
    if (!item) return
    item.style.animationDelay = `${-Math.round(performance.now() - flashed.at)}ms`
    item.classList.add('flash')
  }

  const listItem = (id) => ui.list.querySelector(`[data-id="${CSS.escape(id)}"]`)

  function add(comment) {
    if (!comment?.id || state.comments.some((c) => c.id === comment.id)) return // SSE may win the race
    state.comments = [...state.comments, comment]
    view.history.learn([comment])
    render()
    view.history.refresh()
  }

  function setPanel(open, { focusList = true } = {}) {
    ui.panel.hidden = !open
    ui.countButton.setAttribute('aria-expanded', String(open))
    document.body.classList.toggle('panel-open', open)
    if (open && focusList) ui.panel.querySelector('button')?.focus()
    else if (!open && ui.panel.contains(document.activeElement)) ui.countButton.focus()
  }

  function setCommenting(on, { fromBridge = false } = {}) {
    on = on && state.allowComments
    if (on === state.commenting) return
    state.commenting = on
    ui.commentToggle.setAttribute('aria-pressed', String(on))
    ui.commentToggle.querySelector('.label').textContent = on ? 'Commenting' : 'Comment'
    document.body.classList.toggle('commenting', on)
    if (!fromBridge) view.toBridge({ type: 'mode', commenting: on })
    if (on) view.toast('Click anywhere in the folio to comment · Esc to stop')
    else view.composer.close()
  }

  return { render, framesChanged, keepTimesFresh, focusComment, highlightListItem, openLinked, add, setPanel, setCommenting }
}
