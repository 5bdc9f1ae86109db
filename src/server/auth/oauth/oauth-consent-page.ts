import { escapeHtml } from '../../../domain/html.js'

export interface ConsentView {
  clientName: string
  /** Where the code goes: the page must name it (a client's name is whatever it registered). */
  redirectHost: string
  /** folio's own origin, as the person reached it. */
  origin: string
  requestId: string
  csrf: string
  /** Who approves, when already known (a sign-in session, the local owner). */
  approver?: { workspace: string; who: string; role: string }
  /** No approver yet: the page asks for the workspace key (and, in Cloud, offers to sign in). */
  mode: 'oss' | 'cloud'
  /** Why the last attempt was not approved. */
  problem?: string
}

/** No script, no frames of us elsewhere (clickjacking a consent page is the classic attack). */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}ul{padding-left:1.2rem}.box{border:1px solid #d0d0d7;border-radius:10px;padding:1rem 1.2rem;margin:1rem 0}
.problem{background:#fdecea;border-color:#f5c2bd}label{display:block;margin:.8rem 0 .3rem}input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
.actions{display:flex;gap:.8rem;margin-top:1.2rem}button{font:inherit;padding:.55rem 1.2rem;border-radius:8px;border:1px solid #888;background:#fff;cursor:pointer}
button[value=approve]{background:#1d1d1f;color:#fff;border-color:#1d1d1f}code{font-size:.9em}`

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`
}

/** The consent page: which client, which workspace, what it may do; approve or deny. */
export function consentPage(view: ConsentView): string {
  const client = escapeHtml(view.clientName)
  const who = view.approver
    ? `<p>Approving as <strong>${escapeHtml(view.approver.who)}</strong> (${escapeHtml(view.approver.role)}) in the workspace <strong>${escapeHtml(view.approver.workspace)}</strong>.</p>`
    : `<label for="api_key">${view.mode === 'cloud' ? 'Sign in first (the dashboard), then reload this page, or paste your workspace’s API key' : 'This request does not come from this machine: paste the API key of this server (folio keys show)'}</label>
<input type="password" id="api_key" name="api_key" autocomplete="off" required>`
  return page(
    `Authorize ${view.clientName}`,
    `<h1>Authorize <em>${client}</em>?</h1>
${view.problem ? `<div class="box problem">${escapeHtml(view.problem)}</div>` : ''}
<div class="box"><p><strong>${client}</strong> asks to use the folio server at <code>${escapeHtml(view.origin)}</code>. After you approve, it is sent back to <strong>${escapeHtml(view.redirectHost)}</strong>.</p>
<p>It may, with your rights in the workspace:</p>
<ul><li>list, read, create, change and delete folios and their versions</li><li>publish, unpublish and make folios private</li><li>read, add, resolve and delete comments and reactions</li><li>upload images and read the design systems</li></ul>
<p>It may not read or change the API key, nor manage members, sign-ins or other authorizations. You can revoke it at any time (<code>folio oauth</code>); rotating the workspace key revokes it too.</p></div>
<form method="post" action="/api/oauth/authorize">
<input type="hidden" name="request_id" value="${escapeHtml(view.requestId)}"><input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
${who}
<div class="actions"><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny" formnovalidate>Deny</button></div>
</form>`,
  )
}

/** A request that cannot go back to its client (unknown client, unregistered redirect URI, expired). */
export function oauthErrorPage(title: string, message: string): string {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><div class="box problem"><p>${escapeHtml(message)}</p></div><p>Start again from the application that sent you here.</p>`,
  )
}

/** The same page again, navigated to from our own origin (so same-site cookies come along). */
export function reloadPage(pathAndQuery: string): string {
  const target = escapeHtml(pathAndQuery)
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${target}"><meta name="robots" content="noindex"><title>folio</title></head><body><p><a href="${target}">Continue</a></p></body></html>`
}
