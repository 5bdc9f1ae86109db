/** What the store refuses, for the server to turn into the spec's error bodies. */

export class VersionNotFoundError extends Error {
  constructor(readonly versionId: string, readonly latest: number) {
    super(`Version ${versionId} does not exist; this folio has v1 to v${latest}`)
  }
}

export class InvalidFilePathError extends Error {
  constructor(readonly path: string, reason: string) {
    super(`File path ${JSON.stringify(path.slice(0, 80))} ${reason}`)
  }
}

export class VersionConflictError extends Error {
  constructor(readonly expected: string, readonly latest: string) {
    super(`The changes were made against ${expected}, but the latest version is ${latest}`)
  }
}
