import { beforeAll, describe, expect, it } from 'vitest'
import { createComment, deleteComment, getReactions, listComments, react, recordAnalytics, resolveComment, setReactions } from '../src/api/engagement.js'
import { createFolio, getFolio, updateFolio } from '../src/api/files.js'
import { getKey } from '../src/api/keys.js'
import { folioEvents, getPublicFolio, verifyAccessKey } from '../src/api/sharing.js'
import { rawFile, renewFrame, sharePage } from '../src/api/viewer.js'
import { type Reply, type TestApi, testApi } from './helpers/api.js'
import { openEvents } from './helpers/events.js'
import { useServer } from './helpers/use-server.js'
import { createWorkspace, type TestWorkspace, useCloudServer } from './helpers/workspaces.js'

/**
 * Spec, Folio status: "A draft folio is visible only to its owner". To anyone else (a caller
 * with no credential, another workspace's key, in OSS a caller from elsewhere without the key) a
 * draft is answered on every public endpoint exactly as a folio that does not exist: nothing
 * says it is there, what it is called, or what it holds.
 */

const TITLE = 'Project Nightjar'
const DESCRIPTION = 'Acquisition of Initech, before the announcement'
const SITE = { 'index.html': `<h1>${TITLE}</h1>`, 'two.html': '<p>Two</p>' }
/** An id no folio has: what a made-up link gets is what a draft must get. */
const UNKNOWN = 'Zz9Zz9Zz9Zz9'
const LIMITS = { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 }

const bootOf = (html: string) => {
  const json = /<script id="folio-boot" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1]
  return json ? JSON.parse(json) : undefined
}

/** What an endpoint answered, for comparing a draft's answer with a made-up id's. */
const answer = (reply: Reply, id: string) => ({ status: reply.status, body: reply.text.replaceAll(id, '{id}') })

/** The status and body of an event stream's answer, without waiting for a stream to end. */
async function eventsAnswer(api: TestApi, id: string) {
  const response = await api.request(folioEvents, { params: { id } })
  const text = response.status === 200 ? '' : await response.text()
  await response.body?.cancel().catch(() => {})
  return { status: response.status, body: text.replaceAll(id, '{id}') }
}

/**
 * Every public endpoint for `id`, as `api` asks it. Writes are the ones a viewer would send (a
 * comment, a reply's resolve and delete, a reaction click and a count, a beacon, a key).
 */
async function everyPublicAnswer(api: TestApi, id: string, commentId: string) {
  const params = { id }
  return {
    getPublic: answer(await api.send(getPublicFolio, { params }), id),
    sharePage: answer(await api.send(sharePage, { params }), id),
    sharePreview: answer(await api.send(sharePage, { params, query: { preview: '1' } }), id),
    listComments: answer(await api.send(listComments, { params }), id),
    createComment: answer(await api.send(createComment, { params, body: { text: 'I can see it', versionId: 'v1', filename: 'index.html' } }), id),
    resolveComment: answer(await api.send(resolveComment, { params, body: { commentId, resolved: true } }), id),
    deleteComment: answer(await api.send(deleteComment, { params, query: { commentId } }), id),
    getReactions: answer(await api.send(getReactions, { params }), id),
    react: answer(await api.send(react, { params, body: { increments: { '🔥': 1 } } }), id),
    setReactions: answer(await api.send(setReactions, { params, body: { reactions: { '🔥': 50 } } }), id),
    analytics: answer(await api.send(recordAnalytics, { params, body: { isInitial: true, sessionSeconds: 30 } }), id),
    events: await eventsAnswer(api, id),
    renewFrame: answer(await api.send(renewFrame, { params }), id),
    raw: answer(await api.send(rawFile, { params: { id, access: '-', path: 'index.html' } }), id),
    rawVersioned: answer(await api.send(rawFile, { params: { id, access: '-@v1', path: 'two.html' } }), id),
    rawForged: answer(await api.send(rawFile, { params: { id, access: 'eyJmIjoi.forged', path: 'index.html' } }), id),
  }
}

