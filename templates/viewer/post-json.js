/* The share page's one way of talking to the API. */

/** POSTs JSON with the page's cookies; resolves to the response and its JSON body (or null). */
export async function postJson(url, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    // A proxy's HTML error page: the status alone has to do.
  }
  return { res, data };
}
