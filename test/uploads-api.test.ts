import { describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { uploadBatch, uploadFile } from '../src/api/uploads.js'
import { tinyBmp, tinyGif, tinyIco, tinyJpegHeader, tinyPng, tinySvg, tinyWebpHeader } from './helpers/images.js'
import { useServer } from './helpers/use-server.js'

const s = useServer()

const upload = (id: string, body: Buffer, path: string | undefined, type = 'application/octet-stream') =>
  s.api
    .send(uploadFile, { params: { id }, raw: new Uint8Array(body), headers: { 'content-type': type, ...(path === undefined ? {} : { 'x-file-path': path }) } })
    .then((r) => ({ status: r.status, body: r.body }))

const batch = (id: string, raw: BodyInit, headers?: Record<string, string>) => s.api.send(uploadBatch, { params: { id }, raw, headers })

const form = (parts: Array<[string, Buffer]>) => {
  const data = new FormData()
  parts.forEach(([name, bytes], i) => data.append(`f${i}`, new Blob([new Uint8Array(bytes)]), name))
  return data
}

const latest = async (id: string) => {
  const folio = (await s.api.send(getFolio, { params: { id } })).body
  return { versions: folio.versionCount, files: folio.versions.at(-1).files as Record<string, string> }
}

describe('POST /api/files/{id}/upload', () => {
  it('writes an image into the latest version without a new version', async () => {
    const id = await s.api.create('Up', { 'index.html': '<img src="img/logo.png">' })
    const reply = await upload(id, tinyPng(), 'img/logo.png')
    expect(reply).toEqual({ status: 200, body: { success: true, path: 'img/logo.png' } })
    const { versions, files } = await latest(id)
    expect(versions).toBe(1)
    expect(files['img/logo.png']).toBe(`data:image/png;base64,${tinyPng().toString('base64')}`)
    expect(files['index.html']).toBe('<img src="img/logo.png">')
  })

  it.each([
    ['png', tinyPng(), 'image/png'],
    ['jpg', tinyJpegHeader(), 'image/jpeg'],
    ['gif', tinyGif(), 'image/gif'],
    ['webp', tinyWebpHeader(), 'image/webp'],
    ['ico', tinyIco(), 'image/x-icon'],
    ['bmp', tinyBmp(), 'image/bmp'],
    ['svg', tinySvg(), 'image/svg+xml'],
  ])('accepts %s by its bytes', async (ext, bytes, mime) => {
    const id = await s.api.create(`Up ${ext}`)
    expect((await upload(id, bytes, `a.${ext}`)).status).toBe(200)
    expect((await latest(id)).files[`a.${ext}`]).toBe(`data:${mime};base64,${bytes.toString('base64')}`)
  })

  it('judges by bytes, not by name: text named .png is refused, a PNG named .jpg is a PNG', async () => {
    const id = await s.api.create('Sniff')
    const fake = await upload(id, Buffer.from('definitely not an image'), 'fake.png')
    expect(fake.status).toBe(400)
    expect(fake.body.error).toBe('Unsupported file type')
    expect((await upload(id, tinyPng(), 'real.jpg')).status).toBe(200)
    expect((await latest(id)).files['real.jpg']).toMatch(/^data:image\/png;base64,/)
    expect((await latest(id)).files['fake.png']).toBeUndefined()
  })

  it.each([
    ['/abs.png', 'absolute'],
    ['../up.png', '..'],
    ['a/../../b.png', '..'],
    ['a\\b.png', 'backslash'],
    ['a%00b.png', 'NUL'],
    ['%2e%2e/x.png', '..'],
    ['./', 'empty'],
  ])('refuses the path %j and writes nothing', async (path, reason) => {
    const id = await s.api.create('Paths')
    const before = await latest(id)
    const reply = await upload(id, tinyPng(), path)
    expect(reply.status).toBe(400)
    expect(reply.body.error).toBe('Invalid file path')
    expect(reply.body.message).toContain(reason)
    expect(await latest(id)).toEqual(before)
  })

  it('answers the spec errors: missing header, wrong type, unknown folio, over 25 MB', async () => {
    const id = await s.api.create('Errors')
    expect(await upload(id, tinyPng(), undefined)).toEqual({ status: 400, body: { error: 'Missing x-file-path header', message: expect.any(String) } })
    expect((await upload(id, tinyPng(), 'a.png', 'image/png')).body.error).toBe('Content-Type must be application/octet-stream')
    expect(await upload('nope123', tinyPng(), 'a.png')).toEqual({ status: 404, body: { error: 'Not found' } })
    const huge = Buffer.concat([tinyPng(), Buffer.alloc(26 * 1024 * 1024)])
    const tooLarge = await upload(id, huge, 'big.png')
    expect(tooLarge.status).toBe(413)
    expect(tooLarge.body.error).toBe('FILE_TOO_LARGE')
    expect((await latest(id)).files['big.png']).toBeUndefined()
  })

  it('stops a chunked upload at 25 MB while streaming', async () => {
    const id = await s.api.create('Stream')
    let sent = 0
    const chunk = new Uint8Array(1024 * 1024)
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.length
        if (sent > 300 * 1024 * 1024) controller.close()
        else controller.enqueue(chunk)
      },
    })
    const res = await s.api.request(uploadFile, { params: { id }, raw: body, headers: { 'content-type': 'application/octet-stream', 'x-file-path': 'x.png' } })
    expect(res.status).toBe(413)
    expect(sent).toBeLessThan(100 * 1024 * 1024)
  })
})

