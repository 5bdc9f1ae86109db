import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, recordAnalytics } from '../src/api/engagement.js'
import { createFolio, updateFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { requestSignInCode, signIn } from '../src/api/sign-in.js'
import { sharePage } from '../src/api/viewer.js'
import { testApi } from './helpers/api.js'
import { codeMailedTo } from './helpers/agents.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp-server.js'
import { closeClean, expectLogged } from './helpers/use-server.js'
import { createWorkspace, type TestWorkspace } from './helpers/workspaces.js'

let smtp: TestSmtpServer
let ts: TestServer
let ws: TestWorkspace
beforeAll(async () => {
  smtp = await startSmtpServer()
  ts = await startTestServer({ mode: 'cloud', config: { smtpUrl: smtp.url, rateLimits: { auth: 10_000 } } })
  ws = await createWorkspace(ts, { name: 'Studio', email: 'owner@example.com' })
})
afterAll(async () => {
  await closeClean(ts)
  await smtp.close()
})

const api = () => testApi(ts.url)

async function folioWith(extra: object, collaborators: string[]): Promise<string> {
  const created = await ws.api.send(createFolio, { body: { title: 'Pitch deck', defaultFiles: { 'index.html': '<h1>Pitch</h1>' }, ...extra } })
  const id = created.body.project.id as string
  expect((await ws.api.send(updateFolio, { params: { id }, body: { collaborators } })).status).toBe(200)
  return id
}

async function sessionCookie(email: string): Promise<string> {
  await api().send(requestSignInCode, { body: { email } })
  const code = await codeMailedTo(smtp, email)
  const response = await api().request(signIn, { body: { email, code } })
  expect(response.status).toBe(200)
  return response.headers.getSetCookie()[0]!.split(';')[0]!
}

describe('collaborators are told of new comments by e-mail', () => {
  it('mails each collaborator address (not the author, never the access key) after answering the comment', async () => {
    const id = await folioWith({ status: 'published', isPrivate: true, accessKey: 'sesame-secret-key' }, [
      'Colleague@Example.com',
      'second@example.com',
      'not an address',
    ])
    const comment = await ws.api.send(createComment, {
      params: { id },
      body: { text: 'Bigger logo?\nAnd a date.', versionId: 'v1', filename: 'index.html', author: 'second@example.com' },
    })
    expect(comment.status).toBe(200)
    const mail = await smtp.next('colleague@example.com')
    expect(mail.subject).toBe('New comment on “Pitch deck”')
    expect(mail.text).toContain('second@example.com commented on “Pitch deck” (index.html):')
    expect(mail.text).toContain('> Bigger logo?\n> And a date.')
    expect(mail.text).toContain(`${ts.url}/share/${id}`)
    expect(mail.text).not.toContain('sesame-secret-key')
    // The author is not told of their own comment; no one else was written to.
    await new Promise((r) => setTimeout(r, 200))
    expect(smtp.received.filter((m) => m.subject.startsWith('New comment') && m.text.includes(id)).map((m) => m.to)).toEqual([['colleague@example.com']])
  })

  it('answers the comment even when the mail server is down, and says so in the log', async () => {
    const down = await startTestServer({ mode: 'cloud', config: { smtpUrl: 'smtp://127.0.0.1:1' } })
    try {
      const owner = await createWorkspace(down, { name: 'Down' })
      const created = await owner.api.send(createFolio, { body: { title: 'Offline', status: 'published', defaultFiles: { 'index.html': '<p>x</p>' } } })
      const id = created.body.project.id
      await owner.api.send(updateFolio, { params: { id }, body: { collaborators: ['a@example.com'] } })
      const comment = await testApi(down.url).send(createComment, { params: { id }, body: { text: 'hi', versionId: 'v1', filename: 'index.html' } })
      expect(comment.status).toBe(200)
      const deadline = Date.now() + 15_000
      while (!down.logs.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expectLogged(down, [
        expect.stringMatching(new RegExp(`^folio: Could not e-mail a collaborator of folio ${id} about a new comment: .*ECONNREFUSED`)) as unknown as string,
      ])
    } finally {
      await closeClean(down)
    }
  })
})

describe('a signed-in collaborator sees that folio’s drafts and private versions, and no other', () => {
  it('opens the draft and the private folio it collaborates on; strangers and other folios stay closed', async () => {
    const draft = await folioWith({}, ['viewer@example.com'])
    const privateOne = await folioWith({ status: 'published', isPrivate: true, accessKey: 'k-123456' }, ['viewer@example.com'])
    const notMine = await folioWith({}, ['someone@example.com'])
    const collaborator = await sessionCookie('viewer@example.com')
    const stranger = await sessionCookie('stranger@example.com')

    // What GET /public gives: the file list, or nothing (a private folio), or 404 (a draft is not there for anyone but its owner).
    const files = async (id: string, headers: Record<string, string> = {}) => {
      const reply = await api().send(getPublicFolio, { params: { id }, headers })
      return reply.status === 404 ? 404 : reply.body.activeFileList
    }
    for (const [id, closed] of [
      [draft, 404],
      [privateOne, []],
    ] as const) {
      expect(await files(id)).toEqual(closed)
      expect(await files(id, { cookie: stranger })).toEqual(closed)
      expect(await files(id, { cookie: collaborator })).toEqual(['index.html'])
      // Another site's page sending the cookie gets nothing.
      expect(await files(id, { cookie: collaborator, origin: 'https://evil.example' })).toEqual(closed)
      const page = await api().send(sharePage, { params: { id }, headers: { cookie: collaborator } })
      expect(page.text).toContain('"view":"content"')
    }
    expect(await files(notMine, { cookie: collaborator })).toEqual(404)
    const other = await api().send(sharePage, { params: { id: notMine }, headers: { cookie: collaborator } })
    expect([other.status, other.text]).toEqual([404, expect.stringContaining('"view":"missing"')])
    expect(other.text).not.toContain('Pitch deck')

    // Taken off the list, the collaborator sees what anyone sees.
    await ws.api.send(updateFolio, { params: { id: draft }, body: { collaborators: [] } })
    expect(await files(draft, { cookie: collaborator })).toEqual(404)
  })
})

describe('owners are told of views by e-mail when they ask for it', () => {
  it('mails the workspace’s owner the summary of each view of a folio set to notifyViews', async () => {
    const id = await folioWith({ status: 'published' }, [])
    await ws.api.send(updateFolio, { params: { id }, body: { notifyViews: true } })
    await api().send(recordAnalytics, { params: { id }, body: { isInitial: true } })
    await api().send(recordAnalytics, {
      params: { id },
      body: {
        sessionSeconds: 95,
        kind: 'sections',
        total: 5,
        parts: [{ n: 2, s: 60, v: true }],
        furthest: 3,
        end: { seen: 3, total: 5, seconds: 95, longest: 2 },
      },
    })
    const mail = await smtp.next('owner@example.com')
    expect(mail.subject).toBe('A viewer read 3 of 5 sections in 2 min, longest on section 2 — “Pitch deck”')
    expect(mail.text).toContain(`${ts.url}/share/${id}`)
  })
})
