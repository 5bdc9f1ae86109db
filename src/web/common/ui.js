/* Small DOM helpers shared by the share page and the dashboard (both load it as an ES module). */

/** h('button', {class: 'btn', onclick}, 'Post'): an element with props, listeners and children. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    if (key.startsWith('on')) el.addEventListener(key.slice(2).toLowerCase(), value)
    else if (key === 'class') el.className = value
    else if (key in el && typeof value !== 'string') el[key] = value
    else el.setAttribute(key, value === true ? '' : value)
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false))
  return el
}

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

/** "just now", "5 minutes ago", "yesterday"; `fallback` for a date that does not parse. */
export function ago(iso, fallback = '') {
  const t = Date.parse(iso)
  if (Number.isNaN(t)) return fallback
  const s = (t - Date.now()) / 1000
  const abs = Math.abs(s)
  if (abs < 45) return 'just now'
  for (const [unit, size] of [
    ['year', 31536000],
    ['month', 2592000],
    ['week', 604800],
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ]) {
    if (abs >= size) return rtf.format(Math.round(s / size), unit)
  }
  return 'just now'
}
