import { describe, expect, it } from 'vitest'
import { listDesignSystems } from '../src/api/design-systems.js'
import { createFolio, deleteFolio, getBrief, getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { useServer } from './helpers/use-server.js'

const s = useServer()

describe('POST /api/files', () => {
  it('creates a folio with the spec defaults and one initial version', async () => {
    const reply = await s.api.send(createFolio, { body: { title: '  Quarterly review  ', initialHtml: '<h1>Q3</h1>' } })
    expect(reply.status).toBe(201)
    expect(reply.body.success).toBe(true)
    const p = reply.body.project
    expect(p).toMatchObject({
      title: 'Quarterly review',
      description: 'A single-page HTML folio.',
      isPrivate: false,
      accessKey: '',
      allowComments: true,
      presentationModeOnly: false,
      status: 'draft',
      projectMode: 'deck',
      comments: [],
      collaborators: [],
      reactions: {},
      analytics: { views: 0, totalTimeSeconds: 0, avgTimeSeconds: 0, mobileViews: 0, desktopViews: 0 },
      latestVersionId: 'v1',
      versionCount: 1,
    })
    expect(p.id).toMatch(/^[A-Za-z0-9]{12}$/)
    expect(p.versions).toHaveLength(1)
    expect(p.versions[0]).toMatchObject({ versionId: 'v1', files: { 'index.html': '<h1>Q3</h1>' } })
    expect(Date.parse(p.createdAt)).not.toBeNaN()
    expect(p.updatedAt).toBe(p.createdAt)
  })

  it('stores defaultFiles as given, and honours every optional field', async () => {
    const files = {
      'index.html': '<link rel="stylesheet" href="css/site.css"><h1>Doc</h1>',
      'css/site.css': 'h1{color:red}',
      'img/dot.png': 'data:image/png;base64,iVBORw0KGgo=',
    }
    const reply = await s.api.send(createFolio, {
      body: {
        title: 'Doc',
        defaultFiles: files,
        description: 'Mine',
        projectMode: 'document',
        allowComments: false,
        presentationModeOnly: true,
        status: 'published',
        accessKey: 'k',
        designPreferences: { theme: 'material-3' },
        referenceFiles: [{ name: 'notes.md' }],
        collaborators: ['a@example.com'],
      },
    })
    expect(reply.status).toBe(201)
    expect(reply.body.project).toMatchObject({
      description: 'Mine',
      projectMode: 'document',
      allowComments: false,
      presentationModeOnly: true,
      status: 'published',
      accessKey: 'k',
      designPreferences: { theme: 'material-3' },
      referenceFiles: [{ name: 'notes.md' }],
      // Spec: a new folio starts with empty collaborators (they are Cloud's, added with PUT).
      collaborators: [],
    })
    expect(reply.body.project.versions[0].files).toEqual(files)
  })

  it('forces isPrivate to false in OSS mode', async () => {
    const reply = await s.api.send(createFolio, { body: { title: 'Secret', initialHtml: 'x', isPrivate: true, accessKey: 'pw' } })
    expect(reply.body.project.isPrivate).toBe(false)
  })

  it('starts from the starter page of the project mode when no files are given', async () => {
    const reply = await s.api.send(createFolio, { body: { title: 'Sales <2026>', projectMode: 'dashboard' } })
    const html: string = reply.body.project.versions[0].files['index.html']
    expect(html.trimStart()).toMatch(/^<!doctype html>/i)
    expect(html).toContain('Sales &#60;2026&#62;')
    expect(html).not.toContain('{{title}}')
  })

  it.each([
    [{}, 'Title is required'],
    [{ title: '   ' }, 'Title is required'],
    [{ title: 42 }, 'Title is required'],
  ])('refuses %j with 400 %s', async (body, error) => {
    const reply = await s.api.send(createFolio, { body })
    expect(reply.status).toBe(400)
    expect(reply.body).toEqual({ error })
  })

  it('names the field of a wrong type or enum value', async () => {
    const reply = await s.api.send(createFolio, { body: { title: 'x', projectMode: 'poster', allowComments: 'yes' } })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('INVALID_BODY')
    expect(reply.body.message).toContain('projectMode')
    expect(reply.body.message).toContain('allowComments')
  })

  it('answers INVALID_JSON for a body that is not JSON', async () => {
    const reply = await s.api.send(createFolio, { raw: '{"title": "x"' })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('INVALID_JSON')
  })
})

describe('GET /api/files', () => {
  it('lists folios most recently updated first, with storage size and the spec cache header', async () => {
    const a = await s.api.create('List A', { 'index.html': 'a'.repeat(1000) })
    const b = await s.api.create('List B')
    await s.api.send(updateFolio, { params: { id: a }, body: { title: 'List A (edited)' } })
    const reply = await s.api.send(listFolios)
    expect(reply.status).toBe(200)
    expect(reply.headers.get('cache-control')).toBe('public, max-age=5, stale-while-revalidate=60')
    const ids = reply.body.map((f: any) => f.id)
    expect(ids.indexOf(a)).toBeLessThan(ids.indexOf(b))
    const item = reply.body.find((f: any) => f.id === a)
    expect(item._storageBytes).toBe(1000)
    expect(item.title).toBe('List A (edited)')
    // Versions without their files (spec: a Folio's versions; contents would make lists huge).
    expect(item.versions.map((v: any) => v.versionId)).toEqual(['v1'])
    expect(item.versions[0]).not.toHaveProperty('files')
    for (const f of reply.body) expect(Date.parse(f.updatedAt)).not.toBeNaN()
    const times = reply.body.map((f: any) => f.updatedAt)
    expect([...times].sort().reverse()).toEqual(times)
  })
})

describe('GET /api/files/{id}', () => {
  it('returns the whole folio, versions oldest first with their files', async () => {
    const id = await s.api.create('History', { 'index.html': 'one' })
    await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': 'two', 'a.css': 'x{}' }, commitMessage: 'second' } })
    const reply = await s.api.send(getFolio, { params: { id } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toContain('application/json')
    expect(reply.body.versions.map((v: any) => [v.versionId, v.commitMessage, v.files])).toEqual([
      ['v1', 'Initial version', { 'index.html': 'one' }],
      ['v2', 'second', { 'index.html': 'two', 'a.css': 'x{}' }],
    ])
  })

  it('can leave file contents out of older versions (?files=latest) or all (?files=none)', async () => {
    const id = await s.api.create('Light', { 'index.html': 'one' })
    await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': 'two' } } })
    const latest = await s.api.send(getFolio, { params: { id }, query: { files: 'latest' } })
    expect(latest.body.versions[0]).toEqual(expect.objectContaining({ versionId: 'v1', fileList: ['index.html'] }))
    expect(latest.body.versions[0]).not.toHaveProperty('files')
    expect(latest.body.versions[1].files).toEqual({ 'index.html': 'two' })
    const none = await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })
    expect(none.body.versions.every((v: any) => !('files' in v) && v.fileList.length === 1)).toBe(true)
    const bad = await s.api.send(getFolio, { params: { id }, query: { files: 'some' } })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toBe('INVALID_QUERY')
    expect(bad.body.message).toContain('files')
  })

  it('answers 404 Project not found. for an unknown id', async () => {
    const reply = await s.api.send(getFolio, { params: { id: 'doesnotexist1' } })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ error: 'Project not found.' })
  })
})