/** What a stranger gets for a draft: a 404 with the endpoint's own not-found error, and never a word of it. */
function expectNothingOfTheDraft(answers: Awaited<ReturnType<typeof everyPublicAnswer>>) {
  const json = (name: keyof typeof answers) => JSON.parse(answers[name].body)
  expect(answers.getPublic.status).toBe(404)
  expect(json('getPublic')).toEqual({ error: 'Project not found' })
  for (const name of [
    'listComments',
    'createComment',
    'resolveComment',
    'deleteComment',
    'getReactions',
    'react',
    'setReactions',
    'analytics',
    'events',
    'renewFrame',
  ] as const) {
    expect([name, answers[name].status, json(name)]).toEqual([name, 404, { error: 'Project not found' }])
  }
  for (const name of ['raw', 'rawVersioned', 'rawForged'] as const)
    expect([name, answers[name].status, json(name)]).toEqual([name, 404, { error: 'Not found' }])
  for (const name of ['sharePage', 'sharePreview'] as const) {
    const page = answers[name]
    expect(page.status).toBe(404)
    expect(bootOf(page.body)).toEqual({ api: '/api/files/{id}', id: '{id}', title: 'Not found', view: 'missing' })
    expect(page.body).not.toContain(TITLE)
    expect(page.body).not.toContain('Nightjar')
    expect(page.body).not.toContain('Initech')
    expect(page.body).not.toMatch(/<meta property="og:description"/)
    expect(page.body).toContain('<meta property="og:title" content="Not found">')
  }
  for (const reply of Object.values(answers)) expect(reply.body).not.toContain('Initech')
}

describe('Cloud: a draft is its workspace’s alone', () => {
  const s = useCloudServer({ config: { rateLimits: LIMITS } })
  let a: TestWorkspace
  let b: TestWorkspace
  let draft: string
  let keyedDraft: string
  const commentOf: Record<string, string> = {}

  beforeAll(async () => {
    a = s.workspace
    b = await createWorkspace(s.ts, { name: 'Another' })
    const make = async (extra: object) =>
      (await a.api.send(createFolio, { body: { title: TITLE, description: DESCRIPTION, defaultFiles: SITE, ...extra } })).body.project.id as string
    draft = await make({})
    // A draft that also has an access key: even the right key shows it to nobody but its owner.
    keyedDraft = await make({ isPrivate: true, accessKey: 'sesame' })
    for (const id of [draft, keyedDraft]) {
      const comment = await a.api.send(createComment, { params: { id }, body: { text: 'A’s own note', versionId: 'v1', filename: 'index.html' } })
      expect(comment.status).toBe(200)
      commentOf[id] = comment.body.comment.id
    }
  })

  it('is a 404 on every public endpoint, to a caller with no credential and to another workspace’s key, as a made-up id is', async () => {
    const unknown = await everyPublicAnswer(s.anonymous, UNKNOWN, 'c_1')
    expectNothingOfTheDraft(unknown)
    for (const id of [draft, keyedDraft]) {
      for (const [who, api] of [
        ['anonymous', s.anonymous],
        ['workspace B', b.api],
      ] as const) {
        const answers = await everyPublicAnswer(api, id, commentOf[id]!)
        expectNothingOfTheDraft(answers)
        // Not only a 404: the very answer a folio that does not exist gets.
        expect([who, answers]).toEqual([who, unknown])
      }
    }
  })

  it('answers POST /public as for a folio that does not exist: success false, even for the right key, no cookie', async () => {
    for (const [api, key] of [
      [s.anonymous, 'sesame'],
      [b.api, 'sesame'],
      [s.anonymous, 'wrong'],
    ] as const) {
      const reply = await api.send(verifyAccessKey, { params: { id: keyedDraft }, body: { accessKey: key } })
      const unknown = await api.send(verifyAccessKey, { params: { id: UNKNOWN }, body: { accessKey: key } })
      expect([reply.status, reply.body]).toEqual([unknown.status, unknown.body])
      expect([reply.status, reply.body]).toEqual([200, { success: false }])
      expect(reply.headers.get('set-cookie')).toBeNull()
    }
  })

  it('left nothing of those requests in the draft', async () => {
    for (const id of [draft, keyedDraft]) {
      const folio = (await a.api.send(getFolio, { params: { id } })).body
      expect(folio.comments.map((c: { text: string; resolved: boolean; deletedAt?: string }) => [c.text, c.resolved, c.deletedAt])).toEqual([
        ['A’s own note', false, undefined],
      ])
      expect(Object.values(folio.reactions).every((n) => n === 0)).toBe(true)
      expect(folio.analytics.views).toBe(0)
    }
  })

  it('is all there for the owner’s key: metadata, page, frame, comments, reactions, events, preview', async () => {
    const params = { id: draft }
    const pub = await a.api.send(getPublicFolio, { params })
    expect(pub.status).toBe(200)
    expect(pub.body).toMatchObject({ title: TITLE, description: DESCRIPTION, draft: true, activeFileList: ['index.html', 'two.html'] })
    const page = await a.api.send(sharePage, { params })
    expect(page.status).toBe(200)
    const boot = bootOf(page.text)
    expect(boot).toMatchObject({ view: 'content', title: TITLE })
    expect((await s.anonymous.send(rawFile, { params: { id: draft, access: boot.frameBase.split('/')[3], path: 'index.html' } })).text).toContain(TITLE)
    expect((await a.api.send(listComments, { params })).body.map((c: { text: string }) => c.text)).toEqual(['A’s own note'])
    expect((await a.api.send(getReactions, { params })).status).toBe(200)
    expect((await a.api.send(renewFrame, { params })).status).toBe(200)
    const events = await openEvents(a.api, draft)
    await events.cancel()

    // The owner's preview: the cookie it sets shows the draft in that browser, without the key.
    const preview = await a.api.send(sharePage, { params, query: { preview: '1' } })
    expect(bootOf(preview.text)).toMatchObject({ view: 'content', preview: true, draft: true })
    const cookie = preview.headers.get('set-cookie')!.split(';')[0]!
    expect(bootOf((await s.anonymous.send(sharePage, { params, headers: { cookie } })).text)).toMatchObject({ view: 'content', title: TITLE })
    expect((await s.anonymous.send(getPublicFolio, { params, headers: { cookie } })).body.activeFileList).toEqual(['index.html', 'two.html'])
    // That cookie is for that folio only.
    expect((await s.anonymous.send(getPublicFolio, { params: { id: keyedDraft }, headers: { cookie } })).status).toBe(404)
  })

  it('shows up for viewers once published, and goes away again when unpublished', async () => {
    const id = (await a.api.send(createFolio, { body: { title: TITLE, defaultFiles: SITE } })).body.project.id as string
    expect((await s.anonymous.send(getPublicFolio, { params: { id } })).status).toBe(404)
    await a.api.send(updateFolio, { params: { id }, body: { status: 'published' } })
    expect((await s.anonymous.send(getPublicFolio, { params: { id } })).body).toMatchObject({ title: TITLE, activeFileList: ['index.html', 'two.html'] })
    expect((await s.anonymous.send(rawFile, { params: { id, access: '-', path: 'index.html' } })).status).toBe(200)
    await a.api.send(updateFolio, { params: { id }, body: { status: 'draft' } })
    // Whatever the hot cache kept of the published folio went with it.
    expect((await s.anonymous.send(getPublicFolio, { params: { id } })).status).toBe(404)
    expect((await s.anonymous.send(rawFile, { params: { id, access: '-', path: 'index.html' } })).body).toEqual({ error: 'Not found' })
  })
})

