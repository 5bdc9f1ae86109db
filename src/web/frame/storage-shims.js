/*
 * Runs first in every HTML page of a folio: the server inlines it at the top of <head>, before
 * any of the folio's own scripts.
 *
 * The folio runs in a sandbox without allow-same-origin (an opaque origin, so that its scripts
 * can never reach the share page, its cookies or the API), and there the browser throws on every
 * touch of localStorage, sessionStorage and document.cookie. Real decks use them (reveal.js keeps
 * its scroll view's place in sessionStorage, and never finishes starting when that throws), so
 * each one that throws is replaced by a working stand-in that lives in this frame only:
 *
 *   sessionStorage  kept across pages of this frame (a link to another page of the folio), as a
 *                   browser keeps it for a tab: carried in window.name from page to page
 *   localStorage    the same, and kept for this folio's next view by the share page (it saves
 *                   what the frame posts, and hands it back through the frame's name)
 *   document.cookie the folio's own cookies, for this frame's pages
 *
 * Nothing here can reach storage of the server's origin: the share page decides what it keeps,
 * for this folio only, within a size limit.
 */
import { FRAME_STATE_PREFIX as CARRIED } from '../../domain/share-page-storage.ts'

/** Like a browser's quota for an origin (in UTF-16 code units, as browsers count). */
const QUOTA = 5 * 1024 * 1024

function installFrameStorage() {
  const carried = takeCarried()
  const session = installStorage('sessionStorage', carried.s, () => {})
  const local = installStorage('localStorage', carried.l, () => scheduleLocalSave())
  const cookies = installCookies(carried.c)

  // Pages of this frame hand their state on, as a browser tab would across its pages.
  addEventListener('pagehide', () => {
    if (!session && !local && !cookies) return
    flushLocal()
    try {
      window.name = CARRIED + JSON.stringify({ n: carried.n, s: session?.entries(), l: local?.entries(), c: cookies?.entries() })
    } catch {
      // Too big to carry: the next page starts without it, as after a reload.
    }
  })

  let saveTimer = 0
  function scheduleLocalSave() {
    clearTimeout(saveTimer)
    saveTimer = setTimeout(flushLocal, 300)
  }
  function flushLocal() {
    if (!saveTimer || !local) return
    clearTimeout(saveTimer)
    saveTimer = 0
    try {
      // location.origin is the server's (the URL's), though this document's origin is opaque.
      parent.postMessage({ source: 'folio-frame', type: 'local-storage', entries: local.entries() }, location.origin)
    } catch {
      // Opened on its own, or the share page went away: kept for this frame only.
    }
  }
}

/** What the previous page of this frame, or the share page, left in window.name; the folio's own name back. */
function takeCarried() {
  let carried = {}
  try {
    if (typeof window.name === 'string' && window.name.startsWith(CARRIED)) {
      const parsed = JSON.parse(window.name.slice(CARRIED.length))
      if (parsed && typeof parsed === 'object') carried = parsed
      window.name = typeof carried.n === 'string' ? carried.n : ''
    }
  } catch {
    window.name = ''
  }
  carried.n = window.name
  return carried
}

const works = (probe) => {
  try {
    probe()
    return true
  } catch {
    return false
  }
}

