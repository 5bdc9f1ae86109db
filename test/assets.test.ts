import { createHash } from 'node:crypto'
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFolio, deleteFolio, getFolio, updateFolio } from '../src/api/files.js'
import { rawFile } from '../src/api/viewer.js'
import { openStore, UnknownAssetError } from '../src/store/index.js'
import { tinyPng } from './helpers/images.js'
import { makeDataDir, type TestServer } from './helpers/server.js'
import { createFolio as storeCreate } from './helpers/store.js'
import { useServer } from './helpers/use-server.js'
import { createWorkspace, useCloudServer } from './helpers/workspaces.js'

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`
const red = tinyPng([220, 30, 30])
const blue = tinyPng([30, 30, 220])

/** Every blob file on disk (blobs/<hh>/<sha256>): what the store keeps of contents. */
async function blobFiles(ts: TestServer): Promise<string[]> {
  // As the files hold them once the journal's writes are in them.
  await ts.server.store.writeBack()
  const dataDir = ts.dataDir
  const shards = await readdir(join(dataDir, 'blobs')).catch(() => [] as string[])
  const names = await Promise.all(shards.map((shard) => readdir(join(dataDir, 'blobs', shard))))
  return names.flat()
}

describe('Cloud mode: images in files are asset:// pointers (spec, Version)', () => {
  const cloud = useCloudServer()
  const s = {
    get ts() {
      return cloud.ts
    },
    get api() {
      return cloud.anonymous
    },
  }
  const auth = {
    get authorization() {
      return cloud.workspace.auth.authorization
    },
  }
  const create = async (files: Record<string, string>) => {
    const reply = await s.api.send(createFolio, { body: { title: 'Assets', status: 'published', defaultFiles: files }, headers: auth })
    expect(reply.status).toBe(201)
    return reply.body.project
  }
  const latestFiles = async (id: string) => (await s.api.send(getFolio, { params: { id }, headers: auth })).body.versions.at(-1).files as Record<string, string>
  const put = (id: string, files: Record<string, string>) => s.api.send(updateFolio, { params: { id }, body: { files }, headers: auth })

  it('shows a data-URL image as a pointer to its bytes, and serves the bytes on the raw route', async () => {
    const project = await create({ 'index.html': '<img src="logo.png">', 'logo.png': dataUrl(red) })
    // The write's answer and a later GET agree: the version holds the pointer, the HTML is as sent.
    expect(project.versions[0].files['logo.png']).toBe(`asset://${sha(red)}`)
    const files = await latestFiles(project.id)
    expect(files).toEqual({ 'index.html': '<img src="logo.png">', 'logo.png': `asset://${sha(red)}` })
    // The frame gets the image itself, as in OSS: pointers are how the API shows it, not the page.
    const raw = await s.api.request(rawFile, { params: { id: project.id, access: '-', path: 'logo.png' } })
    expect(raw.status).toBe(200)
    expect(raw.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await raw.arrayBuffer()).equals(red)).toBe(true)
  })

  it('takes its own pointers back: a read-edit-write keeps the image, stored once however many versions', async () => {
    const project = await create({ 'index.html': '<p>0</p>', 'logo.png': dataUrl(blue) })
    const blobsBefore = (await blobFiles(s.ts)).length
    for (let i = 1; i <= 10; i++) {
      const files = await latestFiles(project.id)
      const reply = await put(project.id, { ...files, 'index.html': `<p>${i}</p>` })
      expect(reply.status).toBe(200)
      expect(reply.body.project.versions[0].files['logo.png']).toBe(`asset://${sha(blue)}`)
    }
    const folio = (await s.api.send(getFolio, { params: { id: project.id }, headers: auth })).body
    expect(folio.versionCount).toBe(11)
    // Every version points at the same asset; the image is one blob on disk, not eleven.
    expect(new Set(folio.versions.map((v: { files: Record<string, string> }) => v.files['logo.png']))).toEqual(new Set([`asset://${sha(blue)}`]))
    expect((await blobFiles(s.ts)).filter((name) => name === sha(blue))).toHaveLength(1)
    // Ten new versions of a 9-byte page add at most the pages' blobs, never the image again.
    expect((await blobFiles(s.ts)).length - blobsBefore).toBeLessThanOrEqual(10)
    const raw = await s.api.request(rawFile, { params: { id: project.id, access: '-', path: 'logo.png' } })
    expect(Buffer.from(await raw.arrayBuffer()).equals(blue)).toBe(true)
  })

  it("resolves a pointer to an image an earlier version replaced (the history's packed contents)", async () => {
    const project = await create({ 'index.html': 'x', 'logo.png': dataUrl(tinyPng([1, 2, 3])) })
    const first = `asset://${sha(tinyPng([1, 2, 3]))}`
    expect((await put(project.id, { 'index.html': 'x', 'logo.png': dataUrl(tinyPng([4, 5, 6])) })).status).toBe(200)
    // Whether or not the housekeeping has packed the replaced image yet, the folio still holds it.
    const back = await put(project.id, { 'index.html': 'x', 'old.png': first })
    expect(back.status).toBe(200)
    expect(back.body.project.versions[0].files['old.png']).toBe(first)
    const raw = await s.api.request(rawFile, { params: { id: project.id, access: '-', path: 'old.png' } })
    expect(raw.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await raw.arrayBuffer()).equals(tinyPng([1, 2, 3]))).toBe(true)
  })

  it('lets another folio of the workspace use an asset, which outlives the folio it came from', async () => {
    const image = tinyPng([7, 8, 9])
    const a = await create({ 'index.html': 'a', 'pic.png': dataUrl(image) })
    const b = await create({ 'index.html': 'b', 'copy.png': `asset://${sha(image)}` })
    expect(b.versions[0].files['copy.png']).toBe(`asset://${sha(image)}`)
    expect((await s.api.send(deleteFolio, { params: { id: a.id }, headers: auth })).status).toBe(200)
    const raw = await s.api.request(rawFile, { params: { id: b.id, access: '-', path: 'copy.png' } })
    expect(Buffer.from(await raw.arrayBuffer()).equals(image)).toBe(true)
  })

  it('refuses a pointer to nothing the workspace holds, whole, with INVALID_BODY', async () => {
    const project = await create({ 'index.html': 'keep' })
    const unknown = `asset://${'0'.repeat(64)}`
    const reply = await put(project.id, { 'index.html': 'changed', 'ghost.png': unknown })
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('INVALID_BODY')
    expect(reply.body.message).toContain(unknown)
    expect(await latestFiles(project.id)).toEqual({ 'index.html': 'keep' })
    const created = await s.api.send(createFolio, { body: { title: 'Ghost', defaultFiles: { 'a.png': unknown } }, headers: auth })
    expect(created.status).toBe(400)
  })

  it("refuses another workspace's asset by its pointer, and reads none of it", async () => {
    const image = tinyPng([40, 50, 60])
    await create({ 'index.html': 'a', 'mine.png': dataUrl(image) })
    const other = await createWorkspace(cloud.ts, { name: 'Other' })
    const taken = await other.api.send(createFolio, { body: { title: 'Taken', defaultFiles: { 'x.png': `asset://${sha(image)}` } } })
    expect(taken.status).toBe(400)
    expect(taken.body.error).toBe('INVALID_BODY')
    // The same image sent as itself is fine: it is the other workspace's own copy from then on.
    const own = await other.api.send(createFolio, { body: { title: 'Own', defaultFiles: { 'x.png': dataUrl(image) } } })
    expect(own.status).toBe(201)
    expect(own.body.project.versions[0].files['x.png']).toBe(`asset://${sha(image)}`)
  })

  it('keeps bare base64 of an image, under an image name, as that image; other text stays text', async () => {
    const bare = red.toString('base64')
    const project = await create({ 'index.html': 'x', 'bare.png': bare, 'notes.txt': bare, 'fake.png': 'QUJDRA==' })
    const files = project.versions[0].files
    expect(files['bare.png']).toBe(`asset://${sha(red)}`)
    expect(files['notes.txt']).toBe(bare)
    // "ABCD" in base64 under a .png name is no image: kept as the text it is.
    expect(files['fake.png']).toBe('QUJDRA==')
  })
})

