import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Contract } from '../src/api/contract.js'
import { createComment, deleteComment, listComments, resolveComment } from '../src/api/engagement.js'
import { createFolio, deleteFolio, getBrief, getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { contractPath } from '../src/client/index.js'
import { readReply } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

const s = useServer()
let id: string
let snapshot: unknown

/** The folio every nasty request aims at must come out exactly as it went in. */
async function expectUnchanged() {
  const reply = await s.api.send(getFolio, { params: { id } })
  expect(reply.status).toBe(200)
  expect(reply.body).toEqual(snapshot)
}

/** A request with an odd id put into the endpoint's path as it is: escaping it would defuse the test. */
async function atOddId(contract: Contract, odd: string, body?: unknown) {
  const json = body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
  return readReply(await fetch(s.api.server + contractPath(contract, { id: odd }, { verbatim: true }), { method: contract.method, ...json }))
}

beforeAll(async () => {
  id = await s.api.create('Target', { 'index.html': '<h1>Keep me</h1>', 'css/a.css': 'h1{color:red}' })
  snapshot = (await s.api.send(getFolio, { params: { id } })).body
})

describe('malformed bodies', () => {
  it.each([
    ['empty', '', 'INVALID_JSON'],
    ['truncated', '{"title": "x"', 'INVALID_JSON'],
    ['trailing garbage', '{"title":"x"} extra', 'INVALID_JSON'],
    ['single quotes', "{'title':'x'}", 'INVALID_JSON'],
    ['null', 'null', 'INVALID_BODY'],
    ['array', '[{"title":"x"}]', 'INVALID_BODY'],
    ['string', '"hello"', 'INVALID_BODY'],
    ['number', '42', 'INVALID_BODY'],
  ])('PUT with a %s body → 400 %s', async (_name, body, error) => {
    const reply = await s.api.send(updateFolio, { params: { id }, raw: body })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe(error)
    await expectUnchanged()
  })

  it('survives JSON nested a million levels deep', async () => {
    const deep = `{"title":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`
    const reply = await s.api.send(updateFolio, { params: { id }, raw: deep })
    expect(reply.status).toBe(400)
    await expectUnchanged()
  })

  it('refuses valid JSON nested deeper than 64 levels with a message, not a stack overflow', async () => {
    const nested = (depth: number) => `{"designPreferences":{"theme":${'['.repeat(depth)}${']'.repeat(depth)}}}`
    const reply = await s.api.send(updateFolio, { params: { id }, raw: nested(3000) })
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ error: 'INVALID_BODY', message: 'The JSON is nested deeper than 64 levels.' })
    await expectUnchanged()
  })

  it('drops __proto__ keys instead of letting them reach an object', async () => {
    const reply = await s.api.send(updateFolio, { params: { id }, raw: '{"designPreferences": {"__proto__": {"polluted": true}, "theme": "x"}}' })
    expect(reply.status).toBe(200)
    expect(reply.body.project.designPreferences).toEqual({ theme: 'x' })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    await s.api.send(updateFolio, { params: { id }, body: { designPreferences: (snapshot as any).designPreferences } })
    snapshot = (await s.api.send(getFolio, { params: { id } })).body
  })
})

describe('wrong types and values name the field', () => {
  it.each([
    [{ files: 'index.html' }, 'files'],
    [{ files: { 'index.html': 42 } }, 'files'],
    [{ files: { '../../etc/passwd': 'x' } }, '..'],
    [{ files: { '/abs.html': 'x' } }, 'absolute'],
    [{ files: { 'a\\b.html': 'x' } }, 'backslash'],
    [{ files: { 'a\u0000.html': 'x' } }, 'NUL'],
    [{ files: { '': 'x' } }, 'empty'],
    [{ files: { ['x'.repeat(600)]: 'x' } }, 'longer'],
    [{ updated_files: [] }, 'updated_files'],
    [{ title: 7 }, 'Title is required'],
    [{ title: '' }, 'Title is required'],
    [{ isPrivate: 'true' }, 'isPrivate'],
    [{ status: 'archived' }, 'status'],
    [{ projectMode: 'slides' }, 'projectMode'],
    [{ designPreferences: 'dark' }, 'designPreferences'],
    [{ collaborators: 'me' }, 'collaborators'],
    [{ referenceFiles: {} }, 'referenceFiles'],
    [{ reactions: [1] }, 'reactions'],
    [{ restoreVersionId: 1 }, 'restoreVersionId'],
    [{ commitMessage: false, files: { 'index.html': 'x' } }, 'commitMessage'],
    [{ publicTunnelEnabled: 'no' }, 'publicTunnelEnabled'],
    [{ commentModeration: 'nobody' }, 'commentModeration'],
    [{ title: 't'.repeat(501) }, 'title must be at most 500 characters'],
    [{ description: 'd'.repeat(10_001) }, 'description must be at most 10,000 characters'],
    [{ accessKey: 'k'.repeat(257) }, 'accessKey'],
    [{ commitMessage: 'm'.repeat(2001), files: { 'index.html': 'x' } }, 'commitMessage'],
    [{ designPreferences: { customGuidelines: 'g'.repeat(70_000) } }, 'designPreferences must be under 64 KB'],
    [{ referenceFiles: [{ text: 'r'.repeat(600_000) }] }, 'referenceFiles must be under 512 KB'],
    [{ collaborators: Array.from({ length: 101 }, (_, i) => `p${i}@example.com`) }, 'collaborators'],
    [{ files: { 'index.html': 'A', './index.html': 'B' } }, 'name the same file'],
  ])('PUT %j → 400 naming %s', async (body, field) => {
    const reply = await s.api.send(updateFolio, { params: { id }, body })
    expect(reply.status).toBe(400)
    expect(`${reply.body.error} ${reply.body.message ?? ''}`).toContain(field)
    await expectUnchanged()
  })
})

