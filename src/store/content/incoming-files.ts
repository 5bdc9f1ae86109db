import { checkFilePath } from '../../domain/file-paths.js'
import { hashBytes } from './blob-store.js'
import type { IncomingFile } from './folio-contents.js'
import { InvalidFilePathError } from '../store-errors.js'

/* What a write brings, checked and hashed before it queues (folio-repository.ts). */

/** A file of a new version, its path checked and its bytes hashed. */
export function incoming(path: string, content: { bytes: Buffer; mime?: string }): IncomingFile {
  const { bytes, mime } = content
  return { path: incomingPath(path), bytes, ref: mime ? { h: hashBytes(bytes), s: bytes.length, m: mime } : { h: hashBytes(bytes), s: bytes.length } }
}

export function incomingPath(path: string): string {
  const checked = checkFilePath(path)
  if (!checked.ok) throw new InvalidFilePathError(path, checked.reason)
  return checked.path
}

export function definedOnly<T extends object>(patch: T): Partial<T> {
  const out: Partial<T> = {}
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (out as Record<string, unknown>)[k] = v
  return out
}
