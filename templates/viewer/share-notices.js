/* The share page when there is no folio to show: missing, not published yet, or behind a key. */

import { svg } from './icons.js';
import { postJson } from './post-json.js';
import { h } from './ui.js';

function renderNotice(app, iconName, heading, text) {
  document.body.className = 'notice-page';
  app.replaceChildren(
    h('main', { class: 'notice-card' },
      svg(iconName),
      h('h1', {}, heading),
      h('p', {}, text),
      h('p', { class: 'brand' }, 'Shared with folio')),
  );
}

export const renderMissing = (app) =>
  renderNotice(app, 'ghost', 'This folio does not exist (any more)',
    'The link may be mistyped, or its owner has deleted the folio.');

export const renderDraft = (app) =>
  renderNotice(app, 'clock', 'This folio is not published yet',
    'Its owner is still working on it. Keep this page open: it shows the folio once it is published.');

export function renderGate(app, boot) {
  document.body.className = 'notice-page';
  const input = h('input', {
    id: 'access-key', name: 'accessKey', type: 'password', required: true,
    autocomplete: 'current-password', spellcheck: 'false',
  });
  const error = h('p', { class: 'form-error', role: 'alert', id: 'access-error' });
  const button = h('button', { class: 'btn primary', type: 'submit' }, 'Unlock');
  const form = h('form', { class: 'gate-form', onsubmit: submit },
    h('label', { for: 'access-key' }, 'Access key'),
    h('div', { class: 'gate-row' }, input, button),
    error);

  async function submit(event) {
    event.preventDefault();
    error.textContent = '';
    button.disabled = true;
    try {
      // The key travels in the body only: never the URL (history, logs), never storage.
      const { res, data } = await postJson(`${boot.api}/public`, { accessKey: input.value });
      if (res.ok && data?.success) {
        location.reload(); // the server has set the access cookie
        return;
      }
      const wait = Number(res.headers.get('retry-after')) || 0;
      error.textContent = res.status === 429 ? `Too many tries: wait ${wait > 1 ? `${wait} seconds` : 'a moment'}, then try again` : 'That key is not right';
    } catch {
      error.textContent = 'Could not reach the server. Try again.';
    } finally {
      button.disabled = false;
    }
    input.value = '';
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', 'access-error');
    input.focus();
  }

  app.replaceChildren(
    h('main', { class: 'notice-card' },
      svg('lock'),
      h('h1', {}, boot.title || 'Private folio'),
      h('p', {}, 'This folio is private. Enter the access key you were given.'),
      form,
      h('p', { class: 'brand' }, 'Shared with folio')),
  );
  input.focus();
}
