/*
 * folio local dashboard: lists the folios of this server with their engagement.
 * Polls GET /api/files every 10 s. Cards are keyed by folio id and only replaced when their data
 * changes, so a refresh never steals keyboard focus or resets a "Copied" hint mid-read.
 */

import { ago, h } from '/_folio/ui.js';

const REFRESH_MS = 10_000;
const EMOJI = ['👍', '❤️', '💡', '🔥'];

const els = {
  list: document.getElementById('folios'),
  error: document.getElementById('error'),
  summary: document.getElementById('summary'),
  updated: document.getElementById('updated'),
};
const cards = new Map(); // id -> { key, el }
let timer = null;
let loadedOnce = false;

/* ---------- helpers ---------- */



/** 72 → "1m 12s", 3725 → "1h 2m", 9 → "9s". */
function duration(seconds) {
  const s = Math.round(Number(seconds) || 0);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

function bytes(n) {
  n = Number(n) || 0;
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < units.length - 1);
  return `${n < 10 ? n.toFixed(1) : Math.round(n)} ${units[i]}`;
}

const number = new Intl.NumberFormat();
const shareUrl = (id) => new URL(`/share/${encodeURIComponent(id)}`, location.origin).href;

const LOCK = '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="4" y="10" width="16" height="11" rx="2"/><path d="M8 10V7a4 4 0 0 1 8 0v3"/></svg>';

/* ---------- clipboard ---------- */

