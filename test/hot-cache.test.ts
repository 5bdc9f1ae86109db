import { describe, expect, it } from 'vitest'
import { createFolio, deleteFolio, getFolio, updateFolio } from '../src/api/files.js'
import { useServer } from './helpers/use-server.js'
import { useCloudServer } from './helpers/workspaces.js'

describe('answers served from memory are never stale', () => {
  const s = useServer()

  it('shows every acknowledged change on the very next GET', async () => {
    const id = await s.api.create('Hot', { 'index.html': 'v1' })
    for (let i = 0; i < 30; i++) {
      // Warm: the second GET of an unchanged folio is the one served in front of the router.
      await s.api.send(getFolio, { params: { id } })
      await s.api.send(getFolio, { params: { id } })
      const change = i % 3 === 0 ? { files: { 'index.html': `edit ${i}` } } : i % 3 === 1 ? { title: `Title ${i}` } : { reactions: { '🔥': i } }
      expect((await s.api.send(updateFolio, { params: { id }, body: change })).status).toBe(200)
      const after = (await s.api.send(getFolio, { params: { id } })).body
      if (i % 3 === 0) expect(after.versions.at(-1).files['index.html']).toBe(`edit ${i}`)
      if (i % 3 === 1) expect(after.title).toBe(`Title ${i}`)
      if (i % 3 === 2) expect(after.reactions['🔥']).toBe(i)
    }
  })

  it('keeps query variants apart, answers HEAD, and forgets a deleted folio', async () => {
    const id = await s.api.create('Variants', { 'index.html': 'one' })
    for (let i = 0; i < 2; i++) {
      expect((await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.versions[0].fileList).toEqual(['index.html'])
      expect((await s.api.send(getFolio, { params: { id } })).body.versions[0].files).toEqual({ 'index.html': 'one' })
    }
    const head = await fetch(s.api.url(getFolio, { id }), { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toContain('application/json')
    expect(await head.text()).toBe('')
    await s.api.send(deleteFolio, { params: { id } })
    expect((await s.api.send(getFolio, { params: { id } })).status).toBe(404)
    expect((await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).status).toBe(404)
  })
})

describe('answers served from memory keep their credential check', () => {
  const s = useCloudServer()

  it('refuses a warm folio to a caller without the key', async () => {
    const api = s.anonymous
    const auth = s.workspace.auth
    const id = (await api.send(createFolio, { body: { title: 'Guarded' }, headers: auth })).body.project.id
    expect((await api.send(getFolio, { params: { id }, headers: auth })).status).toBe(200)
    expect((await api.send(getFolio, { params: { id }, headers: auth })).status).toBe(200)
    const anonymous = await api.send(getFolio, { params: { id } })
    expect(anonymous.status).toBe(401)
    expect(anonymous.body.error).toBe('Unauthorized')
    expect((await api.send(getFolio, { params: { id }, headers: { authorization: 'Bearer wrong' } })).status).toBe(401)
    const head = await fetch(api.url(getFolio, { id }), { method: 'HEAD' })
    expect(head.status).toBe(401)
  })
})
