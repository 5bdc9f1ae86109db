import { createHash, randomBytes } from 'node:crypto'
import type { ChangeFeed, SharedState } from '../../store/index.js'

/** A new secret token: `prefix` + 48 hex characters from the CSPRNG. */
export const newToken = (prefix: string) => `${prefix}${randomBytes(24).toString('hex')}`

/** What is kept of a token: its sha256 (192 random bits need no salt or stretching). */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex')

/** A record that lives "for ever": credentials that end by revocation or rotation, not by time. */
export const NO_EXPIRY = 8_640_000_000_000_000

/** How instances tell each other of a changed credential (store/change-feed.ts); none for one instance. */
export type CredentialChanges = Pick<ChangeFeed, 'sharedChanged' | 'onSharedChange'>

/**
 * Credentials of one kind (pre-claim keys, agent tokens, sign-in sessions, OAuth grants and
 * access tokens) kept in SharedState under `prefix` + the token's hash, with a copy in memory:
 * auth.ts resolves credentials synchronously (the hot cache asks on every request), so lookups
 * must not wait. Loaded on start; changed here, in SharedState first. Several instances
 * (`changes` given): a change here is published and every other instance drops its copy; a
 * credential not in memory is read from SharedState (lookup: auth.authorizeOrRefresh asks
 * before a 401), since another instance may have made it since the start.
 */
export class CredentialIndex<T> {
  readonly #shared: SharedState
  readonly #prefix: string
  readonly #changes: CredentialChanges | undefined
  readonly #byHash = new Map<string, { value: T; expiresAt: number }>()
  /** Bumped by every drop: a read that spans one keeps nothing. */
  #dropped = 0

  constructor(shared: SharedState, prefix: string, changes?: CredentialChanges) {
    this.#shared = shared
    this.#prefix = prefix
    this.#changes = changes
    changes?.onSharedChange((key) => {
      if (key !== undefined && !key.startsWith(prefix)) return
      this.#dropped++
      // After a gap nobody knows what changed: everything is read again.
      if (key === undefined) void this.load().catch(() => {})
      else this.#byHash.delete(key.slice(prefix.length))
    })
  }

  async load(): Promise<this> {
    const fresh = new Map<string, { value: T; expiresAt: number }>()
    for (const record of await this.#shared.list<T>(this.#prefix)) {
      fresh.set(record.key.slice(this.#prefix.length), { value: record.value, expiresAt: record.expiresAt })
    }
    this.#byHash.clear()
    for (const [hash, entry] of fresh) this.#byHash.set(hash, entry)
    return this
  }

  /**
   * The live credential with this hash: from memory, else (several instances) from SharedState,
   * kept once read. One instance: memory holds every credential there is.
   */
  async lookup(hash: string, now = Date.now()): Promise<T | undefined> {
    const known = this.find(hash, now)
    if (known !== undefined || !this.#changes) return known
    const dropped = this.#dropped
    const record = await this.#shared.get<T>(this.#prefix + hash)
    if (!record || record.expiresAt <= now) return undefined
    if (dropped === this.#dropped) this.#byHash.set(hash, { value: record.value, expiresAt: record.expiresAt })
    return record.value
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
    this.#changes?.sharedChanged(this.#prefix + hash)
  }

  async remove(hash: string): Promise<boolean> {
    this.#byHash.delete(hash)
    const removed = await this.#shared.delete(this.#prefix + hash)
    this.#changes?.sharedChanged(this.#prefix + hash)
    return removed
  }

  /**
   * Every live credential, with its hash (listing a workspace's sessions, revoking a grant's
   * tokens): memory holds them all on one instance; several list SharedState, since others made
   * some, and keep what they read.
   */
  async all(now = Date.now()): Promise<Array<{ hash: string; value: T; expiresAt: number }>> {
    if (this.#changes) await this.load()
    return this.entries(now)
  }

  /** Every live credential this instance holds in memory, with its hash. */
  entries(now = Date.now()): Array<{ hash: string; value: T; expiresAt: number }> {
    const out: Array<{ hash: string; value: T; expiresAt: number }> = []
    for (const [hash, entry] of this.#byHash) if (entry.expiresAt > now) out.push({ hash, ...entry })
    return out
  }
}
