import type { Storage } from 'unstorage'

/**
 * JSON documents in storage. unstorage parses with destr, which hands back the raw string when
 * a document does not parse; here that is reported as corruption instead of being passed on
 * as if it were the document.
 */
export class CorruptDocumentError extends Error {
  constructor(readonly key: string) {
    super(`Stored document ${key} is not valid JSON`)
  }
}

export async function readJson<T extends object>(storage: Storage, key: string): Promise<T | undefined> {
  const value = await storage.getItem(key)
  if (value === null || value === undefined) return undefined
  if (typeof value !== 'object') throw new CorruptDocumentError(key)
  return value as T
}

export async function writeJson(storage: Storage, key: string, value: object): Promise<void> {
  await storage.setItem(key, JSON.stringify(value))
}

/**
 * Removes every key under `base`. (unstorage's storage.clear(base) reaches only mounts that start
 * at `base`, so on a root mount it silently does nothing; ask the driver instead.)
 */
export async function clearPrefix(storage: Storage, base: string): Promise<void> {
  const { driver, base: mountBase } = storage.getMount(base)
  const relative = base.slice(mountBase.length)
  if (driver.clear) {
    await driver.clear(relative, {})
    return
  }
  for (const key of await storage.getKeys(base)) await storage.removeItem(key)
}
