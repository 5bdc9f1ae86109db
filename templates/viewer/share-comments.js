/*
 * Comments on the folio: the pins drawn inside the frame (by bridge.js), the panel that lists
 * them, and comment mode (the toggle in the bar; a click in the folio then opens the form).
 */

import { svg } from './icons.js';
import { ago, h } from './ui.js';

export function createComments(view) {
  const { state, ui } = view;

  ui.commentToggle = h('button', {
    class: 'btn toggle', type: 'button', 'aria-pressed': 'false',
    onclick: () => setCommenting(!state.commenting),
  }, svg('pin'), h('span', { class: 'label' }, 'Comment'));
  ui.countLabel = h('span', { class: 'label' });
  ui.countButton = h('button', {
    class: 'btn count-button', type: 'button', 'aria-expanded': 'false',
    'aria-controls': 'comments-panel', onclick: () => setPanel(ui.panel.hidden),
  }, svg('chat'), ui.countLabel);

  ui.list = h('ol', { class: 'comment-list' });
  ui.panel = h('aside', { class: 'panel', id: 'comments-panel', hidden: true, 'aria-labelledby': 'panel-title' },
    h('div', { class: 'panel-head' },
      h('h2', { id: 'panel-title' }, 'Comments'),
      h('button', { class: 'icon-button', type: 'button', 'aria-label': 'Close comments', onclick: () => setPanel(false) },
        svg('close'))),
    ui.list);

  const commentsOnFile = () => state.comments.filter((c) => c.filename === state.currentFile);

  function render() {
    const n = state.comments.length;
    ui.countLabel.textContent = String(n);
    ui.countButton.setAttribute('aria-label', `${n} comment${n === 1 ? '' : 's'}: show list`);
    ui.commentToggle.hidden = !state.allowComments;

    const numbers = new Map(commentsOnFile().map((c, i) => [c.id, i + 1]));
    view.toBridge({
      type: 'pins',
      // A presentation shows the folio as authored: no pins over the slides.
      pins: state.presenting ? [] : commentsOnFile().map((c, i) => ({
        n: i + 1, id: c.id, x: Number(c.x) || 0, y: Number(c.y) || 0,
        author: c.author || 'Guest', text: c.text,
      })),
    });

    if (!n) {
      ui.list.replaceChildren(h('li', { class: 'empty' },
        state.allowComments
          ? 'No comments yet. Turn on “Comment” and click anywhere in the folio.'
          : 'No comments.'));
      return;
    }
    ui.list.replaceChildren(...state.comments.map((c) => {
      const num = numbers.get(c.id);
      return h('li', {},
        h('button', {
          class: 'comment', type: 'button', 'data-id': c.id, onclick: () => focusComment(c),
          'aria-label': `${num ? `Comment ${num}` : `Comment on ${c.filename}`} by ${c.author || 'Guest'}, ${ago(c.createdAt)}: ${c.text}`,
        },
        h('span', { class: 'comment-head', 'aria-hidden': 'true' },
          num ? h('span', { class: 'num' }, String(num)) : h('span', { class: 'file' }, c.filename),
          h('span', { class: 'author' }, c.author || 'Guest'),
          h('time', { datetime: c.createdAt, 'data-ago': c.createdAt }, ago(c.createdAt))),
        h('span', { class: 'text', 'aria-hidden': 'true' }, c.text)));
    }));
  }

  /** "5 minutes ago" stays true while the page is open. */
  function keepTimesFresh() {
    setInterval(() => {
      for (const t of ui.list.querySelectorAll('time[data-ago]')) t.textContent = ago(t.dataset.ago);
    }, 60_000);
  }

  function focusComment(comment) {
    if (comment.filename !== state.currentFile && state.files.includes(comment.filename)) {
      state.pendingFocus = comment.id; // sent once the bridge of that page says ready
      view.loadFrame(comment.filename);
    } else {
      view.toBridge({ type: 'focus', id: comment.id });
    }
    // On a phone the panel covers the folio: get out of the way so the pin is visible.
    if (matchMedia('(max-width: 720px)').matches) setPanel(false);
  }

  function highlightListItem(id) {
    const item = ui.list.querySelector(`[data-id="${CSS.escape(id)}"]`);
    if (!item) return;
    item.scrollIntoView({ block: 'nearest' });
    item.classList.remove('flash');
    void item.offsetWidth; // restart the animation
    item.classList.add('flash');
  }

  function add(comment) {
    if (!comment?.id || state.comments.some((c) => c.id === comment.id)) return; // SSE may win the race
    state.comments = [...state.comments, comment];
    render();
  }

  function setPanel(open, { focusList = true } = {}) {
    ui.panel.hidden = !open;
    ui.countButton.setAttribute('aria-expanded', String(open));
    document.body.classList.toggle('panel-open', open);
    if (open && focusList) ui.panel.querySelector('button')?.focus();
    else if (!open && ui.panel.contains(document.activeElement)) ui.countButton.focus();
  }

  function setCommenting(on, { fromBridge = false } = {}) {
    on = on && state.allowComments;
    if (on === state.commenting) return;
    state.commenting = on;
    ui.commentToggle.setAttribute('aria-pressed', String(on));
    ui.commentToggle.querySelector('.label').textContent = on ? 'Commenting' : 'Comment';
    document.body.classList.toggle('commenting', on);
    if (!fromBridge) view.toBridge({ type: 'mode', commenting: on });
    if (on) view.toast('Click anywhere in the folio to comment · Esc to stop');
    else view.composer.close();
  }

  return { render, keepTimesFresh, highlightListItem, add, setPanel, setCommenting };
}
