/* The dashboard's DOM plumbing: keyed re-rendering that keeps focus, the clipboard, the toast. */

import { h } from '../common/ui.js'

/**
 * Puts `items` ({id, key, build}) into `container` in order, building an item's element only
 * when its key (its data, as JSON) changed: a refresh every few seconds never steals focus or
 * resets a half-read hint. A control that had focus (it carries data-key) gets it back after
 * its item was rebuilt.
 */
export function keyedRender(container, items, cache) {
  const seen = new Set()
  items.forEach((item, i) => {
    seen.add(item.id)
    let entry = cache.get(item.id)
    if (!entry || entry.key !== item.key) {
      const el = item.build()
      if (entry) {
        const focused = entry.el.contains(document.activeElement) ? document.activeElement.dataset.key : undefined
        entry.el.replaceWith(el)
        if (focused) el.querySelector(`[data-key="${CSS.escape(focused)}"]`)?.focus()
      }
      entry = { key: item.key, el }
      cache.set(item.id, entry)
    }
    // Move only when out of place: moving a node blurs what is focused inside it.
    if (container.children[i] !== entry.el) container.insertBefore(entry.el, container.children[i] ?? null)
  })
  for (const [id, entry] of cache) {
    if (!seen.has(id)) {
      entry.el.remove()
      cache.delete(id)
    }
  }
  while (container.children.length > items.length) container.lastElementChild.remove()
}

export async function copyText(text) {
  // navigator.clipboard needs a secure context: fine on localhost, not on a LAN address over http.
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text)
    return
  }
  const area = h('textarea', { readonly: true, class: 'offscreen' })
  area.value = text
  document.body.append(area)
  area.select()
  const ok = document.execCommand('copy')
  area.remove()
  if (!ok) throw new Error('the browser refused to copy')
}

const toastEl = () => document.getElementById('toast')
let toastTimer

/** A short message at the bottom of the screen (read out by screen readers), with an optional button (Undo). */
export function toast(message, { kind = 'ok', action } = {}) {
  const el = toastEl()
  clearTimeout(toastTimer)
  el.className = `toast ${kind}`
  el.replaceChildren(h('span', {}, message))
  if (action)
    el.append(
      h(
        'button',
        {
          type: 'button',
          class: 'btn small',
          onclick: () => {
            hideToast()
            action.run()
          },
        },
        action.label,
      ),
    )
  toastTimer = setTimeout(hideToast, action ? 8000 : 4000)
}

/** Emptied, not hidden: a live region must stay in the page for its next message to be read out. */
export function hideToast() {
  toastEl().replaceChildren()
}

/** 72 → "1m 12s", 3725 → "1h 2m", 9 → "9s". */
export function duration(seconds) {
  const s = Math.round(Number(seconds) || 0)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`
}

export function bytes(n) {
  n = Number(n) || 0
  if (n < 1024) return `${n} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let i = -1
  do {
    n /= 1024
    i++
  } while (n >= 1024 && i < units.length - 1)
  return `${n < 10 ? n.toFixed(1) : Math.round(n)} ${units[i]}`
}

export const number = new Intl.NumberFormat()
export const plural = (n, one, many = `${one}s`) => `${number.format(n)} ${n === 1 ? one : many}`
