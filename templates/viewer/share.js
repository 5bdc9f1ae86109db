/*
 * folio share page. Everything dynamic is rendered here from the boot JSON the server embeds,
 * so the HTML template stays a shell with two placeholders.
 *
 * The folio itself runs in a sandboxed iframe with an opaque origin (no allow-same-origin, ever):
 * it can't read our cookies or DOM, and we can't read its DOM either. bridge.js, injected into
 * each of its HTML files, is our only channel to it (postMessage, shapes documented in the report
 * and at the message handlers below).
 */

import { ago, h } from '/_folio/ui.js';

const REACTIONS = ['👍', '❤️', '💡', '🔥'];
const BEACON_EVERY_MS = 30_000;
const AUTHOR_KEY = 'folio.author';

const app = document.getElementById('app');
const boot = readBoot();

/* ---------- small helpers ---------- */

function readBoot() {
  try {
    return JSON.parse(document.getElementById('folio-boot')?.textContent || '{}');
  } catch {
    return { view: 'missing' };
  }
}

/** Builds an element; props starting with "on" become listeners, the rest attributes/properties. */

async function postJson(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    // A proxy's HTML error page: the status alone has to do.
  }
  return { res, data };
}


const encodePath = (path) => path.split('/').map(encodeURIComponent).join('/');

function storedAuthor() {
  try {
    return localStorage.getItem(AUTHOR_KEY) || '';
  } catch {
    return ''; // storage disabled (privacy mode): just don't remember
  }
}

function rememberAuthor(name) {
  try {
    if (name) localStorage.setItem(AUTHOR_KEY, name);
    else localStorage.removeItem(AUTHOR_KEY);
  } catch {
    /* see storedAuthor */
  }
}

const icon = {
  lock: '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="4" y="10" width="16" height="11" rx="2"/><path d="M8 10V7a4 4 0 0 1 8 0v3"/></svg>',
  ghost: '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="9"/><path d="M9 10h.01M15 10h.01M9 15.5c1.8-1.3 4.2-1.3 6 0"/></svg>',
  clock: '<svg viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/></svg>',
  pin: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 20l1.5-4.5A8 8 0 1 1 9 19z"/><path d="M12 8v6M9 11h6"/></svg>',
  chat: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 5h16v11H9l-5 4z"/></svg>',
  play: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M8 5l11 7-11 7z"/></svg>',
  close: '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18"/></svg>',
};
const svg = (name) => {
  const span = h('span', { class: 'icon' });
  span.innerHTML = icon[name]; // constant markup above, never data
  return span;
};

/* ---------- simple views ---------- */

function renderNotice(iconName, heading, text) {
  document.body.className = 'notice-page';
  app.replaceChildren(
    h('main', { class: 'notice-card' },
      svg(iconName),
      h('h1', {}, heading),
      h('p', {}, text),
      h('p', { class: 'brand' }, 'Shared with folio')),
  );
}

const renderMissing = () =>
  renderNotice('ghost', 'This folio does not exist (any more)',
    'The link may be mistyped, or its owner has deleted the folio.');

const renderDraft = () =>
  renderNotice('clock', 'This folio is not published yet',
    'Its owner is still working on it. Try this link again later.');

