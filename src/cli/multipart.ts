import { createReadStream } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'

/**
 * A multipart/form-data body streamed from files on disk (FormData would buffer them and hide
 * progress). Each part's filename is its path in the folio.
 */
export function multipartBody(files: Array<{ path: string; absolute: string }>): { body: ReadableStream<Uint8Array>; contentType: string } {
  const boundary = `----folio${randomBytes(12).toString('hex')}`
  async function* parts() {
    for (const file of files) {
      const name = file.path.replace(/["\r\n\\]/g, '_')
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`)
      for await (const chunk of createReadStream(file.absolute)) yield chunk as Buffer
      yield Buffer.from('\r\n')
    }
    yield Buffer.from(`--${boundary}--\r\n`)
  }
  return { body: Readable.toWeb(Readable.from(parts())) as ReadableStream<Uint8Array>, contentType: `multipart/form-data; boundary=${boundary}` }
}
