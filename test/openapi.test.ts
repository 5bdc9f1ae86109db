import { validate } from '@readme/openapi-parser'
import { beforeAll, describe, expect, it } from 'vitest'
import { getOpenApi } from '../src/api/design-systems.js'
import { contracts } from '../src/api/index.js'
import { createApp, createServerContext } from '../src/server/app.js'
import { defaultConfig } from '../src/server/config.js'
import { useServer } from './helpers/use-server.js'

const s = useServer()
let doc: any

beforeAll(async () => {
  const reply = await s.api.send(getOpenApi)
  expect(reply.status).toBe(200)
  doc = reply.body
})

describe('GET /api/openapi', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    expect(doc.openapi).toMatch(/^3\.0\./)
    const result = await validate(structuredClone(doc))
    expect(result.valid ? [] : result.errors).toEqual([])
  })

  it('declares the comment moderation extensions: the author token header, deletedAt, commentModeration', () => {
    for (const method of ['put', 'delete']) {
      expect(doc.paths['/api/files/{id}/comments'][method].parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'X-Comment-Token', in: 'header', required: false })]),
      )
    }
    expect(Object.keys(doc.components.schemas.Comment.properties)).toEqual(expect.arrayContaining(['deletedAt', 'deletedBy']))
    expect(doc.components.schemas.Folio.properties.commentModeration.enum).toEqual(['anyone', 'owner-and-author'])
    expect(doc.components.schemas.CreatedCommentResult.properties.authorToken).toBeDefined()
  })

  it('declares the anchor and thread extensions of Comment (issue 9) as optional, with descriptions', () => {
    const comment = doc.components.schemas.Comment
    for (const field of ['anchor', 'parentId', 'anchoredVersionId', 'outdated']) {
      expect(comment.properties[field], field).toBeDefined()
      expect(comment.required).not.toContain(field)
    }
    for (const field of ['parentId', 'anchoredVersionId', 'outdated']) expect(comment.properties[field].description).toMatch(/^Extension/)
    const anchor = doc.components.schemas.CommentAnchor
    expect(anchor.required.sort()).toEqual(['offsetX', 'offsetY', 'selector'])
    expect(Object.keys(anchor.properties).sort()).toEqual(['hash', 'offsetX', 'offsetY', 'quote', 'selector', 'slide', 'viewport'])
    expect(anchor.properties.quote.maxLength).toBe(300)
    const create = doc.components.schemas.CreateCommentRequest
    expect(Object.keys(create.properties)).toEqual(expect.arrayContaining(['anchor', 'parentId']))
    expect(create.properties).not.toHaveProperty('outdated')
    expect(doc.paths['/api/files/{id}/events'].get.description).toContain('revoked')
  })

  it('lists every route the server has, and nothing it does not', () => {
    const app = createApp(createServerContext({ store: s.ts.server.store, config: defaultConfig() }))
    const mounted = (app as unknown as { '~routes': Array<{ method: string; route: string }> })['~routes']
      .filter((r) => r.method !== '' && r.method !== 'HEAD')
      .map((r) => `${r.method} ${r.route.replace('**:path', '{path}').replace(/:(\w+)/g, '{$1}')}`)
      .sort()
    const documented = Object.entries(doc.paths as Record<string, object>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort()
    expect(documented).toEqual(mounted)
    expect(documented).toEqual(
      expect.arrayContaining([
        'GET /api/files',
        'POST /api/files',
        'GET /api/files/{id}',
        'PUT /api/files/{id}',
        'DELETE /api/files/{id}',
        'GET /api/files/{id}/brief',
        'GET /api/openapi',
        'GET /api/design-systems',
      ]),
    )
  })

  it('declares the store’s states: 507 INSUFFICIENT_STORAGE on every write, 503 DATABASE_UNAVAILABLE on every call but the health checks (issue 25)', () => {
    for (const c of contracts) {
      const responses = JSON.stringify(doc.paths[c.path][c.method.toLowerCase()].responses)
      if (c.method !== 'GET') expect(responses, c.operationId).toContain('INSUFFICIENT_STORAGE')
      else expect(responses, c.operationId).not.toContain('INSUFFICIENT_STORAGE')
      if (c.tag === 'Operations') expect(responses, c.operationId).not.toContain('DATABASE_UNAVAILABLE')
      else expect(responses, c.operationId).toContain('DATABASE_UNAVAILABLE')
    }
    expect(doc.paths['/api/files/{id}'].put.responses['507'].description).toMatch(/resume by themselves once space is freed/)
  })

  it('describes requests with the schemas that validate them, and every error string', () => {
    const put = doc.paths['/api/files/{id}'].put
    const schema = doc.components.schemas[put.requestBody.content['application/json'].schema.$ref.split('/').pop()]
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['files', 'updated_files', 'commitMessage', 'change_message', 'restoreVersionId', '_gz', '_d']),
    )
    expect(schema.properties.status.enum).toEqual(['draft', 'published'])
    const errors = JSON.stringify(put.responses)
    for (const error of ['INVALID_JSON', 'INVALID_BODY', 'FOLIO_TOO_LARGE', 'Project not found']) expect(errors).toContain(error)
    const create = doc.paths['/api/files'].post
    expect(create.responses['201']).toBeDefined()
    expect(JSON.stringify(create.responses['400'])).toContain('Title is required')
    const list = doc.paths['/api/files'].get
    expect(list.description).toMatch(/leave out/)
    expect(doc.paths['/api/files/{id}'].get.parameters.map((p: any) => p.name)).toEqual(['id', 'files'])
    for (const c of contracts) expect(doc.paths[c.path][c.method.toLowerCase()].operationId).toBe(c.operationId)
  })
})
