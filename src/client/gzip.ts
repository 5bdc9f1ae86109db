import { gzipSync } from 'node:zlib'

/** The spec advises gzip above about 1 MB: {_gz: true, _d: base64(gzip(JSON))}. */
export const GZIP_ABOVE_BYTES = 1024 * 1024

export function maybeGzip<T extends object>(body: T): T {
  const json = JSON.stringify(body)
  if (Buffer.byteLength(json) <= GZIP_ABOVE_BYTES) return body
  return { _gz: true, _d: gzipSync(json).toString('base64') } as unknown as T
}
