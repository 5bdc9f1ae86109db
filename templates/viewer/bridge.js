/*
 * folio bridge — injected into every HTML file of a folio shown inside the share page's iframe.
 *
 * The iframe is sandboxed without allow-same-origin, so the share page cannot touch this document:
 * everything (where the viewer clicked, which file is shown, where pins go) crosses via postMessage.
 * It is a classic script (not a module) because it is injected into arbitrary author HTML, possibly
 * in <head>, and must read document.currentScript synchronously.
 */
(() => {
  'use strict';

  // Opened directly (not in the viewer): stay completely inert, the folio must behave as authored.
  if (window.parent === window) return;

  const script = document.currentScript || document.querySelector('script[data-folio-base]');
  if (!script) return;

  // The share page lives on the server origin; ours is opaque ("null"), so we name the target
  // explicitly: a folio that navigates its frame elsewhere cannot make us talk to a stranger.
  const serverOrigin = new URL(script.src, location.href).origin;
  const basePath = new URL(script.dataset.folioBase || '/', location.href).pathname;

  const PIN_Z = '2147483646';
  const MAX_HTML = 2000;

  let commenting = false;
  let pins = [];
  let host = null; // <folio-pins> element holding the shadow root
  let layer = null; // positioned container inside the shadow root
  let cursorStyle = null;
  let lastSize = { width: 0, height: 0 };

  const file = currentFile();

  function currentFile() {
    let path = location.pathname;
    if (path.startsWith(basePath)) path = path.slice(basePath.length);
    else path = path.replace(/^\/+/, '');
    try {
      path = decodeURIComponent(path);
    } catch {
      // A malformed escape is still a usable name for matching comments.
    }
    // A directory URL is served as its index file; comments must match that name.
    if (path === '' || path.endsWith('/')) path += 'index.html';
    return path;
  }

  function post(message) {
    try {
      window.parent.postMessage({ source: 'folio-bridge', ...message }, serverOrigin);
    } catch {
      // The parent went away (navigation): nothing to tell.
    }
  }

  function docSize() {
    const el = document.documentElement;
    return { width: el.scrollWidth, height: el.scrollHeight };
  }

  /* ---------- pins ---------- */

  const PIN_CSS = `
    :host { all: initial; }
    .layer { position: absolute; inset: 0 auto auto 0; width: 0; height: 0; pointer-events: none;
      font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    .pin { position: absolute; pointer-events: auto; transform: translate(-50%, -50%);
      width: 26px; height: 26px; border-radius: 50%; border: 2px solid #fff;
      background: #3b5bdb; color: #fff; font: 600 12px/22px system-ui, sans-serif; text-align: center;
      padding: 0; cursor: pointer; box-shadow: 0 2px 6px rgba(0,0,0,.35); transition: transform .15s; }
    .pin:hover, .pin:focus-visible { transform: translate(-50%, -50%) scale(1.15); z-index: 2; }
    .pin:focus-visible { outline: 3px solid #ffd43b; outline-offset: 2px; }
    .pin.flash { animation: flash 1.4s ease-out 1; z-index: 3; }
    @keyframes flash {
      0%, 60% { box-shadow: 0 0 0 0 rgba(59,91,219,.9), 0 2px 6px rgba(0,0,0,.35); }
      30% { box-shadow: 0 0 0 14px rgba(59,91,219,0), 0 2px 6px rgba(0,0,0,.35); }
      100% { box-shadow: 0 2px 6px rgba(0,0,0,.35); } }
    .tip { position: absolute; left: 30px; top: -6px; width: max-content; max-width: 260px;
      background: #1b1e24; color: #f1f3f5; border-radius: 8px; padding: 8px 10px; text-align: left;
      font-weight: 400; box-shadow: 0 6px 20px rgba(0,0,0,.3); display: none; white-space: pre-wrap;
      overflow-wrap: anywhere; }
    .pin.left .tip { left: auto; right: 30px; }
    .tip b { display: block; font-weight: 600; margin-bottom: 2px; }
    .pin:hover .tip, .pin:focus .tip, .pin.flash .tip { display: block; }
    @media (prefers-reduced-motion: reduce) { .pin, .pin.flash { transition: none; animation: none; } }
  `;

  function ensureLayer() {
    if (host && host.isConnected) return;
    host = document.createElement('folio-pins');
    // Inline !important: the folio's own CSS may style unknown elements or use * selectors.
    for (const [k, v] of Object.entries({
      position: 'absolute', top: '0', left: '0', width: '0', height: '0', margin: '0', padding: '0',
      border: '0', display: 'block', overflow: 'visible', 'pointer-events': 'none', 'z-index': PIN_Z,
    })) host.style.setProperty(k, v, 'important');
    host.setAttribute('aria-label', 'Comment pins');
    const root = host.attachShadow({ mode: 'open' }); // open: tests and tools may inspect the pins
    const style = document.createElement('style');
    style.textContent = PIN_CSS;
    layer = document.createElement('div');
    layer.className = 'layer';
    root.append(style, layer);
    // On <html> rather than <body>: a positioned body with margins would offset the pins.
    document.documentElement.appendChild(host);
  }

  function renderPins() {
    ensureLayer();
    const { width, height } = docSize();
    layer.replaceChildren();
    for (const p of pins) {
      const pin = document.createElement('button');
      pin.type = 'button';
      pin.className = 'pin' + (p.x > 60 ? ' left' : '');
      pin.dataset.commentId = p.id;
      pin.style.left = (p.x / 100) * width + 'px';
      pin.style.top = (p.y / 100) * height + 'px';
      pin.setAttribute('aria-label', `Comment ${p.n} by ${p.author || 'Guest'}: ${p.text}`);
      pin.textContent = String(p.n);
      const tip = document.createElement('span');
      tip.className = 'tip';
      tip.setAttribute('aria-hidden', 'true'); // the aria-label already says it
      const who = document.createElement('b');
      who.textContent = p.author || 'Guest';
      tip.append(who, document.createTextNode(p.text));
      pin.appendChild(tip);
      pin.addEventListener('click', (e) => {
        e.stopPropagation();
        post({ type: 'pin-click', id: p.id });
      });
      layer.appendChild(pin);
    }
    host.setAttribute('data-pin-count', String(pins.length));
  }

  function focusPin(id) {
    if (!layer) return;
    const pin = [...layer.querySelectorAll('.pin')].find((el) => el.dataset.commentId === String(id));
    if (!pin) return;
    const smooth = !matchMedia('(prefers-reduced-motion: reduce)').matches;
    pin.scrollIntoView({ block: 'center', inline: 'center', behavior: smooth ? 'smooth' : 'auto' });
    pin.classList.remove('flash');
    void pin.offsetWidth; // restart the animation when the same pin is focused twice
    pin.classList.add('flash');
    setTimeout(() => pin.classList.remove('flash'), 1600);
  }

  /* ---------- comment mode ---------- */

  function selectorFor(el) {
    if (!(el instanceof Element)) return 'body';
    const uniqueId = (node) =>
      node.id && document.querySelectorAll('#' + CSS.escape(node.id)).length === 1;
    const parts = [];
    for (let node = el; node; node = node.parentElement) {
      if (node === document.body) { parts.unshift('body'); break; }
      if (node === document.documentElement) { parts.unshift('html'); break; }
      if (uniqueId(node)) { parts.unshift('#' + CSS.escape(node.id)); break; }
      let i = 1;
      for (let s = node.previousElementSibling; s; s = s.previousElementSibling) {
        if (s.localName === node.localName) i++;
      }
      parts.unshift(`${node.localName}:nth-of-type(${i})`);
    }
    return parts.join(' > ');
  }

  const pct = (v, total) =>
    total > 0 ? Math.round(Math.min(100, Math.max(0, (v / total) * 100)) * 100) / 100 : 0;

  function isOwnPin(event) {
    return host !== null && event.composedPath().includes(host);
  }

  function onClick(event) {
    if (isOwnPin(event)) return; // pins stay usable while commenting
    event.preventDefault();
    event.stopImmediatePropagation();
    const target = event.target instanceof Element ? event.target : document.body;
    let { pageX, pageY, clientX, clientY } = event;
    // A keyboard "click" (Enter on a focused link) has no pointer position: use the element's centre.
    if (event.detail === 0 && pageX === 0 && pageY === 0) {
      const r = target.getBoundingClientRect();
      clientX = r.left + r.width / 2;
      clientY = r.top + r.height / 2;
      pageX = clientX + scrollX;
      pageY = clientY + scrollY;
    }
    const { width, height } = docSize();
    post({
      type: 'click',
      x: pct(pageX, width),
      y: pct(pageY, height),
      selector: selectorFor(target),
      elementHtml: (target.outerHTML || '').slice(0, MAX_HTML),
      file,
      // Where in the frame's viewport it happened, so the parent can put its form next to it.
      clientX: Math.round(clientX),
      clientY: Math.round(clientY),
    });
  }

  // The folio must not react to the presses that make a comment (slides advancing, links opening).
  function swallow(event) {
    if (isOwnPin(event)) return;
    event.preventDefault();
    event.stopImmediatePropagation();
  }

  function onKey(event) {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopImmediatePropagation();
    setCommenting(false);
    post({ type: 'mode-exit' });
  }

  const SWALLOWED = ['pointerdown', 'pointerup', 'mousedown', 'mouseup', 'dblclick', 'auxclick', 'submit'];

  function setCommenting(on) {
    if (on === commenting) return;
    commenting = on;
    const method = on ? 'addEventListener' : 'removeEventListener';
    window[method]('click', onClick, true);
    window[method]('keydown', onKey, true);
    for (const type of SWALLOWED) window[method](type, swallow, true);
    if (on) {
      cursorStyle = document.createElement('style');
      cursorStyle.textContent = '*, *::before, *::after { cursor: crosshair !important; }';
      (document.head || document.documentElement).appendChild(cursorStyle);
    } else {
      cursorStyle?.remove();
      cursorStyle = null;
    }
  }

  /* ---------- a fresh frame token for links ---------- */

  // A private folio's frame base carries a token that lasts minutes; the share page keeps a fresh
  // one (share-frame.js) and sends it here, so links within the folio follow it rather than the
  // one this page was loaded under. Anything else (a script setting location) gets the server's
  // "expired" page, which asks the share page to reload the frame.
  let freshBase = null;
  const here = new URL(location.href);

  function onLinkClick(event) {
    if (!freshBase || commenting || !(event.target instanceof Element)) return;
    const link = event.target.closest('a[href]');
    if (!link || typeof link.href !== 'string') return; // SVG links keep theirs
    let url;
    try {
      url = new URL(link.href, location.href);
    } catch {
      return;
    }
    if (url.host !== here.host || !url.pathname.startsWith(basePath) || url.pathname.startsWith(freshBase)) return;
    link.href = freshBase + url.pathname.slice(basePath.length) + url.search + url.hash;
  }

  /* ---------- wiring ---------- */

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const data = event.data;
    if (!data || data.source !== 'folio-viewer') return;
    switch (data.type) {
      case 'mode':
        setCommenting(Boolean(data.commenting));
        break;
      case 'pins':
        pins = Array.isArray(data.pins) ? data.pins : [];
        if (document.documentElement) renderPins();
        break;
      case 'focus':
        focusPin(data.id);
        break;
      case 'base':
        if (typeof data.base === 'string' && data.base.startsWith('/v/') && data.base.endsWith('/')) freshBase = data.base;
        break;
    }
  });

  let resizeQueued = false;
  function onResize() {
    if (resizeQueued) return;
    resizeQueued = true;
    requestAnimationFrame(() => {
      resizeQueued = false;
      const size = docSize();
      if (size.width === lastSize.width && size.height === lastSize.height) return;
      lastSize = size;
      if (pins.length) renderPins(); // positions are percentages of the document size
      post({ type: 'resize', ...size });
    });
  }

  function start() {
    window.addEventListener('click', onLinkClick, true);
    lastSize = docSize();
    post({ type: 'ready', file, ...lastSize });
    if ('ResizeObserver' in window) {
      const ro = new ResizeObserver(onResize);
      ro.observe(document.documentElement);
      if (document.body) ro.observe(document.body);
    }
    window.addEventListener('resize', onResize);
    // Late images and fonts change the height without always resizing <body>'s box.
    window.addEventListener('load', onResize);
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start, { once: true });
  } else {
    start();
  }
})();
