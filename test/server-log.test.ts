import { truncate } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { listFolios, updateFolio } from '../src/api/files.js'
import { verifyAccessKey } from '../src/api/sharing.js'
import { sharePage } from '../src/api/viewer.js'
import { LogLevels } from '../src/log/logger.js'
import { redactPath } from '../src/server/http/request-log.js'
import { testApi } from './helpers/api.js'
import { startTestServer, type TestServer } from './helpers/server.js'
import { closeClean } from './helpers/use-server.js'

const KEY = `folio_live_${'ab'.repeat(24)}`
const ACCESS_KEY = 'pa55 word'
const servers: TestServer[] = []
afterAll(async () => {
  for (const s of servers) await closeClean(s)
})

describe('the request log (folio serve --verbose)', () => {
  it('has a line per request and none of the keys, access keys or viewer grants', async () => {
    let ts = await startTestServer({ config: { apiKey: KEY }, logLevel: LogLevels.debug })
    servers.push(ts)
    // The owner sends the key as a Bearer header; the viewer proves the access key, then has a cookie.
    const owner = testApi(ts.url, { key: KEY })
    const viewer = testApi(ts.url)
    const id = await owner.create('Secret', { 'index.html': '<h1>Hi</h1>' }, { status: 'published' })
    expect((await owner.send(updateFolio, { params: { id }, body: { isPrivate: true, accessKey: ACCESS_KEY } })).status).toBe(200)
    const proved = await viewer.send(verifyAccessKey, { params: { id }, body: { accessKey: ACCESS_KEY } })
    expect(proved.body).toEqual({ success: true })
    const cookie = proved.headers.get('set-cookie')!.split(';')[0]!
    const page = (await viewer.send(sharePage, { params: { id }, headers: { cookie } })).text
    const frameBase: string = JSON.parse(/<script id="folio-boot" type="application\/json">(.*?)<\/script>/s.exec(page)![1]!).frameBase
    const grant = frameBase.split('/')[3]!
    expect(grant.length).toBeGreaterThan(10)
    expect((await fetch(`${ts.url}${frameBase}index.html`)).status).toBe(200)
    expect((await viewer.send(listFolios, { query: { key: KEY } })).status).toBe(200)

    const lines = ts.logs
    expect(lines).toContainEqual(expect.stringMatching(/^\[http\] POST \/api\/files 201 \d+ ms$/))
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[http\\] PUT /api/files/${id} 200 \\d+ ms$`)))
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[http\\] POST /api/files/${id}/public 200 \\d+ ms$`)))
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[http\\] GET /share/${id} 200 \\d+ ms$`)))
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\[http\\] GET /v/${id}/\\[grant\\]/index.html 200 \\d+ ms$`)))
    expect(lines).toContainEqual(expect.stringMatching(/^\[http\] GET \/api\/files 200 \d+ ms$/))

    // An unhandled error names the request by its redacted path too (errors.ts).
    await ts.stop()
    await truncate(join(ts.dataDir, 'folios', id, 'meta.json'), 10)
    ts = await startTestServer({ dataDir: ts.dataDir, config: { apiKey: KEY }, logLevel: LogLevels.debug })
    servers.push(ts)
    expect((await fetch(`${ts.url}${frameBase}index.html?preview=1&key=${KEY}`)).status).toBe(500)
    expect(ts.logs[0]).toBe(
      `folio: GET /v/${id}/[grant]/index.html: ${join(ts.dataDir, 'folios', id, 'meta.json')} is damaged (not valid JSON). Restore it from a backup, or delete the folio.`,
    )
    expect(ts.logs.at(-1)).toMatch(new RegExp(`^\\[http\\] GET /v/${id}/\\[grant\\]/index.html 500 \\d+ ms$`))

    const everything = [...lines, ...ts.logs].join('\n')
    for (const secret of [KEY, ACCESS_KEY, grant, 'key=', 'preview', 'Bearer']) expect(everything).not.toContain(secret)
    // Nothing else: request lines, and on the damaged server the one error provoked on purpose. Seen
    // here, they are taken out, so the servers close to a clean log.
    expect(lines.filter((line) => !line.startsWith('[http] '))).toEqual([])
    expect(ts.logs).toHaveLength(2)
    for (const server of servers) server.logs.splice(0)
  })

  it('is off below debug: the default test server logs no requests', async () => {
    const ts = await startTestServer()
    servers.push(ts)
    expect((await testApi(ts.url).send(listFolios)).status).toBe(200)
    expect(ts.logs).toEqual([])
  })
})

describe('redactPath', () => {
  it.each([
    ['/api/files?key=abc', '/api/files'],
    ['/v/abc123/eyJ.signed.grant/index.html?x=1#top', '/v/abc123/[grant]/index.html'],
    ['/v/abc123/-/css/site.css', '/v/abc123/-/css/site.css'],
    ['//v/abc123/token/a.html', '//v/abc123/[grant]/a.html'],
    ['http://127.0.0.1:3000/v/abc123/token/a.html?key=k', '/v/abc123/[grant]/a.html'],
    ['/share/abc123?preview=1', '/share/abc123'],
  ])('%s → %s', (url, shown) => {
    expect(redactPath(url)).toBe(shown)
  })
})