describe('OSS: a draft is the owner’s, and the owner is this machine or the key', () => {
  const s = useServer({ config: { rateLimits: LIMITS } })
  /** A viewer through the tunnel: not this machine, no key. */
  const viewer = () => testApi(s.ts.server.tunnelTarget)
  let draft: string
  let commentId: string
  let key: string

  beforeAll(async () => {
    draft = (await s.api.send(createFolio, { body: { title: TITLE, description: DESCRIPTION, defaultFiles: SITE } })).body.project.id
    key = (await s.api.send(getKey)).body.apiKey
    // The owner's credential comments on its own draft (the viewer endpoints take the key, not
    // the open local API: any page on this machine is that).
    const comment = await testApi(s.api.server, { key }).send(createComment, {
      params: { id: draft },
      body: { text: 'Owner’s note', versionId: 'v1', filename: 'index.html' },
    })
    expect(comment.status).toBe(200)
    commentId = comment.body.comment.id
  })

  it('is a 404 on every public endpoint to a caller from elsewhere without the key, as a made-up id is', async () => {
    const unknown = await everyPublicAnswer(viewer(), UNKNOWN, 'c_1')
    const answers = await everyPublicAnswer(viewer(), draft, commentId)
    expectNothingOfTheDraft(answers)
    expect(answers).toEqual(unknown)
    const folio = (await s.api.send(getFolio, { params: { id: draft } })).body
    expect(folio.comments.map((c: { text: string; resolved: boolean }) => [c.text, c.resolved])).toEqual([['Owner’s note', false]])
    expect(folio.analytics.views).toBe(0)
  })

  it('is the owner’s with the key, from anywhere', async () => {
    const owner = testApi(s.ts.server.tunnelTarget, { key })
    expect((await owner.send(getPublicFolio, { params: { id: draft } })).body).toMatchObject({
      title: TITLE,
      draft: true,
      activeFileList: ['index.html', 'two.html'],
    })
    expect(bootOf((await owner.send(sharePage, { params: { id: draft } })).text)).toMatchObject({ view: 'content', title: TITLE })
    expect((await owner.send(listComments, { params: { id: draft } })).status).toBe(200)
  })

  it('is the owner’s on this machine without the key: the draft notice and a preview; its comments take the key', async () => {
    const page = await s.api.send(sharePage, { params: { id: draft } })
    expect(page.status).toBe(200)
    expect(bootOf(page.text)).toMatchObject({ view: 'draft', title: TITLE })
    expect((await s.api.send(getPublicFolio, { params: { id: draft } })).body).toMatchObject({ title: TITLE, draft: true, activeFileList: [] })
    // The viewer endpoints tell the open local API (any page on this machine) that the draft is
    // not published; the owner reads its comments with the key, GET /api/files/{id} or MCP.
    const comments = await s.api.send(listComments, { params: { id: draft } })
    expect([comments.status, comments.body.error]).toEqual([403, 'Access key required'])
    expect((await testApi(s.api.server, { key }).send(listComments, { params: { id: draft } })).body.map((c: { text: string }) => c.text)).toEqual([
      'Owner’s note',
    ])
    // Viewer writes that are not the owner's to make stay refused (the owner is told why).
    const beacon = await s.api.send(recordAnalytics, { params: { id: draft }, body: { isInitial: true } })
    expect([beacon.status, beacon.body.error]).toEqual([403, 'Access key required'])
    expect(bootOf((await s.api.send(sharePage, { params: { id: draft }, query: { preview: '1' } })).text)).toMatchObject({ view: 'content', preview: true })
  })

  it('answers POST /public for a keyed draft as for a missing folio to a viewer, and counts no guess', async () => {
    const id = (await s.api.send(createFolio, { body: { title: TITLE, defaultFiles: SITE } })).body.project.id
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'sesame' } })
    for (let i = 0; i < 10; i++) {
      const reply = await viewer().send(verifyAccessKey, { params: { id }, body: { accessKey: i === 9 ? 'sesame' : `wrong ${i}` } })
      expect([reply.status, reply.body, reply.headers.get('set-cookie')]).toEqual([200, { success: false }, null])
    }
  })

  it('a viewer’s open stream is told the folio is gone when it becomes a draft, as for a deletion', async () => {
    const id = (await s.api.send(createFolio, { body: { title: TITLE, defaultFiles: SITE, status: 'published' } })).body.project.id
    const events = await openEvents(viewer(), id)
    const mine = await openEvents(testApi(s.ts.server.tunnelTarget, { key }), id)
    expect((await s.api.send(updateFolio, { params: { id }, body: { status: 'draft' } })).status).toBe(200)
    await events.ended()
    expect(events.events).toEqual([
      { event: 'revoked', data: { reason: 'deleted' } },
      { event: 'deleted', data: {} },
    ])
    // The owner's stream goes on.
    await mine.next('meta', (d) => d.status === 'draft')
    expect(mine.closed).toBe(false)
    await mine.cancel()
  })
})