describe('OSS mode keeps files as they were sent', () => {
  const s = useServer()

  it('answers data URLs, and a pointer is plain text there', async () => {
    const id = await s.api.create('OSS', { 'logo.png': dataUrl(red), 'note.txt': `asset://${sha(red)}` })
    const files = (await s.api.send(getFolio, { params: { id } })).body.versions[0].files
    expect(files).toEqual({ 'logo.png': dataUrl(red), 'note.txt': `asset://${sha(red)}` })
  })
})

describe('asset pointers and workspaces (store)', () => {
  const dirs: string[] = []
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))))

  it("never resolves another workspace's asset, even by its exact hash", async () => {
    const dir = await makeDataDir()
    dirs.push(dir)
    const store = await openStore({ dataDir: dir, assetPointers: true, log: () => {} })
    try {
      const image = tinyPng([10, 20, 30])
      await storeCreate(store, { 'secret.png': dataUrl(image) }, { workspaceId: 'ws-a' })
      const pointer = { 'stolen.png': `asset://${sha(image)}` }
      await expect(storeCreate(store, pointer, { workspaceId: 'ws-b' })).rejects.toBeInstanceOf(UnknownAssetError)
      const own = await storeCreate(store, { 'index.html': 'b' }, { workspaceId: 'ws-b' })
      await expect(store.folios.update(own.meta.id, { patch: {}, files: pointer, author: 't' })).rejects.toBeInstanceOf(UnknownAssetError)
      // The same workspace may.
      const again = await storeCreate(store, pointer, { workspaceId: 'ws-a' })
      expect(again.head.files['stolen.png']!.h).toBe(sha(image))
      expect(again.head.files['stolen.png']!.m).toBe('image/png')
    } finally {
      await store.close()
    }
  })
})
