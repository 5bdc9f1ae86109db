/*
 * The reaction buttons in the bar: counts from the boot data and live updates. One reaction per
 * emoji per viewer: a click adds it, a second click takes it back (+1 / −1, remembered in this
 * browser). The owner's preview is not an audience: it shows the counts and sends nothing.
 */

import { postJson } from '../common/post-json.js'
import { h } from '../common/ui.js'

const REACTIONS = ['👍', '❤️', '💡', '🔥']

export function createReactions(view) {
  const { boot, state, ui } = view
  const storeKey = `folio.reacted:${boot.id}`
  const mine = readMine()

  function readMine() {
    try {
      const list = JSON.parse(localStorage.getItem(storeKey) || '[]')
      return new Set(Array.isArray(list) ? list.filter((e) => REACTIONS.includes(e)) : [])
    } catch {
      return new Set() // storage disabled: each page load is a new viewer
    }
  }

  function saveMine() {
    try {
      if (mine.size) localStorage.setItem(storeKey, JSON.stringify([...mine]))
      else localStorage.removeItem(storeKey)
    } catch {
      /* see readMine */
    }
  }

  ui.reactions = h('div', { class: 'reactions', role: 'group', 'aria-label': 'Reactions' })
  ui.reactionButtons = new Map()
  for (const emoji of REACTIONS) {
    const count = h('span', { class: 'count' })
    const button = h(
      'button',
      { class: 'reaction', type: 'button', onclick: () => react(emoji) },
      h('span', { class: 'emoji', 'aria-hidden': 'true' }, emoji),
      count,
    )
    ui.reactionButtons.set(emoji, { button, count })
    ui.reactions.append(button)
  }

  function render() {
    for (const [emoji, { button, count }] of ui.reactionButtons) {
      const n = Number(state.reactions[emoji]) || 0
      count.textContent = String(n)
      button.setAttribute('aria-label', `React with ${emoji} (${n})`)
      button.setAttribute('aria-pressed', String(mine.has(emoji)))
      if (boot.preview) button.title = 'Your own reactions are not counted in a preview'
    }
  }

  async function react(emoji) {
    const { button } = ui.reactionButtons.get(emoji)
    if (boot.preview) {
      view.toast('A preview does not count reactions')
      return
    }
    // aria-disabled rather than disabled: a disabled button drops keyboard focus in Chromium.
    if (button.getAttribute('aria-disabled') === 'true') return
    button.setAttribute('aria-disabled', 'true')
    const taking = mine.has(emoji)
    const step = taking ? -1 : 1
    const before = state.reactions
    state.reactions = { ...before, [emoji]: Math.max(0, (Number(before[emoji]) || 0) + step) }
    if (taking) mine.delete(emoji)
    else mine.add(emoji)
    render()
    if (!taking) {
      button.classList.remove('pop')
      void button.offsetWidth // restart the animation
      button.classList.add('pop')
    }
    let saved = false
    try {
      const { res, data } = await postJson(`${boot.api}/reactions`, { increments: { [emoji]: step } })
      saved = res.ok && Boolean(data?.reactions)
      if (saved) state.reactions = data.reactions
      else view.toast(res.status === 429 ? 'Slow down a little' : 'Could not save the reaction')
    } catch {
      view.toast('Could not save the reaction')
    }
    if (saved) saveMine()
    else {
      state.reactions = before
      if (taking) mine.add(emoji)
      else mine.delete(emoji)
    }
    render()
    setTimeout(() => button.removeAttribute('aria-disabled'), 600)
  }

  return { render }
}
