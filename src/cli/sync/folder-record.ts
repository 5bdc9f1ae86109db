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

interface Saved {
  paths: Set<string>
  contents: Map<string, string[]>
  versionId?: string
  base?: Map<string, string>
}

/** A version of the folio and its files (path → sha256): what the folder agrees with after a sync or a pull. */
export interface Latest {
  versionId: string
  files: ReadonlyMap<string, string>
}

/** Enough of a sha256 to tell contents apart (64 bits), at a quarter of the size. */
export const short = (sha256: string) => sha256.slice(0, 16)

/** Contents remembered per path: a restore older than this many edits of one file is taken for a file from elsewhere. */
const CONTENTS_PER_PATH = 100
/**
 * Paths the folder no longer has whose contents are remembered, the most recently pushed first:
 * a build that names its files by hash (app.3f2a1.js) must not grow the record forever.
 */
const GONE_PATHS_REMEMBERED = 1000

/**
 * Which files of a folio came from this folder, on this machine, so that a sync deletes only
 * those when the folder lacks them (files that reached the folio another way, by folio upload,
 * the API or another folder, are kept). Two things are remembered:
 * - the paths the folder held at its last sync: missing now, they were deleted from the folder;
 * - the contents the folder gave each path: a version made elsewhere (a restore) that brings
 *   back a file the folder deleted brings back the folder's own bytes, which this recognises,
 *   where a file added elsewhere at the same path has other bytes.
 * Also the version the folder's last sync left as the latest, to notice one made elsewhere
 * in between, and that version's files (path → content hash, the "base"): what the folder and
 * the folio last agreed on, so that a version made elsewhere can be told apart from the folder's
 * own unpushed changes (sides.ts). One small JSON file per (server, folio, folder) in the config dir.
 */
export class FolderRecord {
  readonly #file: string
  readonly #where: FolderAndFolio
  #paths: Set<string>
  #contents: Map<string, string[]>
  #versionId: string | undefined
  #base: Map<string, string> | undefined

  private constructor(file: string, where: FolderAndFolio, saved: Saved) {
    this.#file = file
    this.#where = where
    this.#paths = saved.paths
    this.#contents = saved.contents
    this.#versionId = saved.versionId
    this.#base = saved.base
  }

  static async open(where: FolderAndFolio): Promise<FolderRecord> {
    const name = createHash('sha256')
      .update(`${where.server.replace(/\/+$/, '')}\n${where.id}\n${where.root}`)
      .digest('hex')
      .slice(0, 32)
    const file = join(configDir(), 'sync', `${name}.json`)
    const saved: Saved = { paths: new Set<string>(), contents: new Map<string, string[]>() }
    try {
      const json = JSON.parse(await readFile(file, 'utf8')) as { paths?: unknown; contents?: unknown; versionId?: unknown; base?: unknown }
      if (Array.isArray(json.paths)) saved.paths = new Set(json.paths.filter((p): p is string => typeof p === 'string'))
      if (json.contents && typeof json.contents === 'object') {
        for (const [path, hashes] of Object.entries(json.contents)) {
          if (Array.isArray(hashes))
            saved.contents.set(
              path,
              hashes.filter((h): h is string => typeof h === 'string'),
            )
        }
      }
      if (typeof json.versionId === 'string') saved.versionId = json.versionId
      // Records written before the base was kept have none: a version made elsewhere is then re-read as before.
      if (json.base && typeof json.base === 'object')
        saved.base = new Map(Object.entries(json.base).filter((e): e is [string, string] => typeof e[1] === 'string'))
    } catch {
      // never synced from here (or the record is unreadable): nothing is known to come from the folder
    }
    return new FolderRecord(file, where, saved)
  }

  /** True when this folder had the path at its last sync (a first sync knows none). */
  has(path: string): boolean {
    return this.#paths.has(path)
  }

  /** True when the folio's file at `path` came from this folder: it had the path, or gave it exactly these bytes. */
  cameFromFolder(path: string, sha256: string | undefined): boolean {
    return this.#paths.has(path) || (sha256 !== undefined && (this.#contents.get(path)?.includes(short(sha256)) ?? false))
  }

  /** True when the folio held exactly these bytes at `path` from this folder once: they are in its version history. */
  pushed(path: string, sha256: string): boolean {
    return this.#contents.get(path)?.includes(short(sha256)) ?? false
  }

  /** The files (path → short hash) of `versionId`, the version the folder and the folio last agreed on; undefined for an old record. */
  get base(): ReadonlyMap<string, string> | undefined {
    return this.#base
  }

  get size(): number {
    return this.#paths.size
  }

  /** The latest version after the folder's last sync, if one is recorded. */
  get versionId(): string | undefined {
    return this.#versionId
  }

  /**
   * After a full sync: the folder holds exactly `present` (readable or not), and the folio holds
   * these contents from it; `versionId` is the latest version now.
   */
  async replace(present: Iterable<string>, contents: Iterable<[string, string]>, latest: Latest | string): Promise<void> {
    this.#paths = new Set(present)
    this.#remember(contents)
    this.#agree(latest)
    await this.#save()
  }

  /** After a push of some paths (the watcher's): these exist in the folder now, those are gone. */
  async update(present: Iterable<string>, gone: Iterable<string>, contents: Iterable<[string, string]>, latest: Latest | string): Promise<void> {
    for (const path of present) this.#paths.add(path)
    for (const path of gone) this.#paths.delete(path)
    this.#remember(contents)
    this.#agree(latest)
    await this.#save()
  }

  /** A bare version id (folio create) leaves the base unknown: the version's files were not listed. */
  #agree(latest: Latest | string): void {
    this.#versionId = typeof latest === 'string' ? latest : latest.versionId
    this.#base = typeof latest === 'string' ? undefined : new Map([...latest.files].map(([path, sha256]) => [path, short(sha256)]))
  }

  #remember(contents: Iterable<[string, string]>): void {
    for (const [path, sha256] of contents) {
      const known = this.#contents.get(path) ?? []
      const hash = short(sha256)
      // Deleted and set again: the map's order is that of the last push, oldest first.
      this.#contents.delete(path)
      this.#contents.set(path, [...known.filter((h) => h !== hash), hash].slice(-CONTENTS_PER_PATH))
    }
    let gone = [...this.#contents.keys()].filter((path) => !this.#paths.has(path)).length
    for (const path of this.#contents.keys()) {
      if (gone <= GONE_PATHS_REMEMBERED) break
      if (this.#paths.has(path)) continue
      this.#contents.delete(path)
      gone--
    }
  }

  async #save(): Promise<void> {
    try {
      await mkdir(join(this.#file, '..'), { recursive: true, mode: 0o700 })
      const tmp = `${this.#file}.${process.pid}.tmp`
      // In the order of their last push, so the oldest gone paths are the first forgotten after a reload.
      const contents = Object.fromEntries(this.#contents)
      const base = this.#base && Object.fromEntries(this.#base)
      const saved = { ...this.#where, paths: [...this.#paths].sort(), contents, versionId: this.#versionId, base, savedAt: new Date().toISOString() }
      await writeFile(tmp, `${JSON.stringify(saved)}\n`, { mode: 0o600 })
      await rename(tmp, this.#file)
    } catch {
      // Losing the record only makes the next sync keep files it could have deleted: the safe side.
    }
  }
}
