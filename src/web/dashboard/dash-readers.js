/*
 * A folio's readers, on its own page (/folios/{id}): views over time, time per slide or section,
 * where views stopped, the latest views as sentences, and the links made for one recipient each
 * (make, copy, revoke). The list the dashboard polls carries only a summary, so this part asks
 * for the folio's whole analytics when it is drawn.
 */

import { ago, h } from '../common/ui.js'
import { createLink, getFolio, listLinks, revokeLink } from './dash-api.js'
import { partsChart, viewsChart } from './dash-charts.js'
import { copyText, duration, number, plural, toast } from './dash-dom.js'

const percent = (rate) => `${Math.round((Number(rate) || 0) * 100)}%`

function figures(a) {
  return h(
    'p',
    { class: 'readers-figures' },
    [
      plural(a.views || 0, 'view'),
      `${number.format(a.returningViews || 0)} returning`,
      `${percent(a.completionRate)} read to the end`,
      `avg. ${duration(a.avgTimeSeconds)}`,
      `${plural(a.botViews || 0, 'bot or preview', 'bots and previews')} not counted`,
    ].join(' · '),
  )
}

function recent(a) {
  const views = [...(a.recentViews || [])].reverse().slice(0, 6)
  if (!views.length) return h('p', { class: 'muted' }, 'Nobody has opened it yet. Each view shows up here as it starts and ends.')
  return h(
    'ul',
    { class: 'recent-views', 'aria-label': 'Latest views' },
    views.map((v) => h('li', { 'data-type': v.type }, h('time', { datetime: v.at, title: new Date(v.at).toLocaleString() }, ago(v.at)), ' ', v.text)),
  )
}

function linkRow(f, link, app, refresh) {
  const expires = link.expiresAt ? `until ${new Date(link.expiresAt).toLocaleDateString()}` : ''
  const cap = link.maxViews ? `${link.maxViews} views at most` : ''
  return h(
    'li',
    { class: `link-row ${link.status}`, 'data-link': link.id },
    h('span', { class: 'link-name' }, link.name),
    h('span', { class: `link-status ${link.status}` }, link.status),
    h(
      'span',
      { class: 'link-figures' },
      `${plural(link.views, 'view')} · ${duration(link.totalTimeSeconds)}${link.comments ? ` · ${plural(link.comments, 'comment')}` : ''}`,
      [expires, cap].filter(Boolean).length ? ` · ${[expires, cap].filter(Boolean).join(', ')}` : '',
    ),
    link.status === 'active' &&
      h(
        'button',
        {
          class: 'btn small',
          type: 'button',
          'aria-label': `Copy the link for ${link.name}`,
          onclick: async () => {
            try {
              await copyText(link.url)
              toast(`Link for ${link.name} copied.`)
            } catch {
              toast(`Copy it yourself: ${link.url}`, { kind: 'error' })
            }
          },
        },
        'Copy',
      ),
    link.status !== 'revoked' &&
      h(
        'button',
        {
          class: 'btn small danger-outline',
          type: 'button',
          'aria-label': `Revoke the link for ${link.name}`,
          onclick: async () => {
            if (await app.run(() => revokeLink(f.id, link.id), { success: `The link for ${link.name} no longer opens the folio.`, quiet: true })) refresh()
          },
        },
        'Revoke',
      ),
  )
}

function linksPanel(f, links, app, refresh) {
  const name = h('input', { name: 'name', required: true, maxlength: 100, placeholder: 'Dana at Acme', 'aria-label': 'Who the link is for' })
  const expires = h('input', { name: 'expires', type: 'date', 'aria-label': 'Expires on (optional)' })
  const maxViews = h('input', { name: 'maxViews', type: 'number', min: 1, placeholder: 'views', 'aria-label': 'At most this many views (optional)' })
  const form = h(
    'form',
    {
      class: 'link-form',
      onsubmit: async (event) => {
        event.preventDefault()
        const body = { name: name.value.trim() }
        if (expires.value) body.expiresAt = new Date(`${expires.value}T23:59:59`).toISOString()
        if (maxViews.value) body.maxViews = Number(maxViews.value)
        const link = await app.run(() => createLink(f.id, body), { quiet: true })
        if (!link) return
        form.reset()
        refresh()
        try {
          await copyText(link.url)
          toast(`Link for ${link.name} made and copied: send it to them.`)
        } catch {
          toast(`Link for ${link.name}: ${link.url}`)
        }
      },
    },
    name,
    expires,
    maxViews,
    h('button', { class: 'btn', type: 'submit' }, 'Make a link'),
  )
  return h(
    'section',
    { class: 'links-panel', 'aria-label': 'Recipient links' },
    h('h3', {}, 'Links for one recipient each'),
    h('p', { class: 'muted' }, 'Each has its own URL: what its viewer reads, and for how long, counts on it. Revoke one without touching the others.'),
    links.length
      ? h(
          'ul',
          { class: 'links' },
          links.map((l) => linkRow(f, l, app, refresh)),
        )
      : null,
    form,
  )
}

/** The panel; it fills itself in once the folio's analytics and links are in, and again after a link changes. */
export function readersPanel(f, app) {
  const body = h('div', { class: 'readers-body' })
  const panel = h('section', { class: 'readers', 'aria-label': 'Readers', 'aria-busy': 'true' }, h('h2', {}, 'Readers'), body)
  let asked = 0
  async function refresh() {
    const mine = ++asked
    try {
      const [folio, links] = await Promise.all([getFolio(f.id), listLinks(f.id)])
      if (mine !== asked) return // a newer refresh is on its way
      const a = folio.analytics || {}
      const parts = a.slides || a.sections
      const unit = a.slides ? 'slide' : 'section'
      const stops = (a.dropOff || []).filter((d) => d.views > 0)
      body.replaceChildren(
        figures(a),
        h('div', { class: 'chart-box' }, h('h3', {}, 'Views, last 30 days'), viewsChart(a.viewsByDay, { width: 560, height: 80 })),
        parts?.length
          ? h(
              'div',
              { class: 'chart-box' },
              h('h3', {}, `Time per ${unit}`),
              partsChart(parts, unit, { width: 560 }),
              stops.length
                ? h('p', { class: 'muted drop-off' }, `Where views stopped: ${stops.map((d) => `${unit} ${d.slide ?? d.section} (${d.views})`).join(', ')}`)
                : null,
            )
          : null,
        h('h3', {}, 'Latest views'),
        recent(a),
        linksPanel(f, links, app, refresh),
      )
    } catch (error) {
      if (error.status !== 401) body.replaceChildren(h('p', { class: 'error' }, `Could not load the readers: ${error.message || error}`))
    }
    panel.setAttribute('aria-busy', 'false')
  }
  void refresh()
  return panel
}
