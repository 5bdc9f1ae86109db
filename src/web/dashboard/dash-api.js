/*
 * The dashboard's calls to the API. On this machine the local API is open to the server's own
 * pages, so no key is needed; from another machine (the LAN, the tunnel) every owner call needs
 * the workspace key. The page asks for it on the first 401 and keeps it for this tab only
 * (sessionStorage: it goes when the tab closes, and no other tab or site can read it).
 */

const KEY_STORE = 'folio.apiKey'

/** An answer that was not 2xx: the server's {error, message} and the status. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || body?.error || `HTTP ${status}`)
    this.status = status
    this.error = body?.error || `HTTP ${status}`
  }
}

export const storedKey = () => sessionStorage.getItem(KEY_STORE) || ''
export const forgetKey = () => sessionStorage.removeItem(KEY_STORE)
export function rememberKey(key) {
  sessionStorage.setItem(KEY_STORE, key.trim())
}

let onUnauthorized = () => {}
/** Called with {refused: boolean} when the API answers 401 (refused: a key was sent and is wrong). */
export function whenUnauthorized(handler) {
  onUnauthorized = handler
}

async function call(method, path, body) {
  const key = storedKey()
  const headers = { accept: 'application/json' }
  if (key) headers.authorization = `Bearer ${key}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  // no-store: the list is sent with max-age=5 (spec), and the owner must see what they just did.
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' })
  let data = null
  try {
    data = await res.json()
  } catch {
    // A proxy's HTML error page: the status has to do.
  }
  if (res.status === 401) onUnauthorized({ refused: Boolean(key) })
  if (!res.ok) throw new ApiError(res.status, data)
  return data
}

const folio = (id) => `/api/files/${encodeURIComponent(id)}`

export const listFolios = () => call('GET', '/api/files')
// The answer's files are not needed (the list is fetched again): ?files=none keeps them out.
export const updateFolio = (id, patch) => call('PUT', `${folio(id)}?files=none`, patch).then((r) => r.project)
export const deleteFolio = (id) => call('DELETE', folio(id))
export const getBrief = (id) => call('GET', `${folio(id)}/brief`)
/** {resolved} or {deleted} (owner: true hides from viewers, false restores). */
export const changeComment = (id, commentId, change) => call('PUT', `${folio(id)}/comments`, { commentId, ...change }).then((r) => r.comment)
/** The owner's DELETE: the comment is gone for good. */
export const removeComment = (id, commentId) => call('DELETE', `${folio(id)}/comments?commentId=${encodeURIComponent(commentId)}`)
/** The serve process's public tunnel (OSS only: Cloud answers 403). */
export const getTunnel = () => call('GET', '/api/tunnel')
/** {action: 'start', provider?, install?}, {action: 'stop'} or {action: 'save_custom', customTunnelUrl}. */
export const controlTunnel = (body) => call('POST', '/api/tunnel', body)
/** The whole folio without file contents: its full analytics (time per slide, links, recent views). */
export const getFolio = (id) => call('GET', `${folio(id)}?files=none`)
export const listLinks = (id) => call('GET', `${folio(id)}/links`).then((r) => r.links)
/** {name, expiresAt?, maxViews?} */
export const createLink = (id, body) => call('POST', `${folio(id)}/links`, body).then((r) => r.link)
export const revokeLink = (id, linkId) => call('DELETE', `${folio(id)}/links/${encodeURIComponent(linkId)}`).then((r) => r.link)