describe('PUT /api/files/{id}', () => {
  it('adds a version from files, and from the updated_files / change_message aliases', async () => {
    const id = await s.api.create('Put', { 'index.html': 'v1' })
    const r2 = await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': 'v2' }, commitMessage: 'two' } })
    expect(r2.status).toBe(200)
    expect(r2.body.success).toBe(true)
    expect(r2.body.project.latestVersionId).toBe('v2')
    expect(r2.body.project.versions).toEqual([expect.objectContaining({ versionId: 'v2', commitMessage: 'two', files: { 'index.html': 'v2' } })])
    const r3 = await s.api.send(updateFolio, { params: { id }, body: { updated_files: { 'index.html': 'v3' }, change_message: 'three' } })
    expect(r3.body.project.versions[0]).toMatchObject({ versionId: 'v3', commitMessage: 'three', files: { 'index.html': 'v3' } })
    expect(typeof r3.body.project.versions[0].author).toBe('string')
  })

  it('leaves the files it received out of its answer with ?files=none (all and latest: the default, with them)', async () => {
    const id = await s.api.create('Light answer', { 'index.html': 'v1' })
    const files = { 'index.html': 'v2', 'css/site.css': 'body{}' }
    const light = await s.api.send(updateFolio, { params: { id }, query: { files: 'none' }, body: { files, commitMessage: 'light' } })
    expect(light.status).toBe(200)
    expect(light.body.project).toMatchObject({ latestVersionId: 'v2', versionCount: 2 })
    expect(light.body.project.versions).toEqual([
      expect.objectContaining({ versionId: 'v2', commitMessage: 'light', fileList: ['index.html', 'css/site.css'] }),
    ])
    expect(light.body.project.versions[0]).not.toHaveProperty('files')
    for (const mode of ['all', 'latest'] as const) {
      const full = await s.api.send(updateFolio, { params: { id }, query: { files: mode }, body: { title: `Heavy ${mode}` } })
      expect(full.body.project.versions).toEqual([expect.objectContaining({ versionId: 'v2', files })])
    }
    const bad = await s.api.send(updateFolio, { params: { id }, query: { files: 'some' } as never, body: { title: 'x' } })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toBe('INVALID_QUERY')
    // Refused before anything changed.
    expect((await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.title).toBe('Heavy latest')
  })

  it('changes metadata without adding a version, and updatedAt moves', async () => {
    const created = await s.api.send(createFolio, { body: { title: 'Meta', initialHtml: 'x' } })
    const id = created.body.project.id
    await new Promise((r) => setTimeout(r, 5))
    const patch = {
      title: '  Renamed ',
      description: 'New description',
      isPrivate: true,
      accessKey: 'open sesame',
      allowComments: false,
      presentationModeOnly: true,
      projectMode: 'infography',
      designPreferences: { theme: 'ibm-carbon', palette: ['#0F62FE'] },
      status: 'published',
      collaborators: ['b@example.com'],
      publicTunnelEnabled: true,
      referenceFiles: [{ name: 'brief.pdf' }],
    }
    const reply = await s.api.send(updateFolio, { params: { id }, body: patch })
    expect(reply.status).toBe(200)
    expect(reply.body.project).toMatchObject({ ...patch, title: 'Renamed', latestVersionId: 'v1', versionCount: 1 })
    expect(reply.body.project.updatedAt > created.body.project.updatedAt).toBe(true)
    const back = await s.api.send(updateFolio, { params: { id }, body: { status: 'draft' } })
    expect(back.body.project.status).toBe('draft')
    const full = await s.api.send(getFolio, { params: { id } })
    expect(full.body.versions).toHaveLength(1)
    expect(full.body.title).toBe('Renamed')
  })

  it('restores an old version as a new version', async () => {
    const id = await s.api.create('Restore', { 'index.html': 'first', 'old.css': 'a{}' })
    await s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': 'second' } } })
    const reply = await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId: 'v1' } })
    expect(reply.status).toBe(200)
    expect(reply.body.project.versions[0]).toMatchObject({ versionId: 'v3', files: { 'index.html': 'first', 'old.css': 'a{}' } })
    expect(reply.body.project.versions[0].commitMessage).toContain('v1')
    const full = await s.api.send(getFolio, { params: { id } })
    expect(full.body.versions.map((v: any) => v.versionId)).toEqual(['v1', 'v2', 'v3'])
    expect(full.body.versions[1].files).toEqual({ 'index.html': 'second' })
  })

  it('refuses an unknown restoreVersionId, and files together with a restore', async () => {
    const id = await s.api.create('Restore errors')
    for (const restoreVersionId of ['v9', 'x', '../v1']) {
      const reply = await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId } })
      expect(reply.status).toBe(400)
      expect(reply.body.error).toBe('VERSION_NOT_FOUND')
    }
    const both = await s.api.send(updateFolio, { params: { id }, body: { restoreVersionId: 'v1', files: { 'index.html': 'x' } } })
    expect(both.status).toBe(400)
    expect(both.body.error).toBe('INVALID_BODY')
    expect((await s.api.send(getFolio, { params: { id } })).body.versionCount).toBe(1)
  })

  it('sets reactions by the spec rules', async () => {
    const id = await s.api.create('Reactions')
    await s.api.send(updateFolio, { params: { id }, body: { reactions: { '👍': 2, '🔥': 1 } } })
    const reply = await s.api.send(updateFolio, { params: { id }, body: { reactions: { '👍': 5.9, '❤️': -3, '😀': 9, '💡': 'x' } } })
    expect(reply.body.project.reactions).toEqual({ '👍': 5, '🔥': 1 })
  })

  it('accepts a gzip-compressed body (_gz, _d)', async () => {
    const { gzipSync } = await import('node:zlib')
    const id = await s.api.create('Gzip')
    const big = '<p>line</p>\n'.repeat(50_000)
    const _d = gzipSync(JSON.stringify({ files: { 'index.html': big }, commitMessage: 'zipped', title: 'Gzip2' })).toString('base64')
    const reply = await s.api.send(updateFolio, { params: { id }, body: { _gz: true, _d } })
    expect(reply.status).toBe(200)
    expect(reply.body.project.title).toBe('Gzip2')
    expect(reply.body.project.versions[0]).toMatchObject({ commitMessage: 'zipped', files: { 'index.html': big } })
  })

  it('answers 404 Project not found for an unknown id', async () => {
    const reply = await s.api.send(updateFolio, { params: { id: 'doesnotexist1' }, body: { title: 'x' } })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ error: 'Project not found' })
  })
})

