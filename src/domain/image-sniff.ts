/**
 * Recognises the image formats folio accepts by their bytes (spec: PNG, JPEG, GIF, WebP, ICO,
 * SVG, BMP). The name of an upload says nothing reliable about its content.
 */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/x-icon' | 'image/bmp' | 'image/svg+xml'

const startsWith = (bytes: Uint8Array, signature: number[], offset = 0) => signature.every((b, i) => bytes[offset + i] === b)
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0))

export function sniffImage(bytes: Uint8Array): ImageMime | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif'
  if (bytes.length >= 12 && startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp'
  // ICO: reserved 0, type 1, at least one image.
  if (bytes.length >= 6 && startsWith(bytes, [0, 0, 1, 0]) && (bytes[4]! | (bytes[5]! << 8)) > 0) return 'image/x-icon'
  if (isBmp(bytes)) return 'image/bmp'
  if (isSvg(bytes)) return 'image/svg+xml'
  return undefined
}

/** Known BITMAPINFOHEADER sizes (core, v1–v5): "BM" alone also starts plenty of text files. */
const BMP_DIB_SIZES = new Set([12, 40, 52, 56, 64, 108, 124])

/** "BM", a declared file size past the headers, pixel data after them, a known DIB header. */
function isBmp(bytes: Uint8Array): boolean {
  if (bytes.length < 26 || !startsWith(bytes, ascii('BM'))) return false
  const u32 = (at: number) => (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0
  const declared = u32(2)
  const pixelsAt = u32(10)
  const dibSize = u32(14)
  return BMP_DIB_SIZES.has(dibSize) && pixelsAt >= 14 + dibSize && declared > pixelsAt
}

/** UTF-8 XML whose root element is <svg>, after an optional prolog, comments and doctype. */
function isSvg(bytes: Uint8Array): boolean {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return false
  }
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++
    const skipTo = text.startsWith('<?xml', i) ? '?>' : text.startsWith('<!--', i) ? '-->' : /^<!doctype/i.test(text.slice(i, i + 9)) ? '>' : undefined
    if (!skipTo) break
    const end = text.indexOf(skipTo, i)
    if (end === -1) return false
    i = end + skipTo.length
  }
  if (!/^<svg[\s>/]/i.test(text.slice(i, i + 5))) return false
  const rootEnd = text.indexOf('>', i)
  return rootEnd !== -1 && (text[rootEnd - 1] === '/' || /<\/svg\s*>/i.test(text.slice(rootEnd)))
}

/** The MIME type a file gets on the raw route, from its stored type or its name. */
export function mimeForPath(path: string, storedMime?: string): string {
  if (storedMime) return storedMime
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase()
  return MIME_BY_EXTENSION[ext] ?? 'application/octet-stream'
}

const MIME_BY_EXTENSION: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  json: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  avif: 'image/avif',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  pdf: 'application/pdf',
  wasm: 'application/wasm',
}
