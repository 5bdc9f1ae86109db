/** What the store refuses, for the server to turn into the spec's error bodies. */

export class VersionNotFoundError extends Error {
  constructor(
    readonly versionId: string,
    readonly latest: number,
  ) {
    super(`Version ${versionId} does not exist; this folio has v1 to v${latest}`)
  }
}

export class InvalidFilePathError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`File path ${JSON.stringify(path.slice(0, 80))} ${reason}`)
  }
}

export class VersionConflictError extends Error {
  constructor(
    readonly expected: string,
    readonly latest: string,
  ) {
    super(`The changes were made against ${expected}, but the latest version is ${latest}`)
  }
}

export class CommentNotFoundError extends Error {
  constructor(readonly commentId: string) {
    super(`No comment ${commentId} on this folio`)
  }
}

/** The folio holds as many comments (or comment bytes) as it may. */
export class CommentLimitError extends Error {
  constructor(
    readonly limit: 'comments' | 'bytes',
    readonly max: number,
  ) {
    super(
      limit === 'comments'
        ? `This folio holds ${max.toLocaleString('en')} comments, the most it may`
        : `This folio's comments take ${formatMb(max)}, the most they may`,
    )
  }
}

/** The folio's moderation setting (or an owner-only change) refuses this caller. */
export class CommentForbiddenError extends Error {}

/** A reply names no comment it can answer: missing, deleted, or itself a reply. */
export class InvalidReplyError extends Error {}

const formatMb = (bytes: number) => `${(bytes / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} MB`

/** A file value points to an asset (asset://<sha256>) that no folio of the caller's workspace holds. */
export class UnknownAssetError extends Error {
  constructor(
    readonly path: string,
    readonly hash: string,
  ) {
    super(
      `File ${JSON.stringify(path.slice(0, 80))} points to asset://${hash}, which no folio of this workspace holds; send the image itself (a base64 data URL)`,
    )
  }
}

/**
 * A write refused because the disk holding the data dir is full (ENOSPC, EDQUOT). A state, not
 * for good: the journal takes writes again once space is freed (write-journal.ts). Answered
 * 507 INSUFFICIENT_STORAGE with Retry-After.
 */
export class InsufficientStorageError extends Error {
  constructor(
    readonly since: Date,
    cause?: unknown,
  ) {
    super(
      `The disk holding the data dir is full (since ${since.toISOString()}): folio refuses writes until space is freed there, then takes them again by itself. Reads go on; nothing acknowledged was lost.`,
      { cause },
    )
  }
}

/**
 * PostgreSQL cannot be reached now (refused, terminated, a pool or lock connection that did not
 * come within its time), after the retries a statement gets. Answered 503 DATABASE_UNAVAILABLE
 * with Retry-After. Here rather than in pg/: the server maps it without loading pg.
 */
export class DatabaseUnavailableError extends Error {
  /** The driver's code (ECONNREFUSED, 57P01) or message: never the URL or its password. */
  readonly detail: string | undefined
  constructor(cause?: unknown) {
    const code = (cause as { code?: unknown } | undefined)?.code
    const detail = typeof code === 'string' ? code : cause instanceof Error ? cause.message : undefined
    super(`The database cannot be reached${detail ? ` (${detail})` : ''}`, { cause })
    this.detail = detail
  }
}
