/*
 * folio share page. The server renders the first screen (the bar and, for a folio that may be
 * seen, its frame, already loading) and embeds the boot JSON; everything else is rendered here.
 *
 * The folio itself runs in a sandboxed iframe with an opaque origin (no allow-same-origin, ever):
 * it can't read our cookies or DOM, and we can't read its DOM either. The bridge (src/web/frame/),
 * injected into each of its HTML files, is our only channel to it (postMessage, shapes documented
 * at the message handler in share-content.js).
 *
 * One bundle (src/web/build/web-bundles.ts) of modules with one job each:
 *   share-notices.js       missing (a draft too, to anyone but its owner), draft and the access-key gate
 *   share-access.js        access withdrawn (revoked, a dropped stream): the notice, then
 *                          polling until the folio can be seen again; the place kept meanwhile
 *   share-content.js       the content view: frame, bar, bridge messages, toasts, keyboard
 *   share-comments.js      pins, the comments panel and comment mode, with its parts
 *                          share-comment-sets.js (what shows where, the full list kept fresh),
 *                          share-comment-list.js (groups by file and slide, outdated, history),
 *                          share-thread.js (a thread: replies, reply box, resolve/delete)
 *   share-moderation.js    who may resolve/delete here; authors' tokens kept in this browser
 *   share-composer.js      the new-comment form
 *   share-reactions.js     reaction buttons (one per emoji per viewer, a second click takes it back)
 *   share-presentation.js  presentation mode
 *   share-live.js          the event stream (new versions, comments, reactions, metadata, revoked)
 *   share-analytics.js     view and time beacons
 *   share-frame.js         the frame's base, with its short-lived token kept fresh
 *   frame-storage.js       what the folio keeps in localStorage, kept for its next view
 *   ../common/             small helpers shared with the dashboard (ui.js, icons.js, post-json.js)
 */

import '../common/tokens.css'
import './share.css'
import { pollUntilViewable } from './share-access.js'
import { renderContent } from './share-content.js'
import { renderDraft, renderGate, renderLinkEnded, renderMissing } from './share-notices.js'

const app = document.getElementById('app')
const boot = readBoot()

function readBoot() {
  try {
    return JSON.parse(document.getElementById('folio-boot')?.textContent || '{}')
  } catch {
    return { view: 'missing' }
  }
}

/** A draft or gated folio: the notice follows what GET /public says, until the folio can be seen. */
function waitFor(shown) {
  pollUntilViewable(boot, (reason) => {
    if (reason === shown) return
    shown = reason
    if (reason === 'deleted') renderMissing(app)
    else if (reason === 'draft') renderDraft(app)
    else renderGate(app, boot)
  })
}

switch (boot.view) {
  case 'content':
    if (boot.frameBase) renderContent(app, boot)
    else renderMissing(app)
    break
  case 'gate':
    renderGate(app, boot)
    waitFor('private') // made public meanwhile: the folio appears without a key
    break
  case 'link-ended':
    renderLinkEnded(app, boot.linkStatus)
    break
  case 'draft':
    renderDraft(app)
    waitFor('draft')
    break
  default:
    renderMissing(app)
    // A draft is missing to anyone but its owner: once it is published (or there is anything to
    // say about it) the page the server renders now says so.
    if (boot.api) pollUntilViewable(boot, (reason) => reason !== 'deleted' && location.reload())
}
