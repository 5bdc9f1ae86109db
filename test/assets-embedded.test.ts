import { createHash, randomBytes } from 'node:crypto'
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { getAsset } from '../src/api/assets.js'
import { createFolio, deleteFolio, getFolio, updateFolio } from '../src/api/files.js'
import { rawFile } from '../src/api/viewer.js'
import { getWorkspace } from '../src/api/workspace.js'
import { tinyPng } from './helpers/images.js'
import { useServer } from './helpers/use-server.js'
import { createWorkspace, type TestWorkspace, useCloudServer } from './helpers/workspaces.js'
import { asAuthored } from './helpers/served-page.js'

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const dataUrl = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`
/** A "photo": PNG's signature and 48 KB that do not compress, as a real photo's would not. */
const photo = () => Buffer.concat([tinyPng().subarray(0, 8), randomBytes(48 * 1024)])
const page = (src: string, n = 0) => `<!doctype html><html><body><h1>Edit ${n}</h1><img src="${src}"><div style="background:url(${src})"></div></body></html>`

/** Bytes of every blob file on disk (the housekeeping may remove one while this walks: it counts 0). */
async function blobBytes(dataDir: string): Promise<number> {
  let total = 0
  for (const shard of await readdir(join(dataDir, 'blobs')).catch(() => [] as string[])) {
    for (const name of await readdir(join(dataDir, 'blobs', shard))) total += (await stat(join(dataDir, 'blobs', shard, name)).catch(() => ({ size: 0 }))).size
  }
  return total
}

describe('Cloud mode: data-URL images inside text files become asset:// pointers', () => {
  const cloud = useCloudServer()
  const ws = () => cloud.workspace
  const create = async (owner: TestWorkspace, files: Record<string, string>) => {
    const reply = await owner.api.send(createFolio, { body: { title: 'Embedded', status: 'published', defaultFiles: files } })
    expect(reply.status).toBe(201)
    return reply.body.project as { id: string; versions: Array<{ files: Record<string, string> }> }
  }
  const latest = async (owner: TestWorkspace, id: string) =>
    (await owner.api.send(getFolio, { params: { id } })).body.versions.at(-1).files as Record<string, string>
  const served = async (id: string, path = 'index.html') => asAuthored((await cloud.anonymous.send(rawFile, { params: { id, access: '-', path } })).text)

  it('stores the page with pointers and serves it to viewers as it was sent', async () => {
    const image = photo()
    const project = await create(ws(), { 'index.html': page(dataUrl(image)), 'style.css': `body{background:url("${dataUrl(image)}")}` })
    const pointer = `asset://${sha(image)}`
    expect(project.versions[0]!.files['index.html']).toBe(page(pointer))
    expect(project.versions[0]!.files['style.css']).toBe(`body{background:url("${pointer}")}`)
    expect(await latest(ws(), project.id)).toEqual({ 'index.html': page(pointer), 'style.css': `body{background:url("${pointer}")}` })
    // The frame gets the page back with its images (plus the viewer's bridge script).
    const html = await served(project.id)
    expect(html).toContain(page(dataUrl(image)))
    expect(html).not.toContain('asset://')
    expect(await served(project.id, 'style.css')).toBe(`body{background:url("${dataUrl(image)}")}`)
  })

  it('keeps history cheap: ten edits of a page with a 48 KB image store the image once', async () => {
    const image = photo()
    // What the files hold once the journal's writes are in them.
    const blobBytesNow = async () => (await cloud.ts.server.store.writeBack(), blobBytes(cloud.ts.dataDir))
    const before = await blobBytesNow()
    const project = await create(ws(), { 'index.html': page(dataUrl(image)) })
    for (let n = 1; n <= 10; n++) {
      // What an editor does: read the version (pointers), change the page, write it back.
      const files = await latest(ws(), project.id)
      const reply = await ws().api.send(updateFolio, {
        params: { id: project.id },
        body: { files: { 'index.html': files['index.html']!.replace(/Edit \d+/, `Edit ${n}`) } },
      })
      expect(reply.status).toBe(200)
    }
    expect(await latest(ws(), project.id)).toEqual({ 'index.html': page(`asset://${sha(image)}`, 10) })
    expect(await served(project.id)).toContain(page(dataUrl(image), 10))
    // The image is a blob of its own (one byte of encoding, then the bytes), the pages a few hundred bytes each.
    const after = await blobBytesNow()
    expect((await stat(join(cloud.ts.dataDir, 'blobs', sha(image).slice(0, 2), sha(image)))).size).toBe(image.length + 1)
    expect(after - before).toBeLessThan(image.length + 16 * 1024)
  })

  it('lets a page of another folio of the workspace point at the image, which outlives its first folio', async () => {
    const image = photo()
    const first = await create(ws(), { 'index.html': page(dataUrl(image)) })
    const copy = await create(ws(), { 'index.html': page(`asset://${sha(image)}`) })
    expect((await ws().api.send(deleteFolio, { params: { id: first.id } })).status).toBe(200)
    expect(await served(copy.id)).toContain(dataUrl(image))
  })

  it('answers what a pointer names to its workspace, and to no one else', async () => {
    const image = photo()
    await create(ws(), { 'index.html': page(dataUrl(image)) })
    const reply = await ws().api.request(getAsset, { params: { hash: sha(image) } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toBe('image/png')
    expect(reply.headers.get('cache-control')).toBe('private, max-age=31536000, immutable')
    expect(Buffer.from(await reply.arrayBuffer()).equals(image)).toBe(true)
    const again = await ws().api.send(getAsset, { params: { hash: sha(image) }, headers: { 'if-none-match': `"${sha(image)}"` } })
    expect(again.status).toBe(304)
    const other = await createWorkspace(cloud.ts, { name: 'Stranger' })
    for (const hash of [sha(image), '0'.repeat(64), 'not-a-hash']) {
      const refused = await other.api.send(getAsset, { params: { hash } })
      expect(refused.status).toBe(404)
      expect(refused.body.error).toBe('Not found')
    }
    expect((await cloud.anonymous.send(getAsset, { params: { hash: sha(image) } })).status).toBe(401)
  })

  it("never inlines another workspace's image: its pointer stays text", async () => {
    const image = photo()
    await create(ws(), { 'index.html': page(dataUrl(image)) })
    const other = await createWorkspace(cloud.ts, { name: 'Other' })
    const theirs = await create(other, { 'index.html': page(`asset://${sha(image)}`) })
    expect(theirs.versions[0]!.files['index.html']).toBe(page(`asset://${sha(image)}`))
    const html = await served(theirs.id)
    expect(html).toContain(`asset://${sha(image)}`)
    expect(html).not.toContain(image.toString('base64').slice(0, 100))
  })

  it("counts each image once in the workspace's storage, however many pages and edits embed it", async () => {
    const image = photo()
    const owner = await createWorkspace(cloud.ts, { name: 'Counted' })
    const usage = async () => (await owner.api.send(getWorkspace)).body.usage.storageBytes as number
    const html = page(dataUrl(image))
    const first = await create(owner, { 'index.html': html, 'logo.png': dataUrl(image) })
    const stored = page(`asset://${sha(image)}`)
    // The image once (a page and a file hold it), and the page as stored: with its pointer.
    expect(await usage()).toBe(image.length + Buffer.byteLength(stored))
    const edited = html.replace('Edit 0', 'Edit 1')
    expect((await owner.api.send(updateFolio, { params: { id: first.id }, body: { files: { 'index.html': edited } } })).status).toBe(200)
    await create(owner, { 'index.html': page(`asset://${sha(image)}`) })
    expect(await usage()).toBe(image.length + Buffer.byteLength(stored) + Buffer.byteLength(stored.replace('Edit 0', 'Edit 1')))
  })

  it('leaves alone what would not come back exactly: a wrong declared type, non-canonical base64, no image', async () => {
    const png = tinyPng()
    // Bytes whose base64 ends in padding, to send without it.
    const padded = Buffer.concat([png, Buffer.alloc((4 - (png.length % 3)) % 3)])
    expect(padded.toString('base64')).toMatch(/=$/)
    const texts = [
      `<img src="${dataUrl(png, 'image/jpeg')}">`,
      `<img src="data:image/png;base64,${padded.toString('base64').replace(/=+$/, '')}">`,
      `<img src="data:image/png;base64,${Buffer.from('not an image at all').toString('base64')}">`,
    ]
    const project = await create(ws(), Object.fromEntries(texts.map((text, i) => [`p${i}.html`, text])))
    texts.forEach((text, i) => expect(project.versions[0]!.files[`p${i}.html`]).toBe(text))
  })
})

describe('OSS mode stores pages as sent', () => {
  const s = useServer()

  it('has no asset endpoint', async () => {
    const reply = await s.api.send(getAsset, { params: { hash: '0'.repeat(64) } })
    expect(reply.status).toBe(403)
    expect(reply.body.error).toBe('Endpoint not available in OSS')
  })

  it('keeps embedded data URLs in the page', async () => {
    const html = page(dataUrl(tinyPng()))
    const id = await s.api.create('OSS', { 'index.html': html })
    expect((await s.api.send(getFolio, { params: { id } })).body.versions[0].files['index.html']).toBe(html)
  })
})
