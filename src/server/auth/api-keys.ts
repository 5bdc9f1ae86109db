import type { SettingsRepository } from '../../store/repositories/settings-repository.js'
import { newApiKey } from '../../store/repositories/workspace-keys.js'
import { secretsEqual } from './auth-secrets.js'

export { newApiKey }

interface StoredKey {
  key: string | null
  rotatedAt: string
  /** How many times the key changed (absent in data dirs older than OAuth: 0). */
  generation?: number
}

/**
 * The workspace's one API key. FOLIO_API_KEY (alias SERVICE_API_KEY), when set, is the key and
 * cannot be rotated from the API; otherwise the key lives in the data dir and rotate/revoke
 * take effect at once (the check reads memory, not disk).
 */
export class ApiKeys {
  readonly #settings: SettingsRepository | undefined
  readonly #environmentKey: string | undefined
  #stored: string | null = null
  #generation = 0

  constructor(settings: SettingsRepository | undefined, environmentKey: string | undefined) {
    this.#settings = settings
    this.#environmentKey = environmentKey || undefined
    // Several instances: a key rotated or revoked through another one stops working here too.
    settings?.onForget((name) => {
      if (name === undefined || name === 'api-key') void this.#reread().catch(() => {})
    })
  }

  async #reread(): Promise<void> {
    const stored = await this.#settings?.get<StoredKey>('api-key')
    if (!stored) return
    this.#stored = stored.key
    this.#generation = stored.generation ?? 0
  }

  /**
   * Reads the stored key. On a data dir's first start (no key was ever made) the server makes
   * one, so that whoever needs a key (the tunnel, other machines) can always be given one; a
   * key revoked on purpose stays revoked across restarts.
   */
  async load(): Promise<this> {
    const stored = await this.#settings?.get<StoredKey>('api-key')
    if (stored) {
      this.#stored = stored.key
      this.#generation = stored.generation ?? 0
    } else if (this.#settings && !this.#environmentKey) await this.#save(newApiKey())
    return this
  }

  get fromEnvironment(): boolean {
    return this.#environmentKey !== undefined
  }

  /** The key that works now, if any. */
  current(): string | undefined {
    return this.#environmentKey ?? this.#stored ?? undefined
  }

  /**
   * Changes whenever the key is rotated or revoked: what was granted under an older generation
   * (OAuth tokens) ends with it. The environment's key never changes while the server runs.
   */
  get generation(): number {
    return this.#generation
  }

  matches(token: string | undefined): boolean {
    const key = this.current()
    return Boolean(key && token && secretsEqual(token, key))
  }

  async rotate(): Promise<string> {
    const key = newApiKey()
    await this.#save(key)
    return key
  }

  async revoke(): Promise<void> {
    await this.#save(null)
  }

  async #save(key: string | null): Promise<void> {
    if (!this.#settings) throw new Error('No store to keep the key in')
    const generation = this.#generation + 1
    await this.#settings.set('api-key', { key, rotatedAt: new Date().toISOString(), generation } satisfies StoredKey)
    this.#stored = key
    this.#generation = generation
  }
}
