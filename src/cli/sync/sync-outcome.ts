import type { NotPushed } from './not-pushed.js'

/* What a sync engine's push (sync-engine.ts) reports, and what a dry run would do. */

export interface SyncOutcome {
  versionId: string
  changed: boolean
  added: number
  updated: number
  deleted: number
  /** Paths whose content travelled (or were deleted). */
  paths: string[]
  /** The paths this push deleted from the folio. */
  deletedPaths: string[]
  /** Full syncs: folio files missing from the folder that were kept, as the folder never had them. */
  kept: string[]
  /** Every file of the folder still not pushed after this push, and why (not only this push's). */
  notPushed: NotPushed[]
  /** File bodies sent: 0 when nothing changed. */
  filesSent: number
  bytesSent: number
}

/** What a full sync would do, without doing it (--dry-run). */
export interface SyncPlan {
  versionId: string
  added: string[]
  updated: string[]
  deleted: string[]
  kept: string[]
  /** Files it would leave out: unreadable, or too big for any request. */
  notPushed: NotPushed[]
}

export interface CallOptions {
  /** Per request; the watcher's last push on Ctrl+C passes a short one. */
  timeoutMs?: number
}
