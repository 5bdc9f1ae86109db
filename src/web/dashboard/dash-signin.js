/*
 * Cloud: people sign in to the dashboard instead of keeping a key in the tab. A pasted workspace
 * key, or a code e-mailed to their address, becomes a session the server keeps in an HttpOnly,
 * SameSite=Strict cookie: no script of this page (or any other) can read it, and every API call
 * of the page carries it. OSS answers these endpoints 403, and the page keeps its key form.
 */

async function post(path, body) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  })
  let data = null
  try {
    data = await res.json()
  } catch {
    // no JSON: the status has to do
  }
  return { ok: res.ok, status: res.status, data }
}

let cloud
/** Whether the server is in Cloud mode (people sign in); asked once, on the first 401. */
export async function isCloud() {
  cloud ??= fetch('/api/auth/session', { credentials: 'same-origin', cache: 'no-store' }).then(
    (res) => res.status !== 403,
    () => false,
  )
  return cloud
}

/** The pasted key becomes a session cookie; true when the server took it. */
export const signInWithKey = async (apiKey) => (await post('/api/auth/signin', { apiKey })).ok

/** Wires the e-mail form: send a code, then sign in with it; `done` runs once signed in. */
export function setUpEmailSignIn(form, done) {
  const email = form.querySelector('#email-input')
  const code = form.querySelector('#code-input')
  const codeStep = form.querySelector('#code-step')
  const status = form.querySelector('#email-status')
  form.hidden = false
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    if (codeStep.hidden) {
      const sent = await post('/api/auth/code', { email: email.value.trim() })
      status.textContent = sent.ok
        ? `We sent a 6-digit code to ${email.value.trim()}. It works for 15 minutes.`
        : sent.data?.message || 'That did not work: check the address.'
      if (sent.ok) {
        codeStep.hidden = false
        code.focus()
      }
      return
    }
    const signed = await post('/api/auth/signin', { email: email.value.trim(), code: code.value.trim() })
    if (!signed.ok) {
      status.textContent = signed.data?.message || 'That code did not work.'
      return
    }
    code.value = ''
    codeStep.hidden = true
    status.textContent = ''
    done()
  })
}
