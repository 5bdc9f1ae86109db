import { versionId } from '../../domain/ids.js'
import type { BlobRef, FileMap, FolioMeta, VersionManifest, VersionSummary } from '../../domain/model.js'
import { readJson, writeJson } from '../engine/json-io.js'
import { keys } from '../keys.js'
import { folioLock } from '../coordination/lock-keys.js'
import type { HistoryParts } from './version-commits.js'
import { buildLog, summaryOf } from './version-log.js'

/** What migrations write into a folio's history: FolioRepository's parts, lent for it. */
export interface ImportParts extends HistoryParts {
  /** Every version of a folio, oldest first (FolioRepository.history). */
  versions: (meta: FolioMeta) => Promise<VersionManifest[]>
  /** The repository's cached metadata of the folio is old now. */
  forget: (id: string) => void
}

export type ImportedMeta = Omit<FolioMeta, 'head' | 'storageBytes' | 'log' | 'logStart'>
export type ImportedVersion = Omit<VersionManifest, 'versionId' | 'files'> & { files: FileMap }

/**
 * Writes a folio whose id, timestamps and history come from elsewhere (a migration). Safe to
 * repeat: a folio whose metadata exists was imported completely and is left alone.
 */
export async function importFolio(parts: ImportParts, meta: ImportedMeta, versions: ImportedVersion[]): Promise<boolean> {
  const { storage, history, contents, packer, log } = parts
  return parts.locks.run(folioLock(meta.id), async () => {
    if (await storage.hasItem(keys.meta(meta.id))) return false
    let previous: Record<string, BlobRef> = {}
    let storageBytes = 0
    const summaries: VersionSummary[] = []
    for (const [i, version] of versions.entries()) {
      const stored = await contents.storeFiles(meta.id, version.files, previous)
      const manifest: VersionManifest = { ...version, versionId: versionId(i + 1), files: stored.refs }
      await history.append(meta.id, i + 1, manifest)
      await packer.tidy(meta.id, [{ n: i + 1, head: manifest, compactions: stored.compactions, restored: false }], true)
      storageBytes += stored.added
      previous = stored.refs
      summaries.push(summaryOf(manifest))
    }
    const built = buildLog(summaries)
    for (const chunk of built.closed) await log.close(meta.id, chunk)
    await storage.setItemRaw(keys.workspaceFolio(meta.workspaceId, meta.id), Buffer.alloc(0))
    await writeJson(storage, keys.meta(meta.id), { ...meta, head: versions.length, storageBytes, log: built.log, logStart: built.logStart } satisfies FolioMeta)
    return true
  })
}

/**
 * Gives a folio written before version logs (format < 3) its log, from its history. Safe to
 * repeat: a folio that has a log is left alone.
 */
export async function addVersionLog(parts: ImportParts, id: string): Promise<boolean> {
  return parts.locks.run(folioLock(id), async () => {
    const meta = await readJson<FolioMeta>(parts.storage, keys.meta(id))
    if (!meta || Array.isArray(meta.log)) return false
    const history = await parts.versions({ ...meta, log: [], logStart: 1 })
    const { log, logStart, closed } = buildLog(history.map(summaryOf))
    for (const chunk of closed) await parts.log.close(id, chunk)
    await writeJson(parts.storage, keys.meta(id), { ...meta, log, logStart } satisfies FolioMeta)
    parts.forget(id)
    return true
  })
}