describe('POST /api/files/{id}/upload-batch', () => {
  it('merges every image part into the latest version in one go, skipping non-images', async () => {
    const id = await s.api.create('Batch', { 'index.html': 'x' })
    const res = await batch(
      id,
      form([
        ['img/a.png', tinyPng()],
        ['img/b.gif', tinyGif()],
        ['notes.txt', Buffer.from('hello')],
        ['icons/c.svg', tinySvg()],
      ]),
    )
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ success: true, count: 3, paths: ['img/a.png', 'img/b.gif', 'icons/c.svg'], skipped: ['notes.txt'] })
    const { versions, files } = await latest(id)
    expect(versions).toBe(1)
    expect(Object.keys(files).sort()).toEqual(['icons/c.svg', 'img/a.png', 'img/b.gif', 'index.html'])
  })

  it('answers No image files in form data when no part is an image', async () => {
    const id = await s.api.create('No images')
    const res = await batch(
      id,
      form([
        ['a.txt', Buffer.from('x')],
        ['b.png', Buffer.from('fake')],
      ]),
    )
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('No image files in form data')
    const empty = await batch(id, new FormData())
    expect(empty.body.error).toBe('No image files in form data')
  })

  it('refuses the whole batch when one path is bad, writing nothing', async () => {
    const id = await s.api.create('Bad batch', { 'index.html': 'x' })
    const before = await latest(id)
    for (const bad of ['../evil.png', '/abs.png', 'a\\b.png']) {
      const res = await batch(
        id,
        form([
          ['good.png', tinyPng()],
          [bad, tinyPng()],
        ]),
      )
      expect(res.status).toBe(400)
      expect(res.body.error).toBe('Invalid file path')
    }
    expect(await latest(id)).toEqual(before)
  })

  it('answers 404, 413 and a wrong content type', async () => {
    const id = await s.api.create('Batch errors')
    expect((await batch('nope123', form([['a.png', tinyPng()]]))).status).toBe(404)
    const big = await batch(id, form([['big.png', Buffer.concat([tinyPng(), Buffer.alloc(26 * 1024 * 1024)])]]))
    expect(big.status).toBe(413)
    expect(big.body.error).toBe('FILE_TOO_LARGE')
    const json = await s.api.send(uploadBatch, { params: { id }, body: { a: 1 } })
    expect(json.body.error).toBe('Content-Type must be multipart/form-data')
    const broken = await batch(id, '--x\r\nnonsense', { 'content-type': 'multipart/form-data; boundary=x' })
    expect(broken.status).toBe(400)
  })
})

describe('uploads never lose what is already there', () => {
  it('refuses an image aimed at a page, script or stylesheet path, and keeps the file', async () => {
    const id = await s.api.create('Guarded', { 'index.html': '<h1>keep me</h1>', 'app.js': 'go()' })
    for (const path of ['index.html', 'app.js', 'css/site.css']) {
      const reply = await upload(id, tinySvg(), path)
      expect(reply.status).toBe(400)
      expect(reply.body.error).toBe('Unsupported file type')
    }
    const res = await batch(
      id,
      form([
        ['index.html', tinyPng()],
        ['img/ok.png', tinyPng()],
      ]),
    )
    expect(res.body).toMatchObject({ success: true, count: 1, skipped: ['index.html'] })
    const { files } = await latest(id)
    expect(files['index.html']).toBe('<h1>keep me</h1>')
    expect(files['app.js']).toBe('go()')
  })

  it('takes a % that starts no escape literally in x-file-path, and decodes real escapes', async () => {
    const id = await s.api.create('Percent')
    expect(await upload(id, tinyPng(), '100%.png')).toEqual({ status: 200, body: { success: true, path: '100%.png' } })
    expect(await upload(id, tinyPng(), 'img/caf%C3%A9.png')).toEqual({ status: 200, body: { success: true, path: 'img/café.png' } })
  })

  it('answers a multipart body that ends inside a part with 400 and keeps serving', async () => {
    const id = await s.api.create('Cut off', { 'index.html': 'x' })
    const res = await batch(id, '--XYZ\r\nContent-Disposition: form-data; name="f"; filename="a.png"\r\n\r\nabc', {
      'content-type': 'multipart/form-data; boundary=XYZ',
    })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('INVALID_BODY')
    expect((await s.api.send(getFolio, { params: { id } })).status).toBe(200)
    expect(Object.keys((await latest(id)).files)).toEqual(['index.html'])
  })
})
