import type { Storage } from 'unstorage'
import { commentNumber, type StoredComment } from '../domain/comments.js'
import { isFolioId, newFolioId } from '../domain/ids.js'
import { sanitizeReactions } from '../domain/reactions.js'
import type { EngagementRepository } from './repositories/engagement-repository.js'
import type { FolioRepository } from './repositories/folio-repository.js'
import { keys } from './keys.js'
import { clearPrefix, readJson, writeJson } from './engine/json-io.js'
import { closeTree } from './engine/file-modes.js'
import { type Analytics, type Comment, EMPTY_ANALYTICS, FOLIO_STATUSES, type FileMap, PROJECT_MODES } from '../domain/model.js'

/**
 * The data dir carries a format stamp. On start the store brings older formats up to date one
 * step at a time (spec: Versioning 4), and refuses a dir written by a newer folio rather than
 * guessing at it.
 *
 * Format 0 is the single `database.json` that the hosted product's self-hosted mode writes
 * (every folio and version inline); format 1 is this store's layout with one manifest file per
 * version; format 2 keeps new versions in history segments with their replaced contents packed
 * (store/content/history-segments.ts). Format 2 still reads format 1's manifests where they are, so that
 * step converts nothing: the stamp only keeps an older folio from misreading a newer dir.
 * Format 3 gives every folio a version log (store/content/version-log.ts) so lists show versions
 * without reading history. Format 4 closes the files and folders an older folio left readable
 * by other users (store/engine/file-modes.ts): one walk, once. Format 5 moves each folio's
 * comments.json (one array, rewritten whole on every comment) into comment segments
 * (store/content/comment-segments.ts).
 */
export const CURRENT_FORMAT = 5

interface FormatStamp {
  format: number
  updatedAt: string
}

export class FormatTooNewError extends Error {
  constructor(readonly found: number) {
    super(
      `This data dir was written by a newer folio (format ${found}; this one reads up to ${CURRENT_FORMAT}). Upgrade folio (npm i -g folio-cli@latest) or point --data at another folder.`,
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
  4: segmentComments,
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
    // Written as that format kept them; the format 5 step turns them into segments.
    if (comments.length) await writeJson(ctx.storage, keys.legacyComments(id), comments)
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

/** The ids of every folio, from the workspaces' membership markers. */
async function folioIds(storage: Storage): Promise<Set<string>> {
  const markers = await storage.getKeys('workspaces')
  return new Set(markers.filter((k) => /:folios:[^:]+$/.test(k)).map((k) => k.slice(k.lastIndexOf(':') + 1)))
}

/** Format 2 → 3: every folio gets its version log, built once from its history. */
async function addVersionLogs(ctx: MigrationContext): Promise<void> {
  let done = 0
  for (const id of await folioIds(ctx.storage)) if (await ctx.folios.addVersionLog(id)) done++
  if (done) ctx.log(`Added a version log to ${done} folio(s) (data format 3).`)
}

/** Format 3 → 4: files 0600 and folders 0700, where an older folio wrote 0644 and 0755. */
async function closeToOthers(ctx: MigrationContext): Promise<void> {
  const { files, folders } = await closeTree(ctx.dataDir)
  if (files || folders) ctx.log(`Made ${files} files and ${folders} folders private to their owner (data format 4).`)
}

/**
 * Format 4 → 5: each folio's comments.json becomes comment segments, every comment keeping its
 * id. One that has none of the form c_<n>, or shares it with an earlier one, gets the next free
 * number (a folio imported from elsewhere may have them). comments.json goes once its segments
 * are written, so a stop in between converts the folio again from the start.
 */
async function segmentComments(ctx: MigrationContext): Promise<void> {
  let folios = 0
  let renumbered = 0
  for (const id of await folioIds(ctx.storage)) {
    let legacy: object | undefined
    try {
      legacy = await readJson<object>(ctx.storage, keys.legacyComments(id))
    } catch {
      ctx.log(`The comments of folio ${id} are damaged (folios/${id}/comments.json is not JSON): left where they are; the folio starts with none.`)
      continue
    }
    if (legacy === undefined) continue
    await clearPrefix(ctx.storage, keys.commentsDir(id))
    const kept = new Map<number, StoredComment>()
    const strays: StoredComment[] = []
    for (const item of arr(legacy)) {
      const comment = obj(item) as unknown as StoredComment
      const n = typeof comment.id === 'string' ? commentNumber(comment.id) : undefined
      if (n === undefined || kept.has(n)) strays.push(comment)
      else kept.set(n, comment)
    }
    let next = Math.max(0, ...kept.keys())
    for (const comment of strays) {
      next = Math.max(next + 1, Date.parse(String(comment.createdAt)) || 0)
      kept.set(next, { ...comment, id: `c_${next}` })
    }
    await ctx.engagement.importComments(id, [...kept.values()])
    await ctx.storage.removeItem(keys.legacyComments(id))
    folios++
    renumbered += strays.length
  }
  if (folios)
    ctx.log(
      `Moved the comments of ${folios} folio(s) into segments (data format 5)${renumbered ? `; ${renumbered} comment(s) without a usable id got a new one` : ''}.`,
    )
}
