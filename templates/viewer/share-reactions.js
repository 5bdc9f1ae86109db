/* The reaction buttons in the bar: counts from the boot data and live updates, a click adds one. */

import { postJson } from './post-json.js';
import { h } from './ui.js';

const REACTIONS = ['👍', '❤️', '💡', '🔥'];

export function createReactions(view) {
  const { boot, state, ui } = view;

  ui.reactions = h('div', { class: 'reactions', role: 'group', 'aria-label': 'Reactions' });
  ui.reactionButtons = new Map();
  for (const emoji of REACTIONS) {
    const count = h('span', { class: 'count' });
    const button = h('button', { class: 'reaction', type: 'button', onclick: () => react(emoji) },
      h('span', { class: 'emoji', 'aria-hidden': 'true' }, emoji), count);
    ui.reactionButtons.set(emoji, { button, count });
    ui.reactions.append(button);
  }

  function render() {
    for (const [emoji, { button, count }] of ui.reactionButtons) {
      const n = Number(state.reactions[emoji]) || 0;
      count.textContent = String(n);
      button.setAttribute('aria-label', `React with ${emoji} (${n})`);
    }
  }

  async function react(emoji) {
    const { button } = ui.reactionButtons.get(emoji);
    // aria-disabled rather than disabled: a disabled button drops keyboard focus in Chromium.
    if (button.getAttribute('aria-disabled') === 'true') return;
    button.setAttribute('aria-disabled', 'true');
    const before = state.reactions;
    state.reactions = { ...before, [emoji]: (Number(before[emoji]) || 0) + 1 };
    render();
    button.classList.remove('pop');
    void button.offsetWidth; // restart the animation
    button.classList.add('pop');
    try {
      const { res, data } = await postJson(`${boot.api}/reactions`, { increments: { [emoji]: 1 } });
      if (res.ok && data?.reactions) state.reactions = data.reactions;
      else {
        state.reactions = before;
        view.toast(res.status === 429 ? 'Slow down a little' : 'Could not save the reaction');
      }
    } catch {
      state.reactions = before;
      view.toast('Could not save the reaction');
    }
    render();
    setTimeout(() => button.removeAttribute('aria-disabled'), 600);
  }

  return { render };
}
