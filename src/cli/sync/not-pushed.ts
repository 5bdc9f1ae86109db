import { dirname, join } from 'node:path'
import { bytes } from '../../terminal/format.js'
import { isImagePath, MAX_EXPANDED_BYTES, MAX_WIRE_BYTES } from '../request-limits.js'

/**
 * A file of the folder that a push left out, and why. It stays in the engine's list (and on
 * every push summary) until it is pushed, ignored or deleted: a file that cannot go never holds
 * back the rest, and is never silently dropped.
 */
export interface NotPushed {
  path: string
  /**
   * unreadable: the folder has it but it cannot be read (permission denied, a link to nothing…);
   * too-big: it cannot fit in one request even alone; no-room: it fits alone but not with the
   * rest of this push, so the next push takes it.
   */
  problem: 'unreadable' | 'too-big' | 'no-room'
  /** unreadable: what reading it said. */
  reason?: string
  /** too-big and no-room: the file's bytes. */
  size?: number
  /** too-big: what one request carries. */
  limit?: number
  /** What is wrong and how to get it in, in one sentence. */
  message: string
}

export interface Where {
  id: string
  /** Absolute path of the folder. */
  root: string
}

/** The folio upload command line that puts this file of the folder in the folio, in its folder. */
export function uploadCommand(where: Where, path: string): string {
  const folder = dirname(path)
  return `folio upload ${where.id} ${join(where.root, path)}${folder !== '.' ? ` --to ${folder}` : ''}`
}

export function unreadable(path: string, reason: string, inFolio: boolean): NotPushed {
  const kept = inFolio ? 'the folio keeps the copy it has' : 'the folio does not have it'
  return { path, problem: 'unreadable', reason, message: `${path}: cannot read it (${reason}); ${kept}. Make it readable, or leave it out with .folioignore.` }
}

export function tooBig(path: string, size: number, where: Where, why?: string): NotPushed {
  const alone = size > MAX_WIRE_BYTES ? `, over ${bytes(MAX_WIRE_BYTES)} by itself` : ''
  const measured = why ? ` (${why.replace(/^the files come/, 'it comes')})` : ''
  const fix = isImagePath(path)
    ? `put it in with ${uploadCommand(where, path)} (images up to 25 MB each), or make it smaller`
    : 'make it smaller, or leave it out with .folioignore'
  return {
    path,
    problem: 'too-big',
    size,
    limit: MAX_WIRE_BYTES,
    message: `${path} (${bytes(size)}${alone}) is too big for one push${measured}: a push carries at most ${bytes(MAX_WIRE_BYTES)} (${bytes(MAX_EXPANDED_BYTES)} once its gzip is expanded). To get it in, ${fix}.`,
  }
}

export function noRoom(path: string, size: number): NotPushed {
  return { path, problem: 'no-room', size, message: `${path} (${bytes(size)}) did not fit in this push with the rest; the next push takes it.` }
}
