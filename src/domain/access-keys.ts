/**
 * Private folios' access keys: the ones folio makes, and a word about the ones people choose.
 * Pure and free of node: the CLI and the dashboard's bundle use it alike.
 */

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'

/** Characters of a key folio makes: 20 × log2(62) ≈ 119 bits. */
export const ACCESS_KEY_LENGTH = 20

/** A new access key: ACCESS_KEY_LENGTH characters of [0-9a-zA-Z], each equally likely (CSPRNG). */
export function newAccessKey(): string {
  const bytes = new Uint8Array(ACCESS_KEY_LENGTH * 2)
  let key = ''
  while (key.length < ACCESS_KEY_LENGTH) {
    globalThis.crypto.getRandomValues(bytes)
    // 256 = 4 × 62 + 8: the top 8 byte values are dropped so every character is equally likely.
    for (const byte of bytes) if (byte < 248 && key.length < ACCESS_KEY_LENGTH) key += ALPHABET[byte % 62]
  }
  return key
}

/** Below these a chosen key gets a warning. */
export const MIN_ACCESS_KEY_LENGTH = 12
export const MIN_ACCESS_KEY_BITS = 60

/** Kinds of characters and how many there are of each, for the estimate. */
const CHARACTER_CLASSES: [RegExp, number][] = [
  [/[a-z]/, 26],
  [/[A-Z]/, 26],
  [/[0-9]/, 10],
  [/[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/, 33],
  [/[^\x00-\x7f]/, 100],
]

/**
 * A simple estimate of a key's strength: its length (in characters, as the server trims it) times
 * log2 of the characters of the kinds it uses. It flatters words and patterns: a bound, not a
 * measure.
 */
export function accessKeyBits(key: string): number {
  const characters = [...key.trim()]
  const alphabet = CHARACTER_CLASSES.filter(([pattern]) => characters.some((c) => pattern.test(c))).reduce((sum, [, size]) => sum + size, 0)
  return alphabet > 1 ? characters.length * Math.log2(alphabet) : 0
}

/** What to tell someone who chose this key, when it is weak; undefined when it is not. */
export function weakAccessKeyWarning(key: string): string | undefined {
  const length = [...key.trim()].length
  if (length < MIN_ACCESS_KEY_LENGTH) {
    return `This key is short: anyone can try a few keys a minute from each address they have; use ${MIN_ACCESS_KEY_LENGTH} or more characters, or let folio make one.`
  }
  const bits = accessKeyBits(key)
  if (bits < MIN_ACCESS_KEY_BITS) {
    return `This key is easy to guess (about ${Math.floor(bits)} bits): anyone can try a few keys a minute from each address they have; make it longer or mix letters, capitals, digits and symbols, or let folio make one.`
  }
  return undefined
}
