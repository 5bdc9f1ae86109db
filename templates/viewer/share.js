/*
 * folio share page. Everything dynamic is rendered here from the boot JSON the server embeds,
 * so the HTML template stays a shell with two placeholders.
 *
 * The folio itself runs in a sandboxed iframe with an opaque origin (no allow-same-origin, ever):
 * it can't read our cookies or DOM, and we can't read its DOM either. bridge.js, injected into
 * each of its HTML files, is our only channel to it (postMessage, shapes documented at the
 * message handler in share-content.js).
 *
 * The page is plain ES modules served from /_folio/ (no build step), one job each:
 *   share-notices.js       missing, draft and the access-key gate
 *   share-content.js       the content view: frame, bar, bridge messages, toasts, keyboard
 *   share-comments.js      pins, the comments panel and comment mode
 *   share-composer.js      the new-comment form
 *   share-reactions.js     reaction buttons
 *   share-presentation.js  presentation mode
 *   share-live.js          the event stream (new versions, comments, reactions, metadata)
 *   share-analytics.js     view and time beacons
 *   share-frame.js         the frame's base, with its short-lived token kept fresh
 *   icons.js, post-json.js, ui.js (shared with the dashboard): small helpers
 */

import { renderContent } from './share-content.js';
import { renderDraft, renderGate, renderMissing } from './share-notices.js';

const app = document.getElementById('app');
const boot = readBoot();

function readBoot() {
  try {
    return JSON.parse(document.getElementById('folio-boot')?.textContent || '{}');
  } catch {
    return { view: 'missing' };
  }
}

switch (boot.view) {
  case 'content':
    if (boot.frameBase) renderContent(app, boot);
    else renderMissing(app);
    break;
  case 'gate':
    renderGate(app, boot);
    break;
  case 'draft':
    renderDraft(app);
    break;
  default:
    renderMissing(app);
}
