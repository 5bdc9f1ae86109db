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
  /** The owner hears of each view's summary by chat integrations and e-mail (off when absent). */
  notifyViews?: boolean
  /** Number of the latest version: versions are v1 … v<head>. */
  head: number
  /** Bytes of the distinct contents this folio's history holds. */
  storageBytes: number
  /**
   * Summaries of versions v<logStart> … v<head>, oldest first (store/content/version-log.ts): lists show
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
  /** Where the pin was made (issue 9): the element, a quote of its text, the offset inside it. */
  anchor?: CommentAnchor
  /** The comment this one answers (a reply): replies have no anchor and follow their parent. */
  parentId?: string
  /** The newest version on which the anchored element was found (re-anchoring moves it forward). */
  anchoredVersionId?: string
  /** Re-anchoring could not find the element in the newest version: listed, not pinned. */
  outdated?: boolean
}

/**
 * Where in a page a pin was made, so it can be drawn on the same element at any width and found
 * again in a later version. `x`/`y` of the comment stay the fallback (percent of the page).
 */
export interface CommentAnchor {
  /** A robust CSS selector of the element: its id, else data attributes, else a short structural path. */
  selector: string
  /** The element's trimmed text with whitespace collapsed (at most 300 characters). */
  quote?: string
  /** Where inside the element's box, in percent (0–100). */
  offsetX: number
  offsetY: number
  /** location.hash inside the frame when the pin was made ("#3", "#/slide-3"). */
  hash?: string
  /** The active slide's index when the page is a deck and it could be told. */
  slide?: number
  /** The frame's size when the pin was made. */
  viewport?: { width: number; height: number }
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
    | 'notifyViews'
  >
>

/** File contents as the API carries them: text, or binary as a base64 data URL. */
export type FileMap = Record<string, string>
