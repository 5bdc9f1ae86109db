import { sniffImage } from './image-sniff.js'

/**
 * Cloud mode (spec, Version): base64-encoded images in a version's files are kept in an asset
 * store and the version shows a pointer, `asset://<sha256 of the bytes>`, instead of the data.
 * The store already keeps every content once by its sha256 (blobs), so a pointer is just how
 * the API shows an image's blob reference; these are the pure rules of that representation.
 */
export const ASSET_SCHEME = 'asset://'

const POINTER = /^asset:\/\/([0-9a-f]{64})$/

export function assetPointer(hash: string): string {
  return `${ASSET_SCHEME}${hash}`
}

/** The hash a file value points to, when the whole value is an asset pointer. */
export function pointedHash(content: string): string | undefined {
  return POINTER.exec(content)?.[1]
}

/** Which stored contents the API shows as pointers: images (spec), not other binary files. */
export function isImageMime(mime: string | undefined): boolean {
  return mime !== undefined && mime.toLowerCase().startsWith('image/')
}

const IMAGE_NAME = /\.(png|jpe?g|gif|webp|ico|bmp|svg)$/i
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/**
 * A file value that is bare base64 (no data: prefix) of an image, under an image's name: the
 * bytes and their type. Both must agree (the name says image, the bytes are one) and the base64
 * must be canonical, so a text file that merely looks like base64 is never taken for an image.
 */
export function bareBase64Image(path: string, content: string): { bytes: Buffer; mime: string } | undefined {
  if (!IMAGE_NAME.test(path) || content.length < 8 || content.length % 4 !== 0 || !BASE64.test(content)) return undefined
  const bytes = Buffer.from(content, 'base64')
  if (bytes.toString('base64') !== content) return undefined
  const mime = sniffImage(bytes)
  return mime ? { bytes, mime } : undefined
}
