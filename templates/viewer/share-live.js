/*
 * Live updates over the folio's event stream: a new version reloads the frame where the viewer
 * was (file, hash, scroll; no page reload), comments and reactions replace what is shown,
 * metadata changes the bar. Access going away (revoked, deleted, a stream that drops and is
 * refused) is share-access.js's.
 */

export function startLive(view) {
  const { boot, state, ui } = view;
  let events = null;

  function open() {
    events = new EventSource(`${boot.api}/events`);
    const on = (name, fn) => events.addEventListener(name, (e) => {
      let data;
      try {
        data = JSON.parse(e.data || '{}');
      } catch {
        return;
      }
      if (!state.closed) fn(data);
    });

    on('version', async ({ latestVersionId, activeFileList }) => {
      if (!latestVersionId || latestVersionId === state.latestVersionId) return;
      state.latestVersionId = latestVersionId;
      if (Array.isArray(activeFileList)) state.files = activeFileList;
      view.composer.close();
      await view.askWhere();
      if (state.closed || state.latestVersionId !== latestVersionId) return; // gone, or a newer one came
      const stays = state.files.includes(state.currentFile);
      const where = stays && state.where?.file === state.currentFile ? state.where : {};
      // The pins stay until the `comments` event after this one says where the server found
      // their elements in the new version.
      view.loadFrame(stays ? state.currentFile : state.entry, latestVersionId, { hash: where.hash || '', scroll: where.scroll });
      view.comments.render();
      view.history.refresh();
      view.toast(`Updated to ${latestVersionId}`);
    });

    on('comments', ({ comments }) => {
      if (!Array.isArray(comments)) return;
      state.comments = comments;
      // A comment that left this list was resolved, deleted or outdated: which, the next fetch
      // says; until then it stays what the page knew of it (never "No comments yet" meanwhile).
      view.history.learn(comments);
      view.comments.render();
      view.history.refresh();
    });

    on('reactions', ({ reactions }) => {
      if (!reactions || typeof reactions !== 'object') return;
      state.reactions = reactions;
      view.reactions.render();
    });

    on('meta', (meta) => {
      if (meta.status === 'draft' && !boot.preview) {
        view.access.withdraw('draft');
        return;
      }
      if (typeof meta.isPrivate === 'boolean' && meta.isPrivate !== state.isPrivate) {
        state.isPrivate = meta.isPrivate;
        view.access.check(); // made private: is this viewer one who holds the key?
      }
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

    on('revoked', ({ reason }) => {
      if (!boot.preview || reason === 'deleted') view.access.withdraw(typeof reason === 'string' ? reason : 'private');
    });

    on('deleted', () => view.access.withdraw('deleted'));

    // The server closed the stream, or a reconnect was refused (403/404): the folio may not be
    // this viewer's to see any more. Never leave its content on screen on a guess: ask.
    events.addEventListener('error', () => {
      if (!state.closed) view.access.check();
    });
  }

  open();
  return {
    /** Still allowed after a dropped stream: open it again if the browser gave up on it. */
    revive() {
      if (!state.closed && events.readyState === EventSource.CLOSED) open();
    },
    stop() {
      events.close();
    },
  };
}
