import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment } from '../src/api/engagement.js'
import { getFolio } from '../src/api/files.js'
import { requestSignInCode, signIn } from '../src/api/sign-in.js'
import { testApi } from './helpers/api.js'
import { claimByEmail, codeMailedTo } from './helpers/agents.js'
import { bearer, obtainTokens } from './helpers/oauth.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'
import { closeClean } from './helpers/use-server.js'
import { addMember, createWorkspace, type TestWorkspace } from './helpers/workspaces.js'

/**
 * Cloud (spec, POST /api/files/{id}/comments: `author` defaults to the authenticated e-mail,
 * else Guest): a comment sent without an author goes under the e-mail of the person behind the
 * credential. A member's own token, session or OAuth approval: the member; the workspace key (and
 * what the key approved): the workspace's Owner; nobody: Guest. A name the request gives is kept.
 */
let smtp: TestSmtpServer
let ts: TestServer
let ws: TestWorkspace
let folio: string
beforeAll(async () => {
  smtp = await startSmtpServer()
  ts = await startTestServer({ mode: 'cloud', config: { smtpUrl: smtp.url, rateLimits: { auth: 10_000, comments: 10_000 } } })
  ws = await createWorkspace(ts, { name: 'Team', email: 'owner@example.com' })
  await addMember(ts, ws.id, 'member@example.com', 'member')
  folio = await ws.api.create('Reviewed', { 'index.html': '<h1>Review me</h1>' }, { status: 'published' })
})
afterAll(async () => {
  await closeClean(ts)
  await smtp.close()
})

const anonymous = () => testApi(ts.url)

/** Posts a comment with these headers; the author it was stored under, as the owner reads it back. */
async function authorOf(headers: Record<string, string>, body: object = {}): Promise<string> {
  const reply = await anonymous().send(createComment, {
    params: { id: folio },
    body: { text: 'Looks good', versionId: 'v1', filename: 'index.html', ...body },
    headers,
  })
  expect(reply.status, reply.text).toBe(200)
  const stored = (await ws.api.send(getFolio, { params: { id: folio }, query: { files: 'none' } })).body.comments.find(
    (c: { id: string }) => c.id === reply.body.comment.id,
  )
  expect(stored.author).toBe(reply.body.comment.author)
  return reply.body.comment.author
}

/** A member signed in by e-mailed code: the session cookie, with our Origin (a write from our page). */
async function sessionOf(email: string): Promise<Record<string, string>> {
  expect((await anonymous().send(requestSignInCode, { body: { email } })).status).toBe(200)
  const code = await codeMailedTo(smtp, email)
  const signedIn = await anonymous().request(signIn, { body: { email, code } })
  expect(signedIn.status).toBe(200)
  return { cookie: signedIn.headers.getSetCookie()[0]!.split(';')[0]!, origin: new URL(ts.url).origin }
}

describe('a Cloud comment’s default author', () => {
  it('is the member’s e-mail with the member’s own token (an agent that proved the address)', async () => {
    const flow = await claimByEmail(anonymous(), smtp, 'member@example.com')
    const done = await flow.complete()
    expect(done.body.credential.organization.id).toBe(ws.id)
    expect(await authorOf(bearer(done.body.credential.access_token))).toBe('member@example.com')
  })

  it('is the member’s e-mail with the member’s sign-in session, and with an OAuth token the member approved', async () => {
    const session = await sessionOf('member@example.com')
    expect(await authorOf(session)).toBe('member@example.com')
    const { tokens } = await obtainTokens(ts.url, { pageHeaders: { cookie: session.cookie! }, cookies: [session.cookie!] })
    expect(await authorOf(bearer(tokens.access_token))).toBe('member@example.com')
  })

  it('is the Owner’s e-mail with the workspace key, and with an OAuth token the key approved', async () => {
    expect(await authorOf(ws.auth)).toBe('owner@example.com')
    const { tokens } = await obtainTokens(ts.url, { apiKey: ws.apiKey })
    expect(await authorOf(bearer(tokens.access_token))).toBe('owner@example.com')
  })

  it('is Guest without a credential', async () => {
    expect(await authorOf({})).toBe('Guest')
    expect(await authorOf({}, { author: '   ' })).toBe('Guest')
  })

  it('is the name the request gives, whoever sends it', async () => {
    expect(await authorOf(ws.auth, { author: 'Dana (design)' })).toBe('Dana (design)')
    expect(await authorOf(await sessionOf('member@example.com'), { author: 'Sam' })).toBe('Sam')
    expect(await authorOf({}, { author: 'A visitor' })).toBe('A visitor')
  })
})
