import { randomBytes } from 'node:crypto'
import type { Storage } from 'unstorage'
import { readJson, writeJson } from './json-io.js'

/** The folder of the data dir the settings (the secrets among them) live in. */
export const SETTINGS_FOLDER = 'settings'

/**
 * Server-wide settings, one small key each (settings/<name>.json): the signing secret, the
 * tunnel's display URL, keys. Values are JSON objects.
 */
export class SettingsRepository {
  readonly #storage: Storage
  readonly #cache = new Map<string, object | undefined>()
  #secret: Promise<Buffer> | undefined

  constructor(storage: Storage) {
    this.#storage = storage
  }

  async get<T extends object>(name: string): Promise<T | undefined> {
    if (this.#cache.has(name)) return this.#cache.get(name) as T | undefined
    const value = await readJson<T>(this.#storage, `${SETTINGS_FOLDER}:${name}.json`)
    this.#cache.set(name, value)
    return value
  }

  async set(name: string, value: object): Promise<void> {
    await writeJson(this.#storage, `${SETTINGS_FOLDER}:${name}.json`, value)
    this.#cache.set(name, value)
  }

  /** A random secret made on first use and kept: signs viewer access tokens across restarts. */
  secret(): Promise<Buffer> {
    this.#secret ??= (async () => {
      const stored = await this.get<{ hex: string }>('secret')
      if (stored?.hex) return Buffer.from(stored.hex, 'hex')
      const fresh = randomBytes(32)
      await this.set('secret', { hex: fresh.toString('hex') })
      return fresh
    })()
    return this.#secret
  }
}
