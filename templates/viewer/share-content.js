/*
 * The content view: the folio in its sandboxed frame, the bar above it and the comments panel
 * beside it. Its parts (comments, the comment form, reactions, presentation, live updates,
 * analytics) live in modules of their own and share one `view`: the boot data, the state, the
 * elements (`ui`) and each other's functions, looked up when called, so the order the parts
 * are created in does not matter.
 */

import { startAnalytics } from './share-analytics.js';
import { createComments } from './share-comments.js';
import { createComposer } from './share-composer.js';
import { createFrameAccess } from './share-frame.js';
import { startLive } from './share-live.js';
import { createPresentation } from './share-presentation.js';
import { createReactions } from './share-reactions.js';
import { h } from './ui.js';

const encodePath = (path) => path.split('/').map(encodeURIComponent).join('/');

export function renderContent(app, boot) {
  const state = {
    title: boot.title || 'Untitled folio',
    allowComments: boot.allowComments !== false,
    presentationOnly: Boolean(boot.presentationModeOnly),
    isPrivate: boot.isPrivate, // may be absent from boot: then the first meta event sets it
    latestVersionId: boot.latestVersionId,
    files: boot.activeFileList || [],
    entry: boot.entry || 'index.html',
    currentFile: boot.entry || 'index.html',
    comments: Array.isArray(boot.comments) ? boot.comments : [],
    reactions: { ...(boot.reactions || {}) },
    commenting: false,
    pendingFocus: null, // comment id to focus once another file has loaded
    draft: null, // the click being commented on
    presenting: false,
    closed: false,
  };

  document.body.className = 'content-page';
  const ui = {};
  // Access was withdrawn (a new key, unpublished): the server decides what this viewer sees now.
  const frameAccess = createFrameAccess(boot, { onRevoked: () => location.reload() });
  const view = { app, boot, state, ui, toBridge, toast, loadFrame, frameAccess };
  view.reactions = createReactions(view);
  view.comments = createComments(view);
  view.composer = createComposer(view);
  view.presentation = createPresentation(view);

  /* -- header -- */
  ui.title = h('h1', { class: 'bar-title', title: state.title }, state.title);
  ui.header = h('header', { class: 'bar' },
    h('div', { class: 'bar-start' },
      h('span', { class: 'logo', 'aria-hidden': 'true' }, 'f'),
      ui.title,
      boot.preview && h('span', { class: 'badge' }, 'Preview · draft')),
    h('div', { class: 'bar-end' }, ui.reactions, ui.commentToggle, ui.countButton));

  /* -- stage: the frame and everything floating over it (kept inside so fullscreen shows it) -- */
  ui.frame = h('iframe', {
    class: 'frame', title: state.title, allow: 'fullscreen',
    // NEVER allow-same-origin: with allow-scripts it would let the folio escape the sandbox.
    sandbox: 'allow-scripts allow-popups allow-forms allow-modals allow-downloads',
    src: boot.frameBase + encodePath(state.entry),
  });
  ui.toasts = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });
  ui.stage = h('main', { class: 'stage', id: 'stage' },
    ui.frame, ui.marker, ui.popover.form, ui.launch, ui.exit, ui.toasts);

  app.replaceChildren(ui.header, h('div', { class: 'body' }, ui.stage, ui.panel));

  /* ---------- bridge messages ---------- */

  function toBridge(message) {
    // "*" because the frame's origin is opaque by design; nothing we send is secret.
    ui.frame.contentWindow?.postMessage({ source: 'folio-viewer', ...message }, '*');
  }

  // From bridge.js: ready {file, width, height} · resize {width, height}
  // · click {x, y, selector, elementHtml, file, clientX, clientY} · mode-exit · pin-click {id}
  // From the server's page for a frame token that ran out: expired {path}
  window.addEventListener('message', (event) => {
    if (state.closed || event.source !== ui.frame.contentWindow) return;
    const data = event.data;
    if (data?.source !== 'folio-bridge') return;
    switch (data.type) {
      case 'ready':
        if (typeof data.file === 'string') state.currentFile = data.file;
        toBridge({ type: 'base', base: frameAccess.base }); // the page may have been loaded under an older one
        if (state.commenting) toBridge({ type: 'mode', commenting: true }); // a new page forgot it
        view.comments.render();
        if (state.pendingFocus) {
          toBridge({ type: 'focus', id: state.pendingFocus });
          state.pendingFocus = null;
        }
        break;
      case 'click':
        if (state.commenting && state.allowComments) view.composer.open(data);
        break;
      case 'mode-exit':
        view.comments.setCommenting(false, { fromBridge: true });
        break;
      case 'pin-click':
        view.comments.setPanel(true, { focusList: false });
        view.comments.highlightListItem(data.id);
        break;
      case 'expired':
        if (typeof data.path === 'string') reloadExpired(data.path);
        break;
    }
  });

  frameAccess.onChange((base) => toBridge({ type: 'base', base }));

  // The frame went to a page with a token that ran out (a script navigated, a form was sent):
  // the same page again under a fresh one. Never in a loop: a third time within a minute stops.
  const expiries = [];
  function reloadExpired(path) {
    const now = Date.now();
    while (expiries.length && now - expiries[0] > 60_000) expiries.shift();
    if (expiries.push(now) > 2) {
      toast('This folio could not be reloaded: reload the page.');
      return;
    }
    const at = path.indexOf('?');
    const file = at === -1 ? path : path.slice(0, at);
    const query = at === -1 ? '' : path.slice(at);
    frameAccess.renew().then((base) => {
      state.currentFile = file;
      ui.frame.src = base + encodePath(file) + query;
    }, () => {});
  }

  /* ---------- frame ---------- */

  function loadFrame(file, bust) {
    state.currentFile = file;
    // Same path for a new version: the query makes sure no cached copy of the old one is shown.
    const query = bust ? `?v=${encodeURIComponent(bust)}` : '';
    frameAccess.urlOf(file, query).then((url) => {
      if (state.currentFile === file) ui.frame.src = url;
    });
  }

  /* ---------- toasts ---------- */

  function toast(message) {
    const t = h('div', { class: 'toast' }, message);
    ui.toasts.append(t);
    setTimeout(() => t.classList.add('out'), 2800);
    setTimeout(() => t.remove(), 3200);
  }

  /* ---------- keyboard (focus in the frame goes to bridge.js instead) ---------- */

  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape') return;
    if (!ui.popover.form.hidden) view.composer.close({ refocus: true });
    else if (!ui.panel.hidden) view.comments.setPanel(false);
    else if (state.commenting) view.comments.setCommenting(false);
    else if (document.body.classList.contains('maximised')) view.presentation.end();
  });

  /* ---------- analytics and live updates ---------- */

  // The owner previewing is not an audience: don't let it inflate views.
  const analytics = boot.preview ? { stop() {} } : startAnalytics(`${boot.api}/analytics`);
  startLive(view, analytics);

  /* ---------- first paint ---------- */

  view.reactions.render();
  view.comments.render();
  view.comments.keepTimesFresh();
}