async function copy(text) {
  // navigator.clipboard needs a secure context: fine on localhost, not on a LAN IP over http.
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = h('textarea', { readonly: true, class: 'offscreen' });
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

async function onCopy(event) {
  const button = event.currentTarget;
  const label = button.querySelector('.label');
  try {
    await copy(button.dataset.url);
    label.textContent = 'Copied';
  } catch {
    label.textContent = 'Copy failed';
  }
  button.classList.add('done');
  setTimeout(() => {
    label.textContent = 'Copy link';
    button.classList.remove('done');
  }, 1800);
}

/* ---------- rendering ---------- */

function card(f) {
  const a = f.analytics || {};
  const views = Number(a.views) || 0;
  const mobile = Number(a.mobileViews) || 0;
  const desktop = Number(a.desktopViews) || 0;
  const mobileShare = mobile + desktop ? Math.round((mobile / (mobile + desktop)) * 100) : 0;
  const published = f.status === 'published';
  const reactions = f.reactions || {};
  const extra = Object.keys(reactions).filter((e) => !EMOJI.includes(e) && reactions[e] > 0);
  const titleId = `t-${f.id}`;

  const lock = h('span', { class: 'lock', title: 'Private: viewers need the access key', 'aria-label': 'Private' });
  lock.innerHTML = LOCK; // constant markup, never data

  const stat = (label, value, extra) => h('div', { class: 'stat' }, h('dt', {}, label), h('dd', {}, value), extra);

  return h('article', { class: 'card', 'aria-labelledby': titleId, 'data-id': f.id },
    h('div', { class: 'card-head' },
      h('h2', { id: titleId, title: f.title || 'Untitled' }, f.title || 'Untitled'),
      h('span', { class: `status ${published ? 'published' : 'draft'}` }, published ? 'Published' : 'Draft'),
      f.isPrivate && lock),
    f.description && h('p', { class: 'desc' }, f.description),
    h('p', { class: 'meta' },
      'Updated ', h('time', { datetime: f.updatedAt, 'data-ago': f.updatedAt, title: new Date(f.updatedAt).toLocaleString() }, ago(f.updatedAt, '—')),
      ' · ', h('span', {}, f.latestVersionId || 'v?', Number(f.versionCount) > 1 ? ` of ${f.versionCount} versions` : ''),
      ' · ', h('span', {}, bytes(f._storageBytes))),
    h('dl', { class: 'stats' },
      stat('Views', number.format(views)),
      stat('Avg. time', duration(a.avgTimeSeconds)),
      stat('Mobile / desktop', `${number.format(mobile)} / ${number.format(desktop)}`,
        h('div', { class: 'split', role: 'img', title: `${mobileShare}% mobile`, 'aria-label': `${mobileShare}% of views on mobile` },
          h('span', { style: `width:${mobileShare}%` })))),
    h('ul', { class: 'reactions', 'aria-label': 'Reactions' },
      [...EMOJI, ...extra].map((e) => {
        const n = Number(reactions[e]) || 0;
        return h('li', { class: n ? '' : 'zero', 'aria-label': `${e} ${n}` },
          h('span', { 'aria-hidden': 'true' }, e), h('b', { 'aria-hidden': 'true' }, String(n)));
      })),
    h('div', { class: 'actions' },
      published && h('a', { class: 'btn primary', href: `/share/${encodeURIComponent(f.id)}`, target: '_blank', rel: 'noopener' }, 'Open share page'),
      h('a', { class: 'btn', href: `/share/${encodeURIComponent(f.id)}?preview=1`, target: '_blank', rel: 'noopener' }, 'Preview'),
      h('button', {
        class: 'btn', type: 'button', 'data-url': shareUrl(f.id), onclick: onCopy,
        'aria-label': `Copy share link of ${f.title || 'Untitled'}`,
      }, h('span', { class: 'label' }, 'Copy link'))));
}

function emptyState() {
  const origin = location.origin;
  return h('div', { class: 'empty' },
    h('h2', {}, 'No folios yet'),
    h('p', {}, 'A folio is an HTML page (or a bundle of them) published from this machine. Create one from a terminal:'),
    h('pre', {}, h('code', {}, 'npx folio create "My deck" --html deck.html')),
    h('p', {}, 'or straight through the API:'),
    h('pre', {}, h('code', {},
      `curl -s ${origin}/api/files -H 'content-type: application/json' \\\n  -d '{"title": "Q3 review", "initialHtml": "<h1>Q3</h1>"}'`)),
    h('p', { class: 'muted' }, 'It shows up here within a few seconds.'));
}

function render(folios) {
  els.list.setAttribute('aria-busy', 'false');
  if (!folios.length) {
    cards.clear();
    els.list.replaceChildren(emptyState());
    els.summary.textContent = '';
    return;
  }
  els.list.querySelector('.empty, .loading')?.remove();

  const seen = new Set();
  folios.forEach((f, i) => {
    seen.add(f.id);
    const key = JSON.stringify(f);
    let entry = cards.get(f.id);
    if (!entry || entry.key !== key) {
      const el = card(f);
      if (entry) {
        // Keep focus on the same control when a card re-renders under the keyboard.
        const focused = entry.el.contains(document.activeElement) && document.activeElement.textContent;
        entry.el.replaceWith(el);
        if (focused) [...el.querySelectorAll('a, button')].find((b) => b.textContent === focused)?.focus();
      }
      entry = { key, el };
      cards.set(f.id, entry);
    }
    // Move only when out of place: moving a node in the DOM blurs what is focused inside it.
    if (els.list.children[i] !== entry.el) els.list.insertBefore(entry.el, els.list.children[i] ?? null);
  });
  for (const [id, entry] of cards) {
    if (!seen.has(id)) {
      entry.el.remove();
      cards.delete(id);
    }
  }
  for (const t of els.list.querySelectorAll('time[data-ago]')) t.textContent = ago(t.dataset.ago, '—');

  const views = folios.reduce((n, f) => n + (Number(f.analytics?.views) || 0), 0);
  const size = folios.reduce((n, f) => n + (Number(f._storageBytes) || 0), 0);
  els.summary.textContent =
    `${folios.length} folio${folios.length === 1 ? '' : 's'} · ${number.format(views)} views · ${bytes(size)}`;
}

/* ---------- loading ---------- */

async function load() {
  clearTimeout(timer);
  try {
    const res = await fetch('/api/files', { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    let data = null;
    try {
      data = await res.json();
    } catch {
      // not JSON: reported below with the status
    }
    if (!res.ok) throw new Error(data?.message || data?.error || `HTTP ${res.status}`);
    if (!Array.isArray(data)) throw new Error('Unexpected answer from /api/files');
    render(data);
    els.error.hidden = true;
    els.updated.textContent = `Refreshed ${new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })}`;
    loadedOnce = true;
  } catch (err) {
    // Keep the last good list on screen: a restarting server should not blank the page.
    els.error.hidden = false;
    els.error.textContent = `Could not load folios: ${err.message || err}. Retrying…`;
    if (!loadedOnce) {
      els.list.setAttribute('aria-busy', 'false');
      els.list.querySelector('.loading')?.remove();
    }
  }
  if (document.visibilityState === 'visible') timer = setTimeout(load, REFRESH_MS);
}

// No polling in a background tab; catch up at once when it comes back.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') load();
  else clearTimeout(timer);
});

load();
