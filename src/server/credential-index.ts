import { createHash, randomBytes } from 'node:crypto'
import type { SharedState } from '../store/index.js'

/** A new secret token: `prefix` + 48 hex characters from the CSPRNG. */
export const newToken = (prefix: string) => `${prefix}${randomBytes(24).toString('hex')}`

/** What is kept of a token: its sha256 (192 random bits need no salt or stretching). */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex')

/** A record that lives "for ever": credentials that end by revocation or rotation, not by time. */
export const NO_EXPIRY = 8_640_000_000_000_000

/**
 * Credentials of one kind (pre-claim keys, agent tokens, sign-in sessions) kept in SharedState
 * under `prefix` + the token's hash, with a copy in memory: auth.ts resolves credentials
 * synchronously (the hot cache asks on every request), so lookups must not wait. Loaded on start;
 * changed here, in SharedState first. One instance only: a second instance would not see
 * another's changes until it restarts (issue 15 has to refresh it, e.g. on a miss).
 */
export class CredentialIndex<T> {
  readonly #shared: SharedState
  readonly #prefix: string
  readonly #byHash = new Map<string, { value: T; expiresAt: number }>()

  constructor(shared: SharedState, prefix: string) {
    this.#shared = shared
    this.#prefix = prefix
  }

  async load(): Promise<this> {
    for (const record of await this.#shared.list<T>(this.#prefix)) {
      this.#byHash.set(record.key.slice(this.#prefix.length), { value: record.value, expiresAt: record.expiresAt })
    }
    return this
  }

  /** The live credential with this hash (memory only). */
  find(hash: string, now = Date.now()): T | undefined {
    const entry = this.#byHash.get(hash)
    if (!entry) return undefined
    if (entry.expiresAt <= now) {
      this.#byHash.delete(hash)
      return undefined
    }
    return entry.value
  }

  /** When the live credential with this hash ends (epoch ms), if it is live. */
  expiryOf(hash: string, now = Date.now()): number | undefined {
    const entry = this.#byHash.get(hash)
    return entry && entry.expiresAt > now ? entry.expiresAt : undefined
  }

  async put(hash: string, value: T, expiresAt: number): Promise<void> {
    await this.#shared.set(this.#prefix + hash, value, expiresAt)
    this.#byHash.set(hash, { value, expiresAt })
  }

  async remove(hash: string): Promise<boolean> {
    this.#byHash.delete(hash)
    return this.#shared.delete(this.#prefix + hash)
  }

  /** Every live credential, with its hash (listing a workspace's sessions). */
  entries(now = Date.now()): Array<{ hash: string; value: T; expiresAt: number }> {
    const out: Array<{ hash: string; value: T; expiresAt: number }> = []
    for (const [hash, entry] of this.#byHash) if (entry.expiresAt > now) out.push({ hash, ...entry })
    return out
  }
}
