/*
 * Which comment shows where (the rules of "What counts where", shared with the brief and the
 * dashboard):
 *   on the page  open, and anchored on the latest version: a pin, and listed under its file/slide
 *   outdated     open, but its element is gone from the latest version: listed, never a pin
 *   history      (behind a toggle) open comments of earlier versions, and resolved ones
 * Replies follow their thread. The page's own list (boot data, `comments` events) is what is on
 * the page; the rest comes from GET /comments (every comment a viewer may see), fetched again
 * shortly after each change, so the counts agree with the brief and the dashboard.
 */

const REFRESH_AFTER_MS = 400;
// GET /comments shares the viewer's rate limit with posting comments: a busy folio must not use
// it up, so at most one fetch every few seconds.
const REFRESH_EVERY_MS = 3000;
const LIST_LIMIT = 500;

export const isOpen = (c) => !c.resolved && !c.deletedAt;
/** The newest version the comment's element was found on. */
export const anchoredOn = (c) => c.anchoredVersionId || c.versionId;

/** Top-level comments with their replies, both oldest first. */
function threadsOf(comments, all) {
  return [...comments].sort(byTime).map((c) => ({
    comment: c,
    replies: all.filter((r) => r.parentId === c.id).sort(byTime),
  }));
}

const byTime = (a, b) => String(a.createdAt).localeCompare(String(b.createdAt)) || String(a.id).localeCompare(String(b.id));

/**
 * Everything the panel and the pins need, from the page's list (`state.comments`) and, once
 * fetched, every visible comment (`state.allComments`).
 */
export function commentSets(state) {
  const listed = state.comments.filter((c) => isOpen(c) && !c.outdated);
  const listedIds = new Set(listed.map((c) => c.id));
  const rest = (state.allComments || []).filter((c) => !listedIds.has(c.id));
  const known = [...listed, ...rest];
  const byId = new Map(known.map((c) => [c.id, c]));
  const knownIds = new Set(byId.keys());
  // What is on the page is the page's list, fresher than the full one after a change (a
  // comment of the latest version missing from it was resolved or deleted a moment ago).
  const onLatest = (c) => isOpen(c) && !c.outdated && anchoredOn(c) === state.latestVersionId;
  const page = listed;
  const stale = new Set(rest.filter((c) => !c.parentId && onLatest(c)).map((c) => c.id));
  const outdated = rest.filter((c) => isOpen(c) && c.outdated);
  const history = rest.filter((c) => !onLatest(c) && !(isOpen(c) && c.outdated));
  // A reply goes where its thread goes: the sets below hold top-level comments only.
  const topOf = (list) => list.filter((c) => !c.parentId || !knownIds.has(c.parentId));
  return {
    page: threadsOf(topOf(page), known),
    outdated: threadsOf(topOf(outdated), known),
    history: threadsOf(topOf(history), known),
    // Replies count while their thread is open (as the brief and the dashboard count them).
    openCount: known.filter((c) => !stale.has(c.id) && !stale.has(c.parentId) && isOpen(c)
      && (!c.parentId || !knownIds.has(c.parentId) || isOpen(byId.get(c.parentId)))).length,
    // "All comments resolved" rather than "No comments yet" once there have been some.
    everCommented: known.length > 0,
  };
}

/** Keeps `state.allComments` fresh: now, and a moment after each change it is told of. */
export function createCommentHistory(view) {
  const { boot, state } = view;
  let timer = null;
  let inFlight = false;
  let again = false;
  let lastFetch = 0;

  async function fetchAll() {
    if (state.closed) return;
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    lastFetch = Date.now();
    try {
      const res = await fetch(`${boot.api}/comments?limit=${LIST_LIMIT}`, { credentials: 'same-origin', cache: 'no-store' });
      if (res.ok) {
        const list = await res.json();
        if (Array.isArray(list) && !state.closed) {
          state.allComments = list;
          view.comments.render();
        }
      }
    } catch {
      // Offline for a moment: the next change asks again.
    } finally {
      inFlight = false;
      if (again) {
        again = false;
        refresh();
      }
    }
  }

  /** Soon, once: several changes in a row cost one request. */
  function refresh() {
    clearTimeout(timer);
    timer = setTimeout(fetchAll, Math.max(REFRESH_AFTER_MS, lastFetch + REFRESH_EVERY_MS - Date.now()));
  }

  return { refresh, now: fetchAll, stop: () => clearTimeout(timer) };
}
