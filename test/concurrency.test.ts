import { describe, expect, it } from 'vitest'
import { getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { useServer } from './helpers/use-server.js'

const s = useServer()

describe('concurrent writes to one folio', () => {
  it('turns 100 concurrent PUTs with files into 100 distinct versions, none lost', async () => {
    const id = await s.api.create('Busy', { 'index.html': 'start' })
    const bodies = Array.from({ length: 100 }, (_, i) => ({
      files: { 'index.html': `<h1>Edit ${i}</h1>\n${'<p>filler line</p>\n'.repeat(200)}`, [`page-${i}.html`]: `page ${i}` },
      commitMessage: `edit ${i}`,
    }))
    const replies = await Promise.all(bodies.map((b) => s.api.send(updateFolio, { params: { id }, body: b })))
    expect(replies.map((r) => r.status)).toEqual(Array(100).fill(200))
    const versionIds = replies.map((r) => r.body.project.latestVersionId)
    expect(new Set(versionIds).size).toBe(100)
    expect(new Set(versionIds)).toEqual(new Set(Array.from({ length: 100 }, (_, i) => `v${i + 2}`)))

    const full = (await s.api.send(getFolio, { params: { id } })).body
    expect(full.versions).toHaveLength(101)
    // Every version holds exactly the files of the one request that created it.
    for (let i = 0; i < 100; i++) {
      const v = full.versions.find((x: any) => x.versionId === versionIds[i])
      expect(v.commitMessage).toBe(`edit ${i}`)
      expect(v.files).toEqual(bodies[i]!.files)
    }
  })

  it('keeps every metadata change and every version when both race', async () => {
    const id = await s.api.create('Mixed')
    const writes = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? s.api.send(updateFolio, { params: { id }, body: { files: { 'index.html': `v${i}` } } })
        : s.api.send(updateFolio, { params: { id }, body: { description: `d${i}` } }),
    )
    const replies = await Promise.all(writes)
    expect(replies.every((r) => r.status === 200)).toBe(true)
    const full = (await s.api.send(getFolio, { params: { id } })).body
    expect(full.versionCount).toBe(21)
    // Writes are serialised: the description that stays is the one written last.
    const metaWrites = replies.filter((_, i) => i % 2 === 1).map((r) => r.body.project)
    const latest = metaWrites.reduce((a, b) => (b.updatedAt > a.updatedAt ? b : a))
    expect(metaWrites.filter((p) => p.updatedAt === latest.updatedAt).map((p) => p.description)).toContain(full.description)
    // Every file write produced its own version with its own content.
    const contents = full.versions
      .slice(1)
      .map((v: any) => v.files['index.html'])
      .sort()
    expect(contents).toEqual(Array.from({ length: 20 }, (_, i) => `v${i * 2}`).sort())
  })

  it('creates 50 folios at once with 50 distinct ids', async () => {
    const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => s.api.create(`Parallel ${i}`)))
    expect(new Set(ids).size).toBe(50)
    const listed = (await s.api.send(listFolios)).body.map((f: any) => f.id)
    for (const id of ids) expect(listed).toContain(id)
  })
})
