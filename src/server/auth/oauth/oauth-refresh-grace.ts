import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/** What a refresh gave: the same answer again for a retry within the grace period. */
export interface RefreshedPair {
  accessToken: string
  refreshToken: string
  /** When the access token ends (epoch ms): a later answer says how long it has left. */
  accessExpiresAt: number
}

/**
 * The key that seals a refresh's answer, from the refresh token that was presented. Tokens are
 * kept only as their sha256 (credential-index.ts), so the pair cannot be kept in plaintext for
 * a retry; hashes alone would not do either, since the retry needs the tokens themselves. The
 * presented token is random (192 bits), so HKDF over it with a label of its own gives a key only
 * its holder can make again: the one the pair is answered to. Its sha256, which SharedState
 * holds, is not this key, nor a way to it.
 */
const keyOf = (presentedToken: string) => Buffer.from(hkdfSync('sha256', presentedToken, '', 'folio oauth refresh grace v1', 32))

/** "v1." + base64url(iv | tag | ciphertext) of the pair as JSON (AES-256-GCM). */
export function sealPair(pair: RefreshedPair, presentedToken: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyOf(presentedToken), iv)
  const body = Buffer.concat([cipher.update(JSON.stringify(pair), 'utf8'), cipher.final()])
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`
}

/** The pair, or undefined when this token did not seal it (or the blob is damaged). */
export function openPair(sealed: string, presentedToken: string): RefreshedPair | undefined {
  if (!sealed.startsWith('v1.')) return undefined
  const raw = Buffer.from(sealed.slice(3), 'base64url')
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(presentedToken), raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as RefreshedPair
  } catch {
    return undefined
  }
}
