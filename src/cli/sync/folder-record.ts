import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { configDir } from '../profile.js'

export interface FolderAndFolio {
  server: string
  id: string
  /** Absolute path of the folder. */
  root: string
}

/**
 * Which files of a folio came from this folder: the paths the folder held the last time it was
 * synced to that folio (or the folio was created from it) on this machine. A sync deletes a folio
 * file missing from the folder only when the folder once had it, so files that reached the folio
 * another way (folio upload, the API, another folder) are kept. One small JSON file per
 * (server, folio, folder) in the config dir.
 */
export class FolderRecord {
  readonly #file: string
  readonly #where: FolderAndFolio
  #paths: Set<string>

  private constructor(file: string, where: FolderAndFolio, paths: Set<string>) {
    this.#file = file
    this.#where = where
    this.#paths = paths
  }

  static async open(where: FolderAndFolio): Promise<FolderRecord> {
    const name = createHash('sha256').update(`${where.server.replace(/\/+$/, '')}\n${where.id}\n${where.root}`).digest('hex').slice(0, 32)
    const file = join(configDir(), 'sync', `${name}.json`)
    let paths: string[] = []
    try {
      const saved = JSON.parse(await readFile(file, 'utf8')) as { paths?: unknown }
      if (Array.isArray(saved.paths)) paths = saved.paths.filter((p): p is string => typeof p === 'string')
    } catch {
      // never synced from here (or the record is unreadable): nothing is known to come from the folder
    }
    return new FolderRecord(file, where, new Set(paths))
  }

  /** True when this folder had the path at its last sync (a first sync knows none). */
  has(path: string): boolean {
    return this.#paths.has(path)
  }

  get size(): number {
    return this.#paths.size
  }

  /** After a full sync: the folder holds exactly these. */
  async replace(paths: Iterable<string>): Promise<void> {
    this.#paths = new Set(paths)
    await this.#save()
  }

  /** After a push of some paths (the watcher's): these exist in the folder now, those are gone. */
  async update(present: Iterable<string>, gone: Iterable<string>): Promise<void> {
    for (const path of present) this.#paths.add(path)
    for (const path of gone) this.#paths.delete(path)
    await this.#save()
  }

  async #save(): Promise<void> {
    try {
      await mkdir(join(this.#file, '..'), { recursive: true, mode: 0o700 })
      const tmp = `${this.#file}.${process.pid}.tmp`
      await writeFile(tmp, `${JSON.stringify({ ...this.#where, paths: [...this.#paths].sort(), savedAt: new Date().toISOString() })}\n`, { mode: 0o600 })
      await rename(tmp, this.#file)
    } catch {
      // Losing the record only makes the next sync keep files it could have deleted: the safe side.
    }
  }
}
