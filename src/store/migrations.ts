import type { Storage } from 'unstorage'
import { isFolioId, newFolioId } from '../domain/ids.js'
import { sanitizeReactions } from '../domain/reactions.js'
import type { EngagementRepository } from './engagement-repository.js'
import type { FolioRepository } from './folio-repository.js'
import { keys } from './keys.js'
import { readJson, writeJson } from './json-io.js'
import { closeTree } from './file-modes.js'
import { type Analytics, type Comment, EMPTY_ANALYTICS, FOLIO_STATUSES, type FileMap, PROJECT_MODES } from '../domain/model.js'

/**
 * The data dir carries a format stamp. On start the store brings older formats up to date one
 * step at a time (spec: Versioning 4), and refuses a dir written by a newer folio rather than
 * guessing at it.
 *
 * Format 0 is the single `database.json` that the hosted product's self-hosted mode writes
 * (every folio and version inline); format 1 is this store's layout with one manifest file per
 * version; format 2 keeps new versions in history segments with their replaced contents packed
 * (store/history-segments.ts). Format 2 still reads format 1's manifests where they are, so that
 * step converts nothing: the stamp only keeps an older folio from misreading a newer dir.
 * Format 3 gives every folio a version log (store/version-log.ts) so lists show versions
 * without reading history. Format 4 closes the files and folders an older folio left readable
 * by other users (store/file-modes.ts): one walk, once.
 */
export const CURRENT_FORMAT = 4

interface FormatStamp {
  format: number
  updatedAt: string
}

export class FormatTooNewError extends Error {
  constructor(readonly found: number) {
    super(
      `This data dir was written by a newer folio (format ${found}; this one reads up to ${CURRENT_FORMAT}). Upgrade folio (npm i -g folio@latest) or point --data at another folder.`,
    )
  }
}

interface MigrationContext {
  /** The folder the storage keeps its files in. */
  dataDir: string
  storage: Storage
  folios: FolioRepository
  engagement: EngagementRepository
  log: (message: string) => void
}

const MIGRATIONS: Record<number, (ctx: MigrationContext) => Promise<void>> = {
  0: importLegacyDatabase,
  1: async () => {},
  2: addVersionLogs,
  3: closeToOthers,
}

export async function migrate(ctx: MigrationContext): Promise<{ from: number; to: number }> {
  const stamp = await readJson<FormatStamp>(ctx.storage, keys.format)
  let format = stamp?.format ?? ((await ctx.storage.hasItem(keys.legacyDatabase)) ? 0 : CURRENT_FORMAT)
  const from = format
  if (format > CURRENT_FORMAT) throw new FormatTooNewError(format)
  while (format < CURRENT_FORMAT) {
    await MIGRATIONS[format]!(ctx)
    format++
    await writeJson(ctx.storage, keys.format, { format, updatedAt: new Date().toISOString() } satisfies FormatStamp)
  }
  if (!stamp) await writeJson(ctx.storage, keys.format, { format, updatedAt: new Date().toISOString() } satisfies FormatStamp)
  return { from, to: format }
}

type Loose = Record<string, unknown>
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback)
const bool = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback)
const obj = (v: unknown): Loose => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Loose) : {})
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const oneOf = <T extends string>(v: unknown, allowed: readonly T[], fallback: T): T => (allowed.includes(v as T) ? (v as T) : fallback)

function stringFiles(v: unknown): FileMap {
  const files: FileMap = {}
  for (const [path, content] of Object.entries(obj(v))) if (typeof content === 'string') files[path] = content
  return files
}

/** Format 0 → 1: every folio of database.json becomes folio keys; the file is kept aside. */
async function importLegacyDatabase(ctx: MigrationContext): Promise<void> {
  const db = await readJson<object>(ctx.storage, keys.legacyDatabase)
  const list = Array.isArray(db) ? db : arr(obj(db).projects ?? obj(db).folios ?? obj(db).files)
  let imported = 0
  for (const item of list) {
    const p = obj(item)
    const now = new Date().toISOString()
    const id = isFolioId(p.id) ? p.id : newFolioId()
    let versions = arr(p.versions).map((v) => {
      const version = obj(v)
      return {
        commitMessage: str(version.commitMessage, 'Imported'),
        createdAt: str(version.createdAt, now),
        author: str(version.author, 'imported'),
        files: stringFiles(version.files),
      }
    })
    if (versions.length === 0) versions = [{ commitMessage: 'Imported', createdAt: str(p.createdAt, now), author: 'imported', files: stringFiles(p.files) }]
    const created = await ctx.folios.importFolio(
      {
        id,
        workspaceId: 'local',
        title: str(p.title, 'Untitled').trim() || 'Untitled',
        description: str(p.description),
        createdAt: str(p.createdAt, now),
        updatedAt: str(p.updatedAt, now),
        isPrivate: bool(p.isPrivate, false),
        accessKey: str(p.accessKey),
        allowComments: bool(p.allowComments, true),
        presentationModeOnly: bool(p.presentationModeOnly, false),
        status: oneOf(p.status, FOLIO_STATUSES, 'draft'),
        projectMode: oneOf(p.projectMode, PROJECT_MODES, 'deck'),
        collaborators: arr(p.collaborators),
        designPreferences: obj(p.designPreferences),
        referenceFiles: arr(p.referenceFiles),
        publicTunnelEnabled: bool(p.publicTunnelEnabled, false),
      },
      versions,
    )
    if (!created) continue
    const comments = arr(p.comments).map((c) => obj(c)) as unknown as Comment[]
    if (comments.length) await ctx.engagement.replace(id, 'comments', comments)
    const reactions = sanitizeReactions(obj(p.reactions))
    if (Object.keys(reactions).length) await ctx.engagement.replace(id, 'reactions', reactions)
    const a = obj(p.analytics)
    if (Object.keys(a).length) {
      const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0)
      const analytics: Analytics = { ...EMPTY_ANALYTICS }
      for (const k of Object.keys(EMPTY_ANALYTICS) as Array<keyof Analytics>) analytics[k] = num(a[k])
      await ctx.engagement.replace(id, 'analytics', analytics)
    }
    imported++
  }
  // Keep the original beside the new layout rather than deleting anyone's data.
  const original = await ctx.storage.getItemRaw(keys.legacyDatabase)
  await ctx.storage.setItemRaw('database.imported.json', original)
  await ctx.storage.removeItem(keys.legacyDatabase)
  ctx.log(`Imported ${imported} folio(s) from database.json (kept as database.imported.json).`)
}

/** Format 2 → 3: every folio gets its version log, built once from its history. */
async function addVersionLogs(ctx: MigrationContext): Promise<void> {
  const markers = await ctx.storage.getKeys('workspaces')
  const ids = new Set(markers.filter((k) => /:folios:[^:]+$/.test(k)).map((k) => k.slice(k.lastIndexOf(':') + 1)))
  let done = 0
  for (const id of ids) if (await ctx.folios.addVersionLog(id)) done++
  if (done) ctx.log(`Added a version log to ${done} folio(s) (data format 3).`)
}

/** Format 3 → 4: files 0600 and folders 0700, where an older folio wrote 0644 and 0755. */
async function closeToOthers(ctx: MigrationContext): Promise<void> {
  const { files, folders } = await closeTree(ctx.dataDir)
  if (files || folders) ctx.log(`Made ${files} files and ${folders} folders private to their owner (data format 4).`)
}
