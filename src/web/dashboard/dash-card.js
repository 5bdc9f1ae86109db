/* A folio's card: what it is, how it does (views, open and outdated comments, reactions), the owner's actions. */

import { ago, h } from '../common/ui.js'
import { controls, remembered, showBrief } from './dash-controls.js'
import { copyText, bytes, duration, number, toast } from './dash-dom.js'
import { counts } from './dash-comments.js'
import { shareLink } from './dash-tunnel.js'
import { viewsChart } from './dash-charts.js'
import { readersPanel } from './dash-readers.js'

const EMOJI = ['👍', '❤️', '💡', '🔥']
const LOCK = '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="4" y="10" width="16" height="11" rx="2"/><path d="M8 10V7a4 4 0 0 1 8 0v3"/></svg>'

export const sharePath = (id) => `/share/${encodeURIComponent(id)}`
export const folioPath = (id) => `/folios/${encodeURIComponent(id)}`
const LOOPBACK = /^(127\.0\.0\.1|localhost|\[::1\])$/

async function onCopyLink(event) {
  // Made at the click, not with the card: the tunnel may have come up, or moved, since.
  const link = shareLink(event.currentTarget.dataset.path)
  try {
    await copyText(link.text)
    if (link.password) toast('Share link copied, through the tunnel, with the password its viewers are asked for.')
    else if (link.public) toast('Share link copied, through the tunnel.')
    else
      toast(
        link.tunnelOff && LOOPBACK.test(location.hostname)
          ? 'Share link copied. It opens on this machine only: start the tunnel to share it.'
          : 'Share link copied.',
      )
  } catch {
    toast(`Copy the link yourself: ${link.text}`, { kind: 'error' })
  }
}

function stat(label, value, extra, cls = '') {
  return h('div', { class: `stat ${cls}` }, h('dt', {}, label), h('dd', {}, value), extra)
}

/** `page`: the card heads the folio's own page (no link to itself, the controls open). */
export function card(f, app, { page = false } = {}) {
  const a = f.analytics || {}
  const views = Number(a.views) || 0
  const mobile = Number(a.mobileViews) || 0
  const desktop = Number(a.desktopViews) || 0
  const mobileShare = mobile + desktop ? Math.round((mobile / (mobile + desktop)) * 100) : 0
  const published = f.status === 'published'
  const reactions = f.reactions || {}
  const extra = Object.keys(reactions).filter((e) => !EMOJI.includes(e) && reactions[e] > 0)
  const n = counts(f)
  const title = f.title || 'Untitled'
  const titleId = `t-${f.id}`

  const lock = h('span', { class: 'lock', title: 'Private: viewers need the access key', 'aria-label': 'Private' })
  lock.innerHTML = LOCK // constant markup, never data

  return h(
    'article',
    { class: `card${page ? ' card-page' : ''}`, 'aria-labelledby': titleId, 'data-id': f.id },
    h(
      'div',
      { class: 'card-head' },
      h(page ? 'h1' : 'h2', { id: titleId, title }, page ? title : h('a', { href: folioPath(f.id) }, title)),
      h('span', { class: `status ${published ? 'published' : 'draft'}` }, published ? 'Published' : 'Draft'),
      f.isPrivate && lock,
    ),
    f.description && h('p', { class: 'desc' }, f.description),
    h(
      'p',
      { class: 'meta' },
      h(
        'span',
        {},
        'Updated ',
        h('time', { datetime: f.updatedAt, 'data-ago': f.updatedAt, title: new Date(f.updatedAt).toLocaleString() }, ago(f.updatedAt, '—')),
      ),
      ' · ',
      h('span', {}, f.latestVersionId || 'v?', Number(f.versionCount) > 1 ? ` of ${f.versionCount} versions` : ''),
      ' · ',
      h('span', {}, bytes(f._storageBytes)),
      !f.allowComments && [' · ', h('span', { class: 'off' }, 'Comments off')],
    ),
    h(
      'dl',
      { class: 'stats' },
      stat('Views', number.format(views), [
        h(
          'div',
          { class: 'split', role: 'img', title: `${mobileShare}% mobile`, 'aria-label': `${mobileShare}% of views on mobile` },
          h('span', { style: `width:${mobileShare}%` }),
        ),
        h('p', { class: 'sub', title: 'Average time per view' }, `avg. ${duration(a.avgTimeSeconds)}`),
        viewsChart(a.viewsByDay, { days: 14, width: 140, height: 28 }),
      ]),
      stat('Comments', number.format(n.open), h('p', { class: 'sub' }, `open · ${number.format(n.all)} in all`), n.open ? 'attention' : ''),
      stat(
        'Outdated',
        number.format(n.outdated),
        h('p', { class: 'sub', title: 'Open comments whose element is gone from the latest version' }, 'element gone'),
        n.outdated ? 'warn' : '',
      ),
    ),
    a.lastView &&
      h(
        'p',
        { class: 'last-view', 'data-type': a.lastView.type, role: 'status' },
        a.lastView.text,
        ' · ',
        h('time', { datetime: a.lastView.at, 'data-ago': a.lastView.at, title: new Date(a.lastView.at).toLocaleString() }, ago(a.lastView.at)),
      ),
    h(
      'ul',
      { class: 'reactions', 'aria-label': 'Reactions' },
      [...EMOJI, ...extra].map((e) => {
        const count = Number(reactions[e]) || 0
        return h(
          'li',
          { class: count ? '' : 'zero', 'aria-label': `${e} ${count}` },
          h('span', { 'aria-hidden': 'true' }, e),
          h('b', { 'aria-hidden': 'true' }, String(count)),
        )
      }),
    ),
    h(
      'div',
      { class: 'actions' },
      published && !f.isPrivate
        ? h('a', { class: 'btn primary', href: sharePath(f.id), target: '_blank', rel: 'noopener' }, 'Open share page')
        : h(
            'a',
            {
              class: 'btn primary',
              href: `${sharePath(f.id)}?preview=1`,
              target: '_blank',
              rel: 'noopener',
              title: 'What viewers will see; only you can open it like this',
            },
            'Preview',
          ),
      h(
        'button',
        {
          class: 'btn',
          type: 'button',
          'data-path': sharePath(f.id),
          'data-key': 'copy-link',
          onclick: onCopyLink,
          'aria-label': `Copy share link of ${title}`,
        },
        'Copy link',
      ),
      h('button', { class: 'btn', type: 'button', 'data-key': 'brief', onclick: () => showBrief(f, app), 'aria-label': `Brief of ${title}` }, 'Brief'),
      !page &&
        h(
          'a',
          { class: 'btn', href: folioPath(f.id), 'aria-label': `Comments and versions of ${title}` },
          `Comments${n.all ? ` (${number.format(n.all)})` : ''}`,
        ),
    ),
    page ? controls(f, app) : remembered(f, 'manage', 'Manage', controls(f, app)),
    page && readersPanel(f, app),
  )
}