describe('DELETE /api/files/{id}', () => {
  it('deletes the folio for good', async () => {
    const id = await s.api.create('Doomed')
    await s.api.send(updateFolio, { params: { id }, body: { reactions: { '👍': 1 } } })
    const reply = await s.api.send(deleteFolio, { params: { id } })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ success: true })
    expect((await s.api.send(getFolio, { params: { id } })).status).toBe(404)
    expect((await s.api.send(listFolios)).body.map((f: any) => f.id)).not.toContain(id)
    const again = await s.api.send(deleteFolio, { params: { id } })
    expect(again.status).toBe(404)
    expect(again.body).toEqual({ error: 'Project not found' })
  })
})

describe('GET /api/files/{id}/brief', () => {
  it('builds a markdown brief from open comments in page order and the file structure', async () => {
    const id = await s.api.create('Brief', { 'index.html': '<h1>Hi</h1>', 'about.html': '<p>About</p>', 'css/site.css': 'h1{}' })
    const comment = (over: { id: string } & Record<string, unknown>) => ({
      author: 'Ann',
      text: 'x',
      createdAt: '2026-01-01T00:00:00.000Z',
      versionId: 'v1',
      filename: 'index.html',
      resolved: false,
      ...over,
    })
    await s.ts.server.store.engagement.importComments(id, [
      comment({ id: 'c_1', text: 'Footer is cramped', x: 50, y: 90 }),
      comment({ id: 'c_2', text: 'Title too small', x: 20, y: 10, selector: 'h1', elementHtml: '<h1>Hi</h1>' }),
      comment({ id: 'c_3', text: 'Already fixed', x: 10, y: 5, resolved: true }),
      comment({ id: 'c_4', text: 'About page typo', filename: 'about.html', x: 1, y: 1 }),
      comment({ id: 'c_5', text: 'Logo left', x: 5, y: 10 }),
    ])
    const reply = await s.api.send(getBrief, { params: { id } })
    expect(reply.status).toBe(200)
    expect(reply.body.title).toBe('Brief')
    expect(reply.body.openComments.map((c: any) => c.id)).toEqual(['c_5', 'c_2', 'c_1', 'c_4'])
    const brief: string = reply.body.brief
    expect(brief).toMatch(/^# Design brief: Brief/)
    expect(brief.indexOf('Logo left')).toBeLessThan(brief.indexOf('Title too small'))
    expect(brief.indexOf('Title too small')).toBeLessThan(brief.indexOf('Footer is cramped'))
    expect(brief).not.toContain('Already fixed')
    expect(brief).toContain('element: h1')
    expect(brief).toContain('`css/site.css`')
    expect(brief).toContain('`about.html`')
  })

  it('answers 404 for an unknown folio', async () => {
    const reply = await s.api.send(getBrief, { params: { id: 'nope' } })
    expect(reply.status).toBe(404)
    expect(reply.body).toEqual({ error: 'Project not found' })
  })
})

describe('GET /api/design-systems', () => {
  it('lists at least 12 real design systems usable as designPreferences', async () => {
    const reply = await s.api.send(listDesignSystems)
    expect(reply.status).toBe(200)
    const systems = reply.body.designSystems
    expect(systems.length).toBeGreaterThanOrEqual(12)
    expect(new Set(systems.map((system: any) => system.id)).size).toBe(systems.length)
    for (const system of systems) {
      expect(system).toEqual(
        expect.objectContaining({
          name: expect.any(String),
          description: expect.any(String),
          category: expect.any(String),
          tags: expect.any(Array),
          palette: expect.objectContaining({ primary: expect.stringMatching(/^#[0-9A-Fa-f]{6}$/) }),
          typography: expect.objectContaining({ scale: expect.objectContaining({ body: expect.any(Object) }) }),
          spacing: expect.any(Object),
          radius: expect.any(Object),
        }),
      )
      expect(Object.keys(system.designPreferences).sort()).toEqual(['customColors', 'customGuidelines', 'libraries', 'palette', 'theme', 'typography'])
    }
    const carbon = systems.find((system: any) => system.id === 'ibm-carbon')
    const id = await s.api.create('Styled')
    const put = await s.api.send(updateFolio, { params: { id }, body: { designPreferences: carbon.designPreferences } })
    expect(put.body.project.designPreferences).toEqual(carbon.designPreferences)
  })
})
