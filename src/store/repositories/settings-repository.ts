import { randomBytes } from 'node:crypto'
import type { Storage } from 'unstorage'
import { readJson, writeJson } from '../engine/json-io.js'
import { KeyedMutex } from '../coordination/keyed-mutex.js'
import { lockedThing, settingLock } from '../coordination/lock-keys.js'
import type { Locks } from '../coordination/locks.js'

/** The folder of the data dir the settings (the secrets among them) live in. */
export const SETTINGS_FOLDER = 'settings'

/**
 * Server-wide settings, one small key each (settings/<name>.json): the signing secret, the
 * tunnel's display URL, keys. Values are JSON objects, kept in memory once read; a write is
 * made under the setting's lock, and another instance's write drops what is kept here
 * (onStale under the lock, forget from change-feed.ts).
 */
export class SettingsRepository {
  readonly #storage: Storage
  readonly #locks: Locks
  readonly #cache = new Map<string, object | undefined>()
  readonly #listeners = new Set<(name: string) => void>()
  readonly #forgetListeners = new Set<(name: string | undefined) => void>()
  #secret: Promise<Buffer> | undefined

  constructor(storage: Storage, locks: Locks = new KeyedMutex()) {
    this.#storage = storage
    this.#locks = locks
    locks.onStale((key) => {
      const thing = lockedThing(key)
      if (thing.kind === 'setting') this.forget(thing.id)
    })
  }

  /** Called after a setting is written here (change-feed.ts tells the other instances). */
  onChange(listener: (name: string) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Drops a kept setting (another instance wrote it); every one, without a name. */
  forget(name?: string): void {
    if (name === undefined) this.#cache.clear()
    else this.#cache.delete(name)
    for (const listener of this.#forgetListeners) listener(name)
  }

  /** Called when another instance may have changed a setting (undefined: any of them): what holds a copy reads it again. */
  onForget(listener: (name: string | undefined) => void): () => void {
    this.#forgetListeners.add(listener)
    return () => this.#forgetListeners.delete(listener)
  }

  async get<T extends object>(name: string): Promise<T | undefined> {
    if (this.#cache.has(name)) return this.#cache.get(name) as T | undefined
    const value = await readJson<T>(this.#storage, `${SETTINGS_FOLDER}:${name}.json`)
    this.#cache.set(name, value)
    return value
  }

  async set(name: string, value: object): Promise<void> {
    await this.#locks.run(settingLock(name), () => this.#write(name, value))
  }

  /**
   * The setting, made by `make` and kept when there is none yet: under its lock, so instances
   * starting together agree on one (a secret made twice would sign what the other refuses).
   */
  ensure<T extends object>(name: string, make: () => T, usable: (stored: T) => boolean = () => true): Promise<T> {
    return this.#locks.run(settingLock(name), async () => {
      const stored = await this.get<T>(name)
      if (stored && usable(stored)) return stored
      const fresh = make()
      await this.#write(name, fresh)
      return fresh
    })
  }

  async #write(name: string, value: object): Promise<void> {
    await writeJson(this.#storage, `${SETTINGS_FOLDER}:${name}.json`, value)
    this.#cache.set(name, value)
    for (const listener of this.#listeners) listener(name)
  }

  /** A random secret made on first use and kept: signs viewer access tokens across restarts. */
  secret(): Promise<Buffer> {
    this.#secret ??= this.ensure<{ hex: string }>('secret', newSecret, (stored) => Boolean(stored.hex)).then((stored) => Buffer.from(stored.hex, 'hex'))
    return this.#secret
  }
}

/** 32 random bytes, as settings keep a secret. */
export const newSecret = () => ({ hex: randomBytes(32).toString('hex') })
