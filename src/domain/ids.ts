import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'

/** A short, URL-safe, unguessable id (62^12 ≈ 3·10^21): share links must not be enumerable. */
export function newFolioId(length = 12): string {
  // 256 % 62 = 8: reject the top bytes so every character is equally likely.
  let id = ''
  while (id.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && id.length < length) id += ALPHABET[byte % 62]
    }
  }
  return id
}

/** Anything else in a URL (dots, slashes, encodings, huge strings) can name no folio. */
const FOLIO_ID = /^[A-Za-z0-9_-]{1,64}$/

export function isFolioId(value: unknown): value is string {
  return typeof value === 'string' && FOLIO_ID.test(value)
}

const VERSION_ID = /^v([1-9][0-9]{0,8})$/

export function versionId(n: number): string {
  return `v${n}`
}

/** `v12` → 12; anything that is not a version id → undefined. */
export function versionNumber(id: string): number | undefined {
  const m = VERSION_ID.exec(id)
  return m ? Number(m[1]) : undefined
}