describe('private folios keep their key gate', () => {
  const s = useServer({ config: { rateLimits: LIMITS } })
  const viewer = () => testApi(s.ts.server.tunnelTarget)

  it('tells a viewer without the key that it needs one (403), and shows the gate with its title', async () => {
    const id = (await s.api.send(createFolio, { body: { title: TITLE, defaultFiles: SITE, status: 'published' } })).body.project.id
    await s.api.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: 'sesame' } })
    expect((await viewer().send(getPublicFolio, { params: { id } })).body).toMatchObject({ title: TITLE, isPrivate: true, activeFileList: [] })
    const gate = await viewer().send(sharePage, { params: { id } })
    expect([gate.status, bootOf(gate.text).view]).toEqual([200, 'gate'])
    for (const reply of [
      await viewer().send(listComments, { params: { id } }),
      await viewer().send(getReactions, { params: { id } }),
      await viewer().send(recordAnalytics, { params: { id }, body: {} }),
    ]) {
      expect([reply.status, reply.body.error]).toEqual([403, 'Access key required'])
    }
    const stream = await viewer().send(folioEvents, { params: { id } })
    expect([stream.status, stream.body.error]).toEqual([403, 'Access key required'])
    const proved = await viewer().send(verifyAccessKey, { params: { id }, body: { accessKey: 'sesame' } })
    expect(proved.body).toEqual({ success: true })
  })
})
