import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import { LRUCache } from 'lru-cache'

/**
 * Compressed answers, per Accept-Encoding: brotli, else gzip, else as is. What is compressed is
 * compressed once per content and kept (bundles at build time, a folio's files and hot answers in
 * a cache bounded by bytes), never again per request on the hot paths.
 */
export type ContentEncoding = 'br' | 'gzip'

/** Below this, compression saves less than its headers and the time it takes. */
export const MIN_COMPRESSED_BYTES = 1024

/** Text, and the binary formats that compress (fonts not already compressed, wasm, PDF…). */
const COMPRESSIBLE =
  /^(text\/|application\/(json|javascript|xml|xhtml\+xml|rss\+xml|atom\+xml|ld\+json|manifest\+json|wasm|pdf)|image\/(svg\+xml|bmp|x-icon|vnd\.microsoft\.icon)|font\/(ttf|otf)|application\/(x-font-ttf|font-sfnt|vnd\.ms-fontobject))/

export const isCompressible = (contentType: string, bytes: number) => bytes >= MIN_COMPRESSED_BYTES && COMPRESSIBLE.test(contentType)

/**
 * The encoding to answer with: br over gzip when both are acceptable (q > 0). Browsers send
 * "gzip, deflate, br, zstd"; `identity;q=0` alone is not honoured (we can always send as is).
 */
export function preferredEncoding(acceptEncoding: string | string[] | null | undefined): ContentEncoding | undefined {
  if (!acceptEncoding) return undefined
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding
  // The common browser header, without parsing it.
  if (header === 'gzip, deflate, br, zstd' || header === 'gzip, deflate, br') return 'br'
  let br = false
  let gz = false
  let star = false
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    const accepted = q === undefined || Number(q) > 0
    if (name === 'br') br = accepted
    else if (name === 'gzip' || name === 'x-gzip') gz = accepted
    else if (name === '*') star = accepted
  }
  return br ? 'br' : gz ? 'gzip' : star ? 'br' : undefined
}

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/**
 * Compresses off the main thread (zlib's thread pool). Brotli at quality 5: about gzip's speed
 * with a better ratio; past a megabyte quality 3, faster than gzip at a similar ratio (a large
 * folio's JSON). The build compresses its own bundles at 11.
 */
export function compress(body: Buffer, encoding: ContentEncoding): Promise<Buffer> {
  const quality = body.length > 1024 * 1024 ? 3 : 5
  return encoding === 'br'
    ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipAsync(body, { level: quality === 5 ? 6 : 4 })
}

/**
 * Compressed copies of contents that are named by what they hold (a blob's hash, with the version
 * of what is added to a page): the same key is always the same bytes, so a copy is never stale.
 * Bounded by bytes; a key asked for while it is being compressed waits for that one compression.
 */
export class CompressedCopies {
  readonly #copies: LRUCache<string, Buffer>
  readonly #pending = new Map<string, Promise<Buffer>>()

  constructor(maxBytes = 64 * 1024 * 1024) {
    this.#copies = new LRUCache({ maxSize: maxBytes, sizeCalculation: (b) => Math.max(1, b.length) })
  }

  /** The copy if there is one now (no waiting): for answers that must not wait. */
  peek(key: string, encoding: ContentEncoding): Buffer | undefined {
    return this.#copies.get(`${encoding}:${key}`)
  }

  /** The copy, compressing it first if need be (once, however many ask meanwhile). */
  get(key: string, encoding: ContentEncoding, body: Buffer): Buffer | Promise<Buffer> {
    const id = `${encoding}:${key}`
    const kept = this.#copies.get(id)
    if (kept) return kept
    let pending = this.#pending.get(id)
    if (!pending) {
      pending = compress(body, encoding).then(
        (copy) => {
          this.#pending.delete(id)
          // No smaller (already compressed inside): keep the original, so the next asker sends it as is.
          const kept = copy.length < body.length ? copy : body
          this.#copies.set(id, kept)
          return kept
        },
        (error: unknown) => {
          this.#pending.delete(id)
          throw error
        },
      )
      this.#pending.set(id, pending)
    }
    return pending
  }
}
