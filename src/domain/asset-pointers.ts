import { encodeFileContent } from './file-content.js'
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
  return mime?.toLowerCase().startsWith('image/') === true
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

/** An image written inside a text file as a data URL, found where it stands. */
export interface EmbeddedImage {
  start: number
  end: number
  bytes: Buffer
  mime: string
}

const DATA_IMAGE = /data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]+={0,2})/gi
const POINTERS = /asset:\/\/([0-9a-f]{64})/g

/**
 * The images a text file (HTML, CSS, JS) embeds as base64 data URLs. Only those that come back
 * exactly are taken: canonical base64, and bytes whose own format is the type the URL declares
 * (image-sniff.ts), so serving the pointer again as `data:<that type>;base64,…` rebuilds the
 * very text that was sent.
 */
export function embeddedImages(text: string): EmbeddedImage[] {
  if (!text.includes('data:image/')) return []
  const found: EmbeddedImage[] = []
  for (const match of text.matchAll(DATA_IMAGE)) {
    const [whole, declared, base64] = match as unknown as [string, string, string]
    const bytes = Buffer.from(base64, 'base64')
    if (bytes.length === 0 || bytes.toString('base64') !== base64 || sniffImage(bytes) !== declared) continue
    found.push({ start: match.index!, end: match.index! + whole.length, bytes, mime: declared })
  }
  return found
}

/** The text with each embedded image replaced by its pointer (hashes in the images' order). */
export function withPointers(text: string, images: EmbeddedImage[], hashes: string[]): string {
  let out = ''
  let at = 0
  images.forEach((image, i) => {
    out += text.slice(at, image.start) + assetPointer(hashes[i]!)
    at = image.end
  })
  return out + text.slice(at)
}

/** The distinct hashes a text file points to. */
export function pointersIn(text: string): string[] {
  if (!text.includes(ASSET_SCHEME)) return []
  return [...new Set([...text.matchAll(POINTERS)].map((m) => m[1]!))]
}

/** The text with the pointers `dataUrlOf` knows turned back into data URLs; others stay as they are. */
export function inlinePointers(text: string, dataUrlOf: Map<string, string>): string {
  return text.replace(POINTERS, (pointer, hash: string) => dataUrlOf.get(hash) ?? pointer)
}

/**
 * What Cloud's store keeps of one file value sent through the files API (asset-resolver.ts),
 * for the storage quota to count the same contents: nothing new for a pointer (its content is
 * the workspace's already), the bytes of a data URL, and for a text file the text with its
 * pointers plus each image it embeds. (Bare base64 under an image's name, which the store keeps
 * as bytes, is counted as the text it came as: a little more, never less.)
 */
export function storedContents(value: string, hash: (bytes: Buffer) => string): Buffer[] {
  if (pointedHash(value)) return []
  const whole = encodeFileContent(value)
  if (whole.mime) return [whole.bytes]
  const images = embeddedImages(value)
  if (images.length === 0) return [whole.bytes]
  const hashes = images.map((image) => hash(image.bytes))
  return [Buffer.from(withPointers(value, images, hashes), 'utf8'), ...images.map((image) => image.bytes)]
}
