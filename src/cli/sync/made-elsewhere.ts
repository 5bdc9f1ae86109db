import { getFolio } from '../../api/files.js'
import { versionNumber } from '../../domain/ids.js'
import type { FolioClient } from '../../client/index.js'

export interface VersionMadeElsewhere {
  versionId: string
  commitMessage: string
  author: string
  createdAt: string
}

/**
 * The latest version is not the one this folder's sync last made or saw: someone restored a
 * version, edited in the dashboard, pushed from another machine. The sync says so, then compares
 * the whole folder against it (a diff of the saved paths alone would keep whatever that version
 * dropped or brought back).
 */
export interface MadeElsewhere {
  event: 'elsewhere'
  /** The latest version now. */
  versionId: string
  /** The version the folder's sync knew before. */
  after: string
  /** The versions made since then, oldest first (empty when they could not be listed). */
  versions: VersionMadeElsewhere[]
  /** "v6 was made elsewhere (restore of v1 by ann)", and " since this folder's last sync" when starting. */
  summary: string
  /** The summary and what a forced sync does about it: re-reads the folder against it. */
  message: string
}

/**
 * A version made elsewhere, found by a sync that does not force: nothing was pushed. `base` is
 * what the folder and the folio last agreed on, `latest` the folio now; sides.ts compares them
 * with the folder to tell a pull (the folder changed nothing) from a conflict.
 */
export class MadeElsewhereError extends Error {
  constructor(
    readonly event: MadeElsewhere,
    readonly base: { versionId: string; files: ReadonlyMap<string, string> },
    readonly latest: { versionId: string; files: Map<string, string> },
  ) {
    super(event.summary)
  }
}

const RESTORE = /^Restore (v\d+)$/

/** "restore of v2 by ann", or the commit message in quotes. */
const what = (v: VersionMadeElsewhere) =>
  `${RESTORE.test(v.commitMessage) ? `restore of ${RESTORE.exec(v.commitMessage)![1]}` : JSON.stringify(v.commitMessage)} by ${v.author}`

/** What was made between `after` and `latest`, in one line; `sinceLastSync` when the sync is just starting. */
export async function madeElsewhere(client: FolioClient, id: string, after: string, latest: string, sinceLastSync: boolean): Promise<MadeElsewhere> {
  const from = versionNumber(after) ?? 0
  let versions: VersionMadeElsewhere[] = []
  try {
    const folio = await client.call(getFolio, { params: { id }, query: { files: 'none' } })
    versions = folio.versions
      .filter((v) => (versionNumber(v.versionId) ?? 0) > from)
      .map((v) => ({ versionId: v.versionId, commitMessage: v.commitMessage, author: v.author, createdAt: v.createdAt }))
  } catch {
    // Only the words suffer: the folder is compared against the latest version all the same.
  }
  const last = versions.at(-1)
  const which = versions.length > 1 ? `${versions[0]!.versionId}–${latest} were` : `${latest} was`
  const how = last ? ` (${versions.length > 1 ? 'latest: ' : ''}${what(last)})` : ''
  const when = sinceLastSync ? " since this folder's last sync" : ''
  const summary = `${which} made elsewhere${how}${when}`
  return { event: 'elsewhere', versionId: latest, after, versions, summary, message: `${summary}: re-reading the folder against it` }
}
