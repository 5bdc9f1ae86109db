/* The share page's one way of talking to the API. */

/** Sends JSON (or nothing) with the page's cookies; resolves to the response and its JSON body (or null). */
export async function requestJson(url, { method = 'POST', body, headers = {}, signal } = {}) {
  const res = await fetch(url, {
    method,
    signal,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  })
  let data = null
  try {
    data = await res.json()
  } catch {
    // A proxy's HTML error page: the status alone has to do.
  }
  return { res, data }
}

/** POSTs JSON with the page's cookies; resolves to the response and its JSON body (or null). */
export const postJson = (url, body, options = {}) => requestJson(url, { body, ...options })
