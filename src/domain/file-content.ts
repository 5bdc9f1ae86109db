/**
 * The API carries every file as a string: text as is, binary as a base64 data URL. The store
 * keeps bytes, so an image costs its size on disk rather than 4/3 of it, and the raw route can
 * serve it without decoding on each request.
 */
const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+);base64,/i

export interface EncodedContent {
  bytes: Buffer
  /** Set when the content is binary (came as a data URL). */
  mime?: string
}

export function encodeFileContent(content: string): EncodedContent {
  const match = DATA_URL.exec(content)
  if (match) {
    const base64 = content.slice(match[0].length)
    const bytes = Buffer.from(base64, 'base64')
    // Only canonical base64 is stored as bytes: the round trip must give back the same string.
    if (bytes.toString('base64') === base64) return { bytes, mime: match[1]! }
  }
  return { bytes: Buffer.from(content, 'utf8') }
}

export function decodeFileContent(bytes: Buffer, mime?: string): string {
  return mime ? `data:${mime};base64,${bytes.toString('base64')}` : bytes.toString('utf8')
}