describe('gzip payloads', () => {
  it.each([
    ['not base64', { _gz: true, _d: '***' }],
    ['missing _d', { _gz: true }],
    ['not gzip', { _gz: true, _d: Buffer.from('plain text').toString('base64') }],
    ['truncated gzip', { _gz: true, _d: gzipSync('{"title":"x"}').subarray(0, 12).toString('base64') }],
    ['gzip of non-JSON', { _gz: true, _d: gzipSync('not json').toString('base64') }],
    ['gzip of an array', { _gz: true, _d: gzipSync('[1,2]').toString('base64') }],
  ])('%s → 400 INVALID_BODY', async (_name, body) => {
    const reply = await s.api.send(updateFolio, { params: { id }, body })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('INVALID_BODY')
    await expectUnchanged()
  })

  it('stops a gzip bomb at the decompressed cap with 413', async () => {
    // 150 MB of zeros compress to ~150 KB; the cap on what a payload may expand to is 32 MB.
    const bomb = gzipSync(Buffer.alloc(150 * 1024 * 1024), { level: 9 }).toString('base64')
    expect(bomb.length).toBeLessThan(1024 * 1024)
    const reply = await s.api.send(updateFolio, { params: { id }, body: { _gz: true, _d: bomb } })
    expect(reply.status).toBe(413)
    expect(reply.body.error).toBe('FOLIO_TOO_LARGE')
    await expectUnchanged()
  })
})

describe('oversize bodies', () => {
  it('refuses a declared body over 20 MB with 413 FOLIO_TOO_LARGE', async () => {
    const body = JSON.stringify({ files: { 'index.html': 'x'.repeat(21 * 1024 * 1024) } })
    const reply = await s.api.send(updateFolio, { params: { id }, raw: body })
    expect(reply.status).toBe(413)
    expect(reply.body.error).toBe('FOLIO_TOO_LARGE')
    await expectUnchanged()
  })

  it('refuses a chunked body (no Content-Length) once it passes 20 MB while streaming', async () => {
    let sent = 0
    const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024))
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"files":{"index.html":"'))
      },
      pull(controller) {
        // Endless: only the server's limit ends it.
        sent += chunk.length
        if (sent > 200 * 1024 * 1024) controller.close()
        else controller.enqueue(chunk)
      },
    })
    const res = await s.api.request(updateFolio, { params: { id }, raw: stream })
    expect(res.status).toBe(413)
    expect((await res.json()).error).toBe('FOLIO_TOO_LARGE')
    expect(sent).toBeLessThan(100 * 1024 * 1024)
    await expectUnchanged()
  })

  it('refuses an oversize create too, and keeps answering', async () => {
    const body = JSON.stringify({ title: 'Huge', initialHtml: 'x'.repeat(21 * 1024 * 1024) })
    const reply = await s.api.send(createFolio, { raw: body })
    expect(reply.status).toBe(413)
    expect(reply.body.error).toBe('FOLIO_TOO_LARGE')
    expect((await s.api.send(listFolios)).body.some((f: any) => f.title === 'Huge')).toBe(false)
  })

  it('keeps answering after a client that hangs up mid-body', async () => {
    await new Promise<void>((resolve, reject) => {
      const { port } = new URL(s.api.server)
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `${updateFolio.method} ${contractPath(updateFolio, { id })} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"files":{"index.html":"half`,
        )
        setTimeout(() => {
          socket.destroy()
          resolve()
        }, 50)
      })
      socket.on('error', reject)
    })
    await new Promise((r) => setTimeout(r, 50))
    await expectUnchanged()
  })
})

