import type { Storage } from 'unstorage'
import type { KeyedMutex } from './keyed-mutex.js'
import { keys } from './keys.js'

interface Usage {
  bytes: number
  /** The distinct contents counted, read from their markers on first use. */
  contents: Set<string>
}

/**
 * Storage bytes per workspace, each distinct content counted once (a file shared by versions,
 * folios or assets of one workspace costs its size once). A marker per content
 * (`workspaces/<ws>/contents/<hh>/<hash>~<bytes>`) says it was counted and how big it is; the
 * total is summed from them on first use, so a crash cannot make the two disagree. What was counted stays counted: usage does not go down when folios are deleted (yet).
 */
export class WorkspaceUsage {
  readonly #storage: Storage
  readonly #locks: KeyedMutex
  readonly #loaded = new Map<string, Promise<Usage>>()
  /** Bytes of writes let in and not finished yet, per workspace: two at once cannot both pass the quota. */
  readonly #pending = new Map<string, number>()

  constructor(storage: Storage, locks: KeyedMutex) {
    this.#storage = storage
    this.#locks = locks
  }

  /** Bytes the workspace's distinct contents take. */
  async bytes(workspaceId: string): Promise<number> {
    return (await this.#usage(workspaceId)).bytes
  }

  /** How many bytes these contents would add to the workspace (those it already holds add none). */
  async wouldAdd(workspaceId: string, contents: Array<{ hash: string; bytes: number }>): Promise<number> {
    const usage = await this.#usage(workspaceId)
    const seen = new Set<string>()
    let added = 0
    for (const { hash, bytes } of contents) {
      if (usage.contents.has(hash) || seen.has(hash)) continue
      seen.add(hash)
      added += bytes
    }
    return added
  }

  /**
   * Lets a write in if the contents new to the workspace fit under `limit` with everything
   * counted and every write let in before it; release() what it returns once the write is done.
   */
  async reserve(workspaceId: string, contents: Array<{ hash: string; bytes: number }>, limit: number): Promise<{ admitted: true; bytes: number } | { admitted: false; used: number; added: number }> {
    return this.#locks.run(`usage:${workspaceId}`, async () => {
      const added = await this.wouldAdd(workspaceId, contents)
      const used = (await this.#usage(workspaceId)).bytes + (this.#pending.get(workspaceId) ?? 0)
      if (added > 0 && used + added > limit) return { admitted: false, used, added }
      this.#pending.set(workspaceId, (this.#pending.get(workspaceId) ?? 0) + added)
      return { admitted: true, bytes: added }
    })
  }

  release(workspaceId: string, bytes: number): void {
    const left = (this.#pending.get(workspaceId) ?? 0) - bytes
    if (left > 0) this.#pending.set(workspaceId, left)
    else this.#pending.delete(workspaceId)
  }

  /** Counts a content for the workspace, once. Returns the bytes it added (0 when already counted). */
  async countContent(workspaceId: string, hash: string, bytes: number): Promise<number> {
    return this.#locks.run(`usage:${workspaceId}`, async () => {
      const usage = await this.#usage(workspaceId)
      if (usage.contents.has(hash)) return 0
      await this.#storage.setItem(keys.workspaceContent(workspaceId, hash, bytes), '')
      usage.contents.add(hash)
      usage.bytes += bytes
      return bytes
    })
  }

  #usage(workspaceId: string): Promise<Usage> {
    let loaded = this.#loaded.get(workspaceId)
    if (!loaded) {
      loaded = this.#read(workspaceId)
      this.#loaded.set(workspaceId, loaded)
      loaded.catch(() => this.#loaded.delete(workspaceId))
    }
    return loaded
  }

  async #read(workspaceId: string): Promise<Usage> {
    const contents = new Set<string>()
    let bytes = 0
    for (const key of await this.#storage.getKeys(keys.workspaceContents(workspaceId))) {
      const name = key.slice(key.lastIndexOf(':') + 1)
      const tilde = name.indexOf('~')
      if (tilde < 0) continue
      contents.add(name.slice(0, tilde))
      bytes += Number(name.slice(tilde + 1)) || 0
    }
    return { bytes, contents }
  }
}
