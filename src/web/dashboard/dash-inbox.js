/*
 * The author's inbox: every comment of every version, per folio, then per page or slide, threads
 * newest first with their replies under them. The owner resolves, reopens, deletes (undoable:
 * viewers no longer see it) and restores here, or removes a deleted comment for good.
 */

import { ago, h } from '../common/ui.js'
import { changeComment, removeComment } from './dash-api.js'
import { confirmDialog } from './dash-dialog.js'
import { plural } from './dash-dom.js'
import { byPlace, commentLink, counts, DELETED_BY, filterTest, stateOf, threads } from './dash-comments.js'

const snippet = (text, max = 60) => {
  const flat = String(text || '')
    .replace(/\s+/g, ' ')
    .trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

const badge = (label, kind, title) => h('span', { class: `badge ${kind}`, title }, label)

function badges(f, c) {
  switch (stateOf(c, f.latestVersionId)) {
    case 'deleted':
      return badge(DELETED_BY[c.deletedBy] || 'Deleted', 'deleted', 'Viewers no longer see it; Restore brings it back')
    case 'resolved':
      return badge('Resolved', 'resolved')
    case 'outdated':
      return badge('Outdated', 'outdated', `Its element is gone from ${f.latestVersionId}: it is listed, not pinned`)
    case 'earlier':
      return badge(`On ${c.anchoredVersionId || c.versionId}`, 'earlier', `Made on an earlier version; the latest is ${f.latestVersionId}`)
    default:
      return null
  }
}

function actions(f, c, app, isReply) {
  const who = `${c.author || 'Guest'}: ${snippet(c.text, 40)}`
  const act = (key, label, aria, onclick, cls = 'btn small') =>
    h('button', { type: 'button', class: cls, 'data-key': `${c.id}:${key}`, 'aria-label': `${aria} (${who})`, onclick }, label)
  if (c.deletedAt) {
    return [
      act('delete', 'Restore', 'Restore', () => app.run(() => changeComment(f.id, c.id, { deleted: false }), { success: 'Restored: viewers see it again.' })),
      act(
        'remove',
        'Delete for good',
        'Delete for good',
        async () => {
          const ok = await confirmDialog({
            title: 'Delete this comment for good?',
            message: `“${snippet(c.text)}” by ${c.author || 'Guest'} will be removed for good. This cannot be undone.`,
            confirmLabel: 'Delete for good',
          })
          if (ok) await app.run(() => removeComment(f.id, c.id), { success: 'Comment deleted for good.' })
        },
        'btn small danger-outline',
      ),
    ]
  }
  return [
    !isReply &&
      (c.resolved
        ? act('resolve', 'Reopen', 'Reopen', () => app.run(() => changeComment(f.id, c.id, { resolved: false }), { success: 'Reopened.' }))
        : act('resolve', 'Resolve', 'Resolve', () => app.run(() => changeComment(f.id, c.id, { resolved: true }), { success: 'Resolved.' }))),
    act('delete', 'Delete', 'Delete', () =>
      app.run(() => changeComment(f.id, c.id, { deleted: true }), {
        success: 'Deleted: viewers no longer see it.',
        undo: () => app.run(() => changeComment(f.id, c.id, { deleted: false }), { success: 'Restored.' }),
      }),
    ),
  ]
}

function commentItem(f, c, app, { replies = [], isReply = false } = {}) {
  const quote = c.anchor?.quote
  return h(
    'li',
    { class: `comment state-${stateOf(c, f.latestVersionId)}${isReply ? ' reply' : ''}`, 'data-comment-id': c.id },
    h(
      'div',
      { class: 'comment-head' },
      h('b', { class: 'author' }, c.author || 'Guest'),
      h('time', { datetime: c.createdAt, 'data-ago': c.createdAt, title: new Date(c.createdAt).toLocaleString() }, ago(c.createdAt, '—')),
      h('span', { class: 'ver', title: `Made on ${c.versionId}` }, c.versionId),
      badges(f, c),
    ),
    quote && h('p', { class: 'quote' }, `on “${snippet(quote, 80)}”`),
    h('p', { class: 'text' }, c.text),
    h(
      'div',
      { class: 'comment-actions' },
      actions(f, c, app, isReply),
      h(
        'a',
        {
          class: 'btn small link',
          href: commentLink(f.id, c.id),
          target: '_blank',
          rel: 'noopener',
          'data-key': `${c.id}:open`,
          'aria-label': `Open on the share page (${c.author || 'Guest'}: ${snippet(c.text, 40)})`,
        },
        'Open ↗',
      ),
    ),
    replies.length > 0 &&
      h(
        'ol',
        { class: 'replies', 'aria-label': `${plural(replies.length, 'reply', 'replies')}` },
        replies.map((r) => commentItem(f, r, app, { isReply: true })),
      ),
  )
}

/**
 * One folio's part of the inbox. `limit`: how many threads to show before a link to the folio's
 * page; `withHeader`: the folio's title and counts (the dashboard; its own page has them already).
 */
export function folioInbox(f, app, { filter, limit = Infinity, withHeader = true }) {
  const list = threads(f.comments || [], filterTest(filter))
  const shown = list.slice(0, limit)
  const n = counts(f)
  const summary = [
    plural(n.open, 'open comment'),
    n.outdated && `${n.outdated} outdated`,
    n.resolved && `${n.resolved} resolved`,
    n.deleted && `${n.deleted} deleted`,
  ]
    .filter(Boolean)
    .join(' · ')
  return h(
    'section',
    { class: 'inbox-folio', 'data-id': f.id, 'aria-label': `Comments on ${f.title || 'Untitled'}` },
    withHeader &&
      h(
        'header',
        { class: 'inbox-folio-head' },
        h('h3', {}, h('a', { href: `/folios/${encodeURIComponent(f.id)}` }, f.title || 'Untitled')),
        h('span', { class: 'muted small' }, summary),
      ),
    byPlace(shown).map((page) =>
      h(
        'div',
        { class: 'inbox-page' },
        h('h4', {}, page.file, page.where && h('span', { class: 'where' }, ` · ${page.where}`)),
        h(
          'ol',
          { class: 'threads' },
          page.threads.map((t) => commentItem(f, t.root, app, { replies: t.replies })),
        ),
      ),
    ),
    list.length > shown.length && h('a', { class: 'more', href: `/folios/${encodeURIComponent(f.id)}` }, `Show all ${list.length} threads`),
  )
}

/** Whether a folio has anything to show under this filter (folios without are left out of the inbox). */
export const hasComments = (f, filter) => (f.comments || []).some(filterTest(filter))

/** What the inbox says when a filter leaves nothing: "All comments resolved" beats "No comments". */
export function emptyInbox(folios, filter) {
  const all = folios.flatMap((f) => f.comments || [])
  const text =
    all.length === 0
      ? 'No comments yet. When viewers pin feedback on a share page, it lands here.'
      : filter === 'open'
        ? 'All comments resolved. Nothing is waiting for you.'
        : `No ${filter} comments.`
  return h('p', { class: 'inbox-empty' }, text)
}