/** Replaces window[name] with a stand-in when the browser's throws; its handle, or undefined. */
function installStorage(name, initial, onChange) {
  if (works(() => window[name].getItem('folio'))) return undefined
  const data = new Map()
  let used = 0
  if (initial && typeof initial === 'object') {
    for (const [key, value] of Object.entries(initial)) {
      if (typeof value === 'string') {
        data.set(key, value)
        used += key.length + value.length
      }
    }
  }
  const set = (key, value) => {
    key = String(key)
    value = String(value)
    const grows = key.length + value.length - (data.has(key) ? key.length + data.get(key).length : 0)
    if (used + grows > QUOTA) throw new DOMException(`Setting the value of '${key}' exceeded the quota.`, 'QuotaExceededError')
    used += grows
    data.set(key, value)
    onChange()
  }
  const remove = (key) => {
    key = String(key)
    if (!data.has(key)) return
    used -= key.length + data.get(key).length
    data.delete(key)
    onChange()
  }
  const methods = {
    get length() {
      return data.size
    },
    key(index) {
      return [...data.keys()][Number(index)] ?? null
    },
    getItem(key) {
      key = String(key)
      return data.has(key) ? data.get(key) : null
    },
    setItem: set,
    removeItem: remove,
    clear() {
      if (!data.size) return
      data.clear()
      used = 0
      onChange()
    },
  }
  if (typeof Storage === 'function') Object.setPrototypeOf(methods, Storage.prototype)
  const isMethod = (prop) => typeof prop !== 'string' || prop in methods
  // storage.foo = 'x' and storage.foo work on a real Storage: so they do here.
  const storage = new Proxy(methods, {
    get: (target, prop, receiver) => (isMethod(prop) ? Reflect.get(target, prop, receiver) : data.has(prop) ? data.get(prop) : undefined),
    set: (target, prop, value, receiver) => (isMethod(prop) ? Reflect.set(target, prop, value, receiver) : (set(prop, value), true)),
    has: (target, prop) => (typeof prop === 'string' && data.has(prop)) || prop in target,
    deleteProperty: (target, prop) => (isMethod(prop) ? Reflect.deleteProperty(target, prop) : (remove(prop), true)),
    ownKeys: () => [...data.keys()],
    getOwnPropertyDescriptor: (_target, prop) =>
      typeof prop === 'string' && data.has(prop) ? { value: data.get(prop), writable: true, enumerable: true, configurable: true } : undefined,
  })
  try {
    Object.defineProperty(window, name, { configurable: true, enumerable: true, get: () => storage })
  } catch {
    return undefined // the browser would not let it be replaced: the folio sees what it would anyway
  }
  return { entries: () => Object.fromEntries(data) }
}

/** document.cookie as a jar of this frame's own, when the browser's throws. */
function installCookies(initial) {
  if (works(() => document.cookie)) return undefined
  /** name → { value, expires (ms, or Infinity for a session cookie) } */
  const jar = new Map()
  if (initial && typeof initial === 'object') {
    for (const [name, cookie] of Object.entries(initial)) {
      if (cookie && typeof cookie.value === 'string') jar.set(name, { value: cookie.value, expires: Number(cookie.expires) || Infinity })
    }
  }
  const live = () => {
    const now = Date.now()
    for (const [name, cookie] of jar) if (cookie.expires <= now) jar.delete(name)
    return jar
  }
  try {
    Object.defineProperty(document, 'cookie', {
      configurable: true,
      enumerable: true,
      get: () => [...live()].map(([name, { value }]) => (name ? `${name}=${value}` : value)).join('; '),
      set: (text) => {
        const [pair, ...attributes] = String(text).split(';')
        const eq = pair.indexOf('=')
        const name = (eq === -1 ? '' : pair.slice(0, eq)).trim()
        const value = (eq === -1 ? pair : pair.slice(eq + 1)).trim()
        let expires = Infinity
        for (const attribute of attributes) {
          const [key, ...rest] = attribute.split('=')
          const given = rest.join('=').trim()
          const which = key.trim().toLowerCase()
          if (which === 'max-age' && /^-?\d+$/.test(given)) expires = Date.now() + Number(given) * 1000
          else if (which === 'expires' && expires === Infinity && !Number.isNaN(Date.parse(given))) expires = Date.parse(given)
        }
        if (expires <= Date.now()) jar.delete(name)
        else jar.set(name, { value, expires })
      },
    })
  } catch {
    return undefined
  }
  return { entries: () => Object.fromEntries(live()) }
}

installFrameStorage()