describe('odd ids and paths', () => {
  it.each([
    '..',
    '%2e%2e',
    '%2E%2E%2Fformat.json',
    '..%2F..%2Fformat.json',
    '.folio',
    'a.b',
    '%00',
    'x%00y',
    encodeURIComponent('ü'),
    `${'x'.repeat(65)}`,
    `${'x'.repeat(5000)}`,
    '%F0%9F%94%A5',
    'folio.lock',
  ])('GET/PUT/DELETE of an odd id (#%#) → 4xx, never a 500', async (odd) => {
    for (const reply of [
      await atOddId(getFolio, odd),
      await atOddId(updateFolio, odd, { title: 'x' }),
      await atOddId(deleteFolio, odd),
      await atOddId(getBrief, odd),
    ]) {
      expect(reply.status).toBeGreaterThanOrEqual(400)
      expect(reply.status).toBeLessThan(500)
      expect(typeof reply.body.error).toBe('string')
    }
    await expectUnchanged()
  })

  it('answers a malformed percent-encoding with 400', async () => {
    const reply = await atOddId(getFolio, '%E0%A4%A')
    expect(reply.status).toBeGreaterThanOrEqual(400)
    expect(reply.status).toBeLessThan(500)
  })

  it('answers unknown routes with 404 and wrong methods with 405 and Allow', async () => {
    // No contract names this path: that is the point.
    const unknown = await readReply(await fetch(`${s.api.server}/api/nothing-here`))
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toBe('Not found')
    const wrong = await readReply(
      await fetch(s.api.url(updateFolio, { id }), { method: 'POST', body: JSON.stringify({ title: 'x' }), headers: { 'content-type': 'application/json' } }),
    )
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toContain('PUT')
    await expectUnchanged()
  })

  it('answers a path the router cannot take (an empty segment) with 404, never a 405 that names the same method', async () => {
    const published = await s.api.create('Shown', { 'index.html': '<h1>Shown</h1>' }, { status: 'published' })
    for (const [method, path] of [
      ['GET', `/v/${published}/-//index.html`],
      ['HEAD', `/v/${published}/-//index.html`],
      ['GET', `/v/${published}//index.html`],
      ['GET', `/api/files//public`],
      ['PUT', `/api/files//`],
    ]) {
      const reply = await readReply(
        await fetch(`${s.api.server}${path}`, { method, ...(method === 'PUT' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) }),
      )
      expect(reply.status, `${method} ${path}`).toBe(404)
      if (method !== 'HEAD') expect(reply.body.error).toBe('Not found')
    }
    // A real file of the folio, and a real wrong method on that route, still answer as before.
    expect((await fetch(`${s.api.server}/v/${published}/-/index.html`)).status).toBe(200)
    const post = await readReply(await fetch(`${s.api.server}/v/${published}/-/index.html`, { method: 'POST' }))
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET')
  })
})

describe('odd comment ids, tokens and moderation requests', () => {
  it('answers 4xx and changes nothing, never a 500', async () => {
    const folio = await s.api.create('Commented', { 'index.html': '<h1>x</h1>' }, { status: 'published' })
    const made = await s.api.send(createComment, { params: { id: folio }, body: { text: 'keep me', versionId: 'v1', filename: 'index.html' } })
    const before = (await s.api.send(listComments, { params: { id: folio } })).body
    const oddIds = [
      'c_0',
      'c_007',
      'c_',
      'c_-1',
      'c_1e3',
      'c_99999999999999999999',
      `c_${'9'.repeat(5000)}`,
      '../meta.json',
      'toString',
      '__proto__',
      made.body.comment.id.replace('c_', 'c_0'),
    ]
    for (const commentId of oddIds) {
      expect((await s.api.send(resolveComment, { params: { id: folio }, body: { commentId, resolved: true } })).status).toBe(404)
      expect((await s.api.send(deleteComment, { params: { id: folio }, query: { commentId } })).status).toBe(404)
    }
    for (const body of [
      { commentId: made.body.comment.id, deleted: 'no' },
      { commentId: made.body.comment.id },
      { commentId: made.body.comment.id, resolved: null },
    ]) {
      const reply = await s.api.send(resolveComment, { params: { id: folio }, body })
      expect(reply.status).toBe(400)
      expect(reply.body.error).toBe('INVALID_BODY')
    }
    const hugeToken = { 'x-comment-token': 't'.repeat(60_000) }
    expect((await s.api.send(resolveComment, { params: { id: folio }, body: { commentId: 'c_1', resolved: true }, headers: hugeToken })).status).toBeLessThan(
      500,
    )
    expect((await s.api.send(listComments, { params: { id: folio } })).body).toEqual(before)
  })
})
