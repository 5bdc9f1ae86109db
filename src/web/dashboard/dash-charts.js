/*
 * The dashboard's two charts, as plain SVG (no chart library: two shapes do not need one).
 * Each carries a text equivalent: an aria-label with the figures, and a <title> per bar or point
 * for a pointer's tooltip.
 */

const NS = 'http://www.w3.org/2000/svg'

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  el.append(...children.filter(Boolean))
  return el
}
const title = (text) => s('title', {}, text)

/** The last `days` UTC days, oldest first, with their views (0 where none were counted). */
export function daysOf(byDay, days) {
  const views = new Map((byDay || []).map((d) => [d.date, d.views]))
  const today = Date.now()
  return Array.from({ length: days }, (_, i) => {
    const date = new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10)
    return { date, views: views.get(date) || 0 }
  })
}

/** Views over time: a small line (and area) chart of `days` days. */
export function viewsChart(byDay, { days = 30, width = 320, height = 64 } = {}) {
  const points = daysOf(byDay, days)
  const most = Math.max(1, ...points.map((p) => p.views))
  const x = (i) => (i / (days - 1)) * (width - 4) + 2
  const y = (v) => height - 4 - (v / most) * (height - 12)
  const line = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.views).toFixed(1)}`).join('')
  const total = points.reduce((n, p) => n + p.views, 0)
  return s(
    'svg',
    {
      class: 'chart chart-line',
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': `${total} views in the last ${days} days; most in a day: ${most}`,
    },
    s('path', { class: 'area', d: `${line}L${x(days - 1).toFixed(1)},${height - 2}L${x(0).toFixed(1)},${height - 2}Z` }),
    s('path', { class: 'line', d: line }),
    ...points.map((p, i) => (p.views ? s('circle', { cx: x(i).toFixed(1), cy: y(p.views).toFixed(1), r: 2.5 }, title(`${p.date}: ${p.views}`)) : null)),
  )
}

/** Time per slide or section: one horizontal bar each, in deck order, the longest full width. */
export function partsChart(parts, unit, { width = 320 } = {}) {
  const rowHeight = 22
  const label = 110
  const most = Math.max(1, ...parts.map((p) => p.totalTimeSeconds))
  const height = parts.length * rowHeight
  const fmt = (secs) => (secs < 60 ? `${secs} s` : `${Math.round(secs / 60)} min`)
  return s(
    'svg',
    {
      class: 'chart chart-bars',
      viewBox: `0 0 ${width} ${height}`,
      role: 'img',
      'aria-label': parts.map((p) => `${unit} ${p.slide ?? p.section}: ${fmt(p.totalTimeSeconds)}`).join(', '),
    },
    ...parts.map((p, i) => {
      const n = p.slide ?? p.section
      const name = `${n}${p.title ? ` · ${p.title}` : ''}`
      const w = Math.max(2, (p.totalTimeSeconds / most) * (width - label - 50))
      const top = i * rowHeight
      return s(
        'g',
        { 'data-part': n },
        title(`${unit} ${n}${p.title ? ` “${p.title}”` : ''}: ${fmt(p.totalTimeSeconds)} in all, ${p.views} views`),
        s('text', { x: 0, y: top + 15, class: 'label' }, name.length > 16 ? `${name.slice(0, 15)}…` : name),
        s('rect', { x: label, y: top + 4, width: w.toFixed(1), height: rowHeight - 8, rx: 3 }),
        s('text', { x: label + w + 6, y: top + 15, class: 'value' }, fmt(p.totalTimeSeconds)),
      )
    }),
  )
}
