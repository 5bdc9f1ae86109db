import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { getSyncManifest, syncFiles } from '../src/api/sync.js'
import { rawFile } from '../src/api/viewer.js'
import { tinyPng } from './helpers/images.js'
import { useServer } from './helpers/use-server.js'

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex')

describe('POST /api/files/{id}/sync', () => {
  const s = useServer()

  it('lists the hashes of the latest version, so only changed files need to travel', async () => {
    const id = await s.api.create('Sync', { 'index.html': 'one', 'a.css': 'a{}' })
    const manifest = await s.api.send(getSyncManifest, { params: { id } })
    expect(manifest.body).toEqual({ versionId: 'v1', files: { 'index.html': { sha256: sha('one'), size: 3 }, 'a.css': { sha256: sha('a{}'), size: 3 } } })
  })

  it('applies a batch (add, change, delete) as exactly one version, leaving other files alone', async () => {
    const id = await s.api.create('Batch', { 'index.html': 'one', 'a.css': 'a{}', 'old.js': 'x' })
    const reply = await s.api.send(syncFiles, {
      params: { id },
      body: { files: { 'index.html': 'two', 'new.html': 'new', 'old.js': null }, message: 'from my laptop', baseVersionId: 'v1' },
    })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ success: true, versionId: 'v2', changed: true, files: { added: 1, updated: 1, deleted: 1 } })
    const folio = (await s.api.send(getFolio, { params: { id } })).body
    expect(folio.versions).toHaveLength(2)
    expect(folio.versions[1]).toMatchObject({ commitMessage: 'from my laptop', files: { 'index.html': 'two', 'a.css': 'a{}', 'new.html': 'new' } })
  })

  it('makes no version when nothing changed', async () => {
    const id = await s.api.create('Same', { 'index.html': 'one' })
    const reply = await s.api.send(syncFiles, { params: { id }, body: { files: { 'index.html': 'one', 'missing.txt': null } } })
    expect(reply.body).toEqual({ success: true, versionId: 'v1', changed: false, files: { added: 0, updated: 0, deleted: 0 } })
    expect((await s.api.send(getFolio, { params: { id } })).body.versionCount).toBe(1)
  })

  it('accepts the single-file shape {filename, content, change_message}', async () => {
    const id = await s.api.create('Single', { 'index.html': 'one' })
    const reply = await s.api.send(syncFiles, { params: { id }, body: { filename: 'index.html', content: 'saved', change_message: 'save' } })
    expect(reply.body).toMatchObject({ versionId: 'v2', changed: true, files: { updated: 1 } })
    expect((await s.api.send(getFolio, { params: { id } })).body.versions[1]).toMatchObject({ commitMessage: 'save', files: { 'index.html': 'saved' } })
  })

  it('stores binary content sent as base64, with the same hash the client computed', async () => {
    const id = await s.api.create('Binary', { 'index.html': '<img src="logo.png">' }, { status: 'published' })
    await s.api.send(syncFiles, { params: { id }, body: { files: { 'logo.png': { base64: tinyPng().toString('base64') } } } })
    const manifest = (await s.api.send(getSyncManifest, { params: { id } })).body
    expect(manifest.files['logo.png']).toEqual({ sha256: sha(tinyPng()), size: tinyPng().length })
    const img = await s.api.request(rawFile, { params: { id, access: '-', path: 'logo.png' } })
    expect(img.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await img.arrayBuffer()).equals(tinyPng())).toBe(true)
  })

  it('refuses a stale base with 409 VERSION_CONFLICT, and bad input with 400', async () => {
    const id = await s.api.create('Conflict', { 'index.html': 'one' })
    await s.api.send(syncFiles, { params: { id }, body: { files: { 'index.html': 'two' } } })
    const stale = await s.api.send(syncFiles, { params: { id }, body: { files: { 'index.html': 'three' }, baseVersionId: 'v1' } })
    expect(stale.status).toBe(409)
    expect(stale.body.error).toBe('VERSION_CONFLICT')
    for (const body of [{}, { files: { '../x': 'a' } }, { files: { 'a.png': { base64: '%%%' } } }, { files: 'x' }, { filename: 'a.html' }]) {
      const reply = await s.api.send(syncFiles, { params: { id }, body })
      expect(reply.status).toBe(400)
      expect(reply.body.error).toBe('INVALID_BODY')
    }
    expect((await s.api.send(getFolio, { params: { id } })).body.versionCount).toBe(2)
    expect((await s.api.send(syncFiles, { params: { id: 'nope123' }, body: { files: {} } })).status).toBe(404)
  })
})

describe('the sync endpoint with FOLIO_API_KEY set', () => {
  const KEY = `folio_live_${'ef56'.repeat(12)}`
  const s = useServer({ config: { apiKey: KEY } })

  it('needs the Bearer key (spec: Authentication 8) while the rest stays open', async () => {
    const { api } = s
    const id = await api.create('Guarded sync')
    for (const headers of [{}, { authorization: 'Bearer nope' }] as Array<Record<string, string>>) {
      expect((await api.send(syncFiles, { params: { id }, body: { files: { 'index.html': 'x' } }, headers })).status).toBe(401)
      expect((await api.send(getSyncManifest, { params: { id }, headers })).status).toBe(401)
    }
    const ok = await api.send(syncFiles, { params: { id }, body: { files: { 'index.html': 'x' } }, headers: { authorization: `Bearer ${KEY}` } })
    expect(ok.body.changed).toBe(true)
  })
})
