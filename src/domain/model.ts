/**
 * The model every layer shares: what a folio, a version, a comment and its analytics are.
 * The store keeps it, the API contracts describe it, the CLI and the domain logic read it.
 */
import type { Reactions } from './reactions.js'

export const PROJECT_MODES = ['deck', 'document', 'spreadsheet', 'dashboard', 'infography'] as const
export type ProjectMode = (typeof PROJECT_MODES)[number]
export const FOLIO_STATUSES = ['draft', 'published'] as const
export type FolioStatus = (typeof FOLIO_STATUSES)[number]
/**
 * Who may resolve or delete a folio's comments: anyone who can view it (the spec), or only its
 * owner and each comment's author (who proves it with the token the comment was created with).
 */
export const COMMENT_MODERATIONS = ['anyone', 'owner-and-author'] as const
export type CommentModeration = (typeof COMMENT_MODERATIONS)[number]

/** What a version manifest records for one file. */
export interface BlobRef {
  /** sha256 of the bytes */
  h: string
  /** size in bytes */
  s: number
  /** MIME type when the bytes are binary; the API shows them as a base64 data URL */
  m?: string
}

export interface VersionManifest {
  versionId: string
  commitMessage: string
  createdAt: string
  author: string
  files: Record<string, BlobRef>
}

/** A version without its files: what lists show of a folio's history. */
export type VersionSummary = Omit<VersionManifest, 'files'>

/** Everything about a folio that is not history, comments or engagement: one small key. */
export interface FolioMeta {
  id: string
  workspaceId: string
  title: string
  description: string
  createdAt: string
  updatedAt: string
  isPrivate: boolean
  accessKey: string
  allowComments: boolean
  presentationModeOnly: boolean
  status: FolioStatus
  projectMode: ProjectMode
  collaborators: unknown[]
  designPreferences: Record<string, unknown>
  referenceFiles: unknown[]
  publicTunnelEnabled: boolean
  /** Absent in folios written before it existed: 'anyone', as the spec has it. */
  commentModeration?: CommentModeration
  /** Number of the latest version: versions are v1 … v<head>. */
  head: number
  /** Bytes of the distinct contents this folio's history holds. */
  storageBytes: number
  /**
   * Summaries of versions v<logStart> … v<head>, oldest first (store/version-log.ts): lists show
   * every version without reading history. Older summaries sit in closed log chunks; this tail
   * stays small (a few KB), so a metadata write does not grow with history.
   */
  log: VersionSummary[]
  logStart: number
}

export interface Comment {
  id: string
  author: string
  text: string
  createdAt: string
  versionId: string
  filename: string
  resolved: boolean
  x?: number
  y?: number
  selector?: string
  elementHtml?: string
  /**
   * Set when someone other than the owner deleted the comment: hidden from viewers, shown to
   * the owner, who can restore it. The owner's own DELETE removes a comment for good.
   */
  deletedAt?: string
  deletedBy?: CommentDeleter
}

/** Who soft-deleted a comment: its author (with the author token), another viewer, or the owner (PUT deleted: true). */
export type CommentDeleter = 'author' | 'viewer' | 'owner'

export interface Analytics {
  views: number
  totalTimeSeconds: number
  avgTimeSeconds: number
  mobileViews: number
  desktopViews: number
}

export const EMPTY_ANALYTICS: Analytics = Object.freeze({
  views: 0,
  totalTimeSeconds: 0,
  avgTimeSeconds: 0,
  mobileViews: 0,
  desktopViews: 0,
})

export type { Reactions }

/** The metadata fields a create or an update may set. */
export type MetaPatch = Partial<
  Pick<
    FolioMeta,
    | 'title'
    | 'description'
    | 'isPrivate'
    | 'accessKey'
    | 'allowComments'
    | 'presentationModeOnly'
    | 'status'
    | 'projectMode'
    | 'collaborators'
    | 'designPreferences'
    | 'referenceFiles'
    | 'publicTunnelEnabled'
    | 'commentModeration'
  >
>

/** File contents as the API carries them: text, or binary as a base64 data URL. */
export type FileMap = Record<string, string>
