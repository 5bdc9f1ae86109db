/*
 * Live updates over the folio's event stream: a new version reloads the frame (no page reload),
 * comments and reactions replace what is shown, metadata changes the bar, a deletion ends the view.
 */

import { renderMissing } from './share-notices.js';

export function startLive(view, analytics) {
  const { app, boot, state, ui } = view;
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
    view.composer.close();
    view.loadFrame(state.files.includes(state.currentFile) ? state.currentFile : state.entry, latestVersionId);
    view.comments.render();
    view.toast(`Updated to ${latestVersionId}`);
  });

  on('comments', ({ comments }) => {
    if (!Array.isArray(comments)) return;
    state.comments = comments;
    view.comments.render();
  });

  on('reactions', ({ reactions }) => {
    if (!reactions || typeof reactions !== 'object') return;
    state.reactions = reactions;
    view.reactions.render();
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
      if (!meta.allowComments) view.comments.setCommenting(false);
      view.comments.render();
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
    view.frameAccess.stop();
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    renderMissing(app);
  });
}