function renderGate() {
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
      error.textContent = res.status === 429 ? 'Slow down a little' : 'That key is not right';
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

/* ---------- the content view ---------- */

function renderContent() {
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

  /* -- header -- */
  ui.title = h('h1', { class: 'bar-title', title: state.title }, state.title);
  ui.reactions = h('div', { class: 'reactions', role: 'group', 'aria-label': 'Reactions' });
  ui.reactionButtons = new Map();
  for (const emoji of REACTIONS) {
    const count = h('span', { class: 'count' });
    const button = h('button', { class: 'reaction', type: 'button', onclick: () => react(emoji) },
      h('span', { class: 'emoji', 'aria-hidden': 'true' }, emoji), count);
    ui.reactionButtons.set(emoji, { button, count });
    ui.reactions.append(button);
  }
  ui.commentToggle = h('button', {
    class: 'btn toggle', type: 'button', 'aria-pressed': 'false',
    onclick: () => setCommenting(!state.commenting),
  }, svg('pin'), h('span', { class: 'label' }, 'Comment'));
  ui.countLabel = h('span', { class: 'label' });
  ui.countButton = h('button', {
    class: 'btn count-button', type: 'button', 'aria-expanded': 'false',
    'aria-controls': 'comments-panel', onclick: () => setPanel(ui.panel.hidden),
  }, svg('chat'), ui.countLabel);

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
  ui.marker = h('div', { class: 'click-marker', hidden: true, 'aria-hidden': 'true' });
  ui.popover = buildPopover();
  ui.launch = h('div', { class: 'launch', hidden: !state.presentationOnly },
    h('div', { class: 'launch-card' },
      h('p', { class: 'launch-title' }, state.title),
      h('button', { class: 'btn primary big', type: 'button', onclick: startPresentation },
        svg('play'), 'Start presentation')));
  ui.exit = h('button', {
    class: 'btn exit-presentation', type: 'button', hidden: true, onclick: endPresentation,
  }, svg('close'), 'Exit presentation');
  ui.stage = h('main', { class: 'stage', id: 'stage' },
    ui.frame, ui.marker, ui.popover.form, ui.launch, ui.exit, ui.toasts);

  /* -- comments panel -- */
  ui.list = h('ol', { class: 'comment-list' });
  ui.panel = h('aside', { class: 'panel', id: 'comments-panel', hidden: true, 'aria-labelledby': 'panel-title' },
    h('div', { class: 'panel-head' },
      h('h2', { id: 'panel-title' }, 'Comments'),
      h('button', { class: 'icon-button', type: 'button', 'aria-label': 'Close comments', onclick: () => setPanel(false) },
        svg('close'))),
    ui.list);

  app.replaceChildren(ui.header, h('div', { class: 'body' }, ui.stage, ui.panel));

  /* ---------- bridge messages ---------- */

  function toBridge(message) {
    // "*" because the frame's origin is opaque by design; nothing we send is secret.
    ui.frame.contentWindow?.postMessage({ source: 'folio-viewer', ...message }, '*');
  }

  // From bridge.js: ready {file, width, height} · resize {width, height}
  // · click {x, y, selector, elementHtml, file, clientX, clientY} · mode-exit · pin-click {id}
  window.addEventListener('message', (event) => {
    if (state.closed || event.source !== ui.frame.contentWindow) return;
    const data = event.data;
    if (data?.source !== 'folio-bridge') return;
    switch (data.type) {
      case 'ready':
        if (typeof data.file === 'string') state.currentFile = data.file;
        if (state.commenting) toBridge({ type: 'mode', commenting: true }); // a new page forgot it
        renderComments();
        if (state.pendingFocus) {
          toBridge({ type: 'focus', id: state.pendingFocus });
          state.pendingFocus = null;
        }
        break;
      case 'click':
        if (state.commenting && state.allowComments) openPopover(data);
        break;
      case 'mode-exit':
        setCommenting(false, { fromBridge: true });
        break;
      case 'pin-click':
        setPanel(true, { focusList: false });
        highlightListItem(data.id);
        break;
    }
  });

  /* ---------- comments ---------- */

  const commentsOnFile = () => state.comments.filter((c) => c.filename === state.currentFile);

  function renderComments() {
    const n = state.comments.length;
    ui.countLabel.textContent = String(n);
    ui.countButton.setAttribute('aria-label', `${n} comment${n === 1 ? '' : 's'}: show list`);
    ui.commentToggle.hidden = !state.allowComments;

    const numbers = new Map(commentsOnFile().map((c, i) => [c.id, i + 1]));
    toBridge({
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

  function focusComment(comment) {
    if (comment.filename !== state.currentFile && state.files.includes(comment.filename)) {
      state.pendingFocus = comment.id; // sent once the bridge of that page says ready
      loadFrame(comment.filename);
    } else {
      toBridge({ type: 'focus', id: comment.id });
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

  function addComment(comment) {
    if (!comment?.id || state.comments.some((c) => c.id === comment.id)) return; // SSE may win the race
    state.comments = [...state.comments, comment];
    renderComments();
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
    if (!fromBridge) toBridge({ type: 'mode', commenting: on });
    if (on) toast('Click anywhere in the folio to comment · Esc to stop');
    else closePopover();
  }

  /* -- the new-comment popover -- */

  function buildPopover() {
    const author = h('input', {
      id: 'comment-author', name: 'author', maxlength: '80', autocomplete: 'name', placeholder: 'Guest',
    });
    const text = h('textarea', {
      id: 'comment-text', name: 'text', rows: '3', required: true, maxlength: '5000',
      placeholder: 'What do you think?',
    });
    const error = h('p', { class: 'form-error', role: 'alert' });
    const submit = h('button', { class: 'btn primary', type: 'submit' }, 'Post');
    const form = h('form', {
      class: 'popover', hidden: true, 'aria-label': 'New comment',
      onsubmit: (e) => { e.preventDefault(); submitComment(); },
      onkeydown: (e) => {
        // Ctrl/⌘+Enter posts from the textarea, like most comment boxes.
        if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) { e.preventDefault(); submitComment(); }
      },
    },
    h('label', { for: 'comment-author' }, 'Your name ', h('span', { class: 'hint' }, '(optional)')),
    author,
    h('label', { for: 'comment-text' }, 'Comment'),
    text,
    error,
    h('div', { class: 'popover-actions' },
      h('button', { class: 'btn', type: 'button', onclick: () => closePopover({ refocus: true }) }, 'Cancel'),
      submit));
    return { form, author, text, error, submit };
  }

  function openPopover(click) {
    const p = ui.popover;
    state.draft = click;
    p.error.textContent = '';
    ui.toasts.replaceChildren(); // the "click anywhere" hint would sit on top of the form
    p.author.value = p.author.value || storedAuthor();
    p.form.hidden = false;

    // Place the form next to the clicked spot, flipped/clamped so it stays inside the stage.
    const stage = ui.stage.getBoundingClientRect();
    const cx = Number.isFinite(click.clientX) ? click.clientX : stage.width / 2;
    const cy = Number.isFinite(click.clientY) ? click.clientY : stage.height / 3;
    ui.marker.hidden = false;
    ui.marker.style.left = `${cx}px`;
    ui.marker.style.top = `${cy}px`;
    const w = p.form.offsetWidth;
    const hgt = p.form.offsetHeight;
    let left = cx + 16;
    let top = cy + 12;
    if (left + w > stage.width - 8) left = cx - w - 16;
    if (top + hgt > stage.height - 8) top = stage.height - hgt - 8;
    p.form.style.left = `${Math.max(8, left)}px`;
    p.form.style.top = `${Math.max(8, top)}px`;
    p.text.focus();
  }

  // refocus: after Cancel/Esc/Post the viewer goes back to the folio; when the popover closes as a
  // side effect (toggle button, new version) focus stays where the viewer put it.
  function closePopover({ refocus = false } = {}) {
    const p = ui.popover;
    if (p.form.hidden) return;
    p.form.hidden = true;
    ui.marker.hidden = true;
    state.draft = null;
    p.text.value = '';
    p.error.textContent = '';
    if (refocus) ui.frame.focus();
  }

  async function submitComment() {
    const p = ui.popover;
    const click = state.draft;
    const text = p.text.value.trim();
    if (!click) return;
    if (!text) {
      p.error.textContent = 'Write something first.';
      p.text.focus();
      return;
    }
    const author = p.author.value.trim();
    rememberAuthor(author);
    const body = {
      text,
      versionId: state.latestVersionId,
      filename: click.file || state.currentFile,
      x: click.x, y: click.y, selector: click.selector, elementHtml: click.elementHtml,
    };
    if (author) body.author = author; // absent → the server names the viewer "Guest"
    p.submit.disabled = true;
    p.error.textContent = '';
    try {
      const { res, data } = await postJson(`${boot.api}/comments`, body);
      if (res.ok && data?.success) {
        addComment(data.comment);
        closePopover({ refocus: true });
        toast('Comment posted');
      } else if (res.status === 429) {
        p.error.textContent = 'Slow down a little';
      } else {
        p.error.textContent = data?.message || data?.error || `Could not post the comment (HTTP ${res.status}).`;
      }
    } catch {
      p.error.textContent = 'Could not reach the server. Try again.';
    } finally {
      p.submit.disabled = false;
    }
  }

  /* ---------- reactions ---------- */

  function renderReactions() {
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
    renderReactions();
    button.classList.remove('pop');
    void button.offsetWidth; // restart the animation
    button.classList.add('pop');
    try {
      const { res, data } = await postJson(`${boot.api}/reactions`, { increments: { [emoji]: 1 } });
      if (res.ok && data?.reactions) state.reactions = data.reactions;
      else {
        state.reactions = before;
        toast(res.status === 429 ? 'Slow down a little' : 'Could not save the reaction');
      }
    } catch {
      state.reactions = before;
      toast('Could not save the reaction');
    }
    renderReactions();
    setTimeout(() => button.removeAttribute('aria-disabled'), 600);
  }

  /* ---------- frame & presentation ---------- */

  function loadFrame(file, bust) {
    state.currentFile = file;
    // Same path for a new version: the query makes sure no cached copy of the old one is shown.
    ui.frame.src = boot.frameBase + encodePath(file) + (bust ? `?v=${encodeURIComponent(bust)}` : '');
  }

  function startPresentation() {
    state.presenting = true;
    setCommenting(false);
    setPanel(false, { focusList: false });
    renderComments();
    ui.launch.hidden = true;
    document.body.classList.add('presenting');
    const maximise = () => {
      document.body.classList.add('maximised');
      ui.exit.hidden = false;
    };
    const request = ui.stage.requestFullscreen?.({ navigationUI: 'hide' });
    if (request) request.catch(maximise);
    else maximise();
    ui.frame.focus(); // so arrow keys reach the deck at once
  }

  function endPresentation() {
    if (!state.presenting) return;
    state.presenting = false;
    document.body.classList.remove('presenting', 'maximised');
    ui.exit.hidden = true;
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    ui.launch.hidden = !state.presentationOnly;
    renderComments();
  }

  document.addEventListener('fullscreenchange', () => {
    if (!document.fullscreenElement && !document.body.classList.contains('maximised')) endPresentation();
  });

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
    if (!ui.popover.form.hidden) closePopover({ refocus: true });
    else if (!ui.panel.hidden) setPanel(false);
    else if (state.commenting) setCommenting(false);
    else if (document.body.classList.contains('maximised')) endPresentation();
  });

  /* ---------- analytics ---------- */

  // The owner previewing is not an audience: don't let it inflate views.
  const analytics = boot.preview ? { stop() {} } : startAnalytics();

  function startAnalytics() {
    const url = `${boot.api}/analytics`;
    let visibleMs = 0; // visible time not yet reported
    let since = document.visibilityState === 'visible' ? performance.now() : null;
    let timer = null;
    let stopped = false;

    postJson(url, { isInitial: true, device: innerWidth < 768 ? 'mobile' : 'desktop' }).catch(() => {});

    const pending = () => visibleMs + (since === null ? 0 : performance.now() - since);
    const take = () => {
      const seconds = Math.round(pending() / 1000);
      visibleMs = 0;
      if (since !== null) since = performance.now();
      return seconds;
    };
    const schedule = () => {
      clearTimeout(timer);
      if (since !== null && !stopped) timer = setTimeout(tick, Math.max(0, BEACON_EVERY_MS - pending()));
    };
    function tick() {
      const seconds = take();
      if (seconds > 0) postJson(url, { sessionSeconds: seconds }).catch(() => {});
      schedule();
    }
    // Leaving: fetch may be cancelled with the page, sendBeacon is not. text/plain keeps it a
    // "simple" request (no preflight); the server parses the body as JSON anyway.
    function flush() {
      const seconds = take();
      if (seconds > 0) {
        navigator.sendBeacon(url, new Blob([JSON.stringify({ sessionSeconds: seconds })], { type: 'text/plain' }));
      }
    }
    const onVisibility = () => {
      if (stopped) return;
      if (document.visibilityState === 'hidden') {
        flush();
        since = null; // hidden time does not count
        clearTimeout(timer);
      } else {
        since = performance.now();
        schedule();
      }
    };
    const onPageHide = () => {
      if (!stopped && since !== null) flush();
    };
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('pagehide', onPageHide);
    schedule();
    return {
      stop() {
        stopped = true;
        clearTimeout(timer);
        document.removeEventListener('visibilitychange', onVisibility);
        window.removeEventListener('pagehide', onPageHide);
      },
    };
  }

  /* ---------- live updates ---------- */

  const events = new EventSource(`${boot.api}/events`);
  const on = (name, fn) => events.addEventListener(name, (e) => {
    let data;
    try {
      data = JSON.parse(e.data || '{}');
    } catch {
      return;
    }
    if (!state.closed) fn(data);
  });

  on('version', ({ latestVersionId, activeFileList }) => {
    if (!latestVersionId || latestVersionId === state.latestVersionId) return;
    state.latestVersionId = latestVersionId;
    if (Array.isArray(activeFileList)) state.files = activeFileList;
    // Comments belong to a version: the old version's pins would land on the wrong content.
    state.comments = state.comments.filter((c) => c.versionId === latestVersionId);
    closePopover();
    loadFrame(state.files.includes(state.currentFile) ? state.currentFile : state.entry, latestVersionId);
    renderComments();
    toast(`Updated to ${latestVersionId}`);
  });

  on('comments', ({ comments }) => {
    if (!Array.isArray(comments)) return;
    state.comments = comments;
    renderComments();
  });

  on('reactions', ({ reactions }) => {
    if (!reactions || typeof reactions !== 'object') return;
    state.reactions = reactions;
    renderReactions();
  });

  on('meta', (meta) => {
    const privacyChanged = typeof meta.isPrivate === 'boolean' && typeof state.isPrivate === 'boolean'
      && meta.isPrivate !== state.isPrivate;
    if ((meta.status === 'draft' && !boot.preview) || privacyChanged) {
      location.reload(); // the server decides what this viewer may see now
      return;
    }
    if (typeof meta.isPrivate === 'boolean') state.isPrivate = meta.isPrivate;
    if (typeof meta.title === 'string' && meta.title !== state.title) {
      state.title = meta.title;
      ui.title.textContent = meta.title;
      ui.title.title = meta.title;
      ui.frame.title = meta.title;
      ui.launch.querySelector('.launch-title').textContent = meta.title;
      document.title = meta.title;
    }
    if (typeof meta.allowComments === 'boolean' && meta.allowComments !== state.allowComments) {
      state.allowComments = meta.allowComments;
      if (!meta.allowComments) setCommenting(false);
      renderComments();
    }
    if (typeof meta.presentationModeOnly === 'boolean') {
      state.presentationOnly = meta.presentationModeOnly;
      if (!state.presenting) ui.launch.hidden = !state.presentationOnly;
    }
  });

  on('deleted', () => {
    state.closed = true;
    events.close();
    analytics.stop();
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    renderMissing();
  });

  /* ---------- first paint ---------- */

  renderReactions();
  renderComments();
  setInterval(() => {
    for (const t of ui.list.querySelectorAll('time[data-ago]')) t.textContent = ago(t.dataset.ago);
  }, 60_000);
}

/* ---------- entry ---------- */

switch (boot.view) {
  case 'content':
    if (boot.frameBase) renderContent();
    else renderMissing();
    break;
  case 'gate':
    renderGate();
    break;
  case 'draft':
    renderDraft();
    break;
  default:
    renderMissing();
}
