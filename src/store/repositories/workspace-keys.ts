import { createHash, hash, randomBytes } from 'node:crypto'

/** The brand's prefix (spec: `svc_live_` stands for it): folio_live_ + 48 hex characters. */
export const KEY_PREFIX = 'folio_live_'
const KEY_LENGTH = KEY_PREFIX.length + 48

/** A new workspace key from the CSPRNG (spec: Authentication 3). */
export function newApiKey(): string {
  return `${KEY_PREFIX}${randomBytes(24).toString('hex')}`
}

/** Whether a token can be a workspace key at all: anything else costs no hash. */
export function looksLikeApiKey(token: string): boolean {
  return token.length === KEY_LENGTH && token.startsWith(KEY_PREFIX)
}

/**
 * What is stored of a key: its sha256. A key is 192 random bits, so a fast hash is enough (no
 * salt or stretching: nobody can enumerate the inputs), and looking a hash up in a map leaks
 * nothing useful about the key by its timing.
 */
export function hashKey(token: string): string {
  // The one-shot form: a third of createHash's cost, and it runs on every Cloud request.
  return hash('sha256', token)
}

/** The file name of an e-mail address (members, accounts): sha256 of the normalised address. */
export function emailHash(email: string): string {
  return createHash('sha256').update(normaliseEmail(email)).digest('hex')
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase()
}
