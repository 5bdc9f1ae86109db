/* Presentation mode: the folio fullscreen (or maximised in the page), without pins or panels. */

import { svg } from '../common/icons.js'
import { h } from '../common/ui.js'

export function createPresentation(view) {
  const { state, ui } = view

  ui.launch = h(
    'div',
    { class: 'launch', hidden: !state.presentationOnly },
    h(
      'div',
      { class: 'launch-card' },
      h('p', { class: 'launch-title' }, state.title),
      h('button', { class: 'btn primary big', type: 'button', onclick: start }, svg('play'), 'Start presentation'),
    ),
  )
  ui.exit = h(
    'button',
    {
      class: 'btn exit-presentation',
      type: 'button',
      hidden: true,
      onclick: end,
    },
    svg('close'),
    'Exit presentation',
  )

  function start() {
    state.presenting = true
    view.comments.setCommenting(false)
    view.comments.setPanel(false, { focusList: false })
    view.comments.render()
    ui.launch.hidden = true
    document.body.classList.add('presenting')
    const maximise = () => {
      document.body.classList.add('maximised')
      ui.exit.hidden = false
    }
    const request = ui.stage.requestFullscreen?.({ navigationUI: 'hide' })
    if (request) request.catch(maximise)
    else maximise()
    ui.frame.focus() // so arrow keys reach the deck at once
  }

  function end() {
    if (!state.presenting) return
    state.presenting = false
    document.body.classList.remove('presenting', 'maximised')
    ui.exit.hidden = true
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {})
    ui.launch.hidden = !state.presentationOnly
    view.comments.render()
  }

  document.addEventListener('fullscreenchange', () => {
    if (!document.fullscreenElement && !document.body.classList.contains('maximised')) end()
  })

  return { start, end }
}
