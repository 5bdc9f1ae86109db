import { type Advice, fitOneRequest, isImagePath, MAX_EXPANDED_BYTES, measureOneRequest, refuseIfSurelyTooLarge } from '../request-limits.js'
import { ioReason, isMissing, type LocalFile, readForSync, type ReadForSync } from './local-files.js'
import { noRoom, type NotPushed, tooBig, unreadable, uploadCommand, type Where } from './not-pushed.js'

export interface PushToFit {
  /** path → the file to send, or null to delete it. */
  changes: Map<string, LocalFile | null>
  /** Where the files left out go (with why); it may hold entries already. */
  notPushed: Map<string, NotPushed>
  where: Where
  /** The watcher: leave the biggest files for the next push rather than refuse the push. */
  partial: boolean
  message: string | undefined
  baseVersionId: string
  /** Whether the folio has a file at this path (an unreadable one keeps its copy). */
  inFolio: (path: string) => boolean
}

export interface FittedPush {
  /** The request body, gzipped in the envelope when that is what makes it fit. */
  body: { files: Record<string, ReadForSync['content'] | null>; message?: string; baseVersionId: string }
  /** What is sent, as read: the hash is of the bytes that travel. */
  read: Map<string, ReadForSync>
  deletions: string[]
}

/** Too big for one request: name the big files and say what to do with them. */
export const pushAdvice =
  (where: Where): Advice =>
  (biggest) => {
    const image = biggest.find((f) => isImagePath(f.path))
    const upload = image
      ? ` Images can go with folio upload (up to 25 MB each, no new version), e.g. ${uploadCommand(where, image.path)}; a file already in the folio is not sent again.`
      : ''
    return `Leave big files out with .folioignore.${upload}`
  }

const byPath = <T>([a]: [string, T], [b]: [string, T]) => (a < b ? -1 : 1)

/**
 * One push is one request, so one version. The files are read and fitted into it: what cannot fit
 * even alone is left out as too big (named, with its size and the limit). When the rest still
 * cannot fit, the watcher leaves the biggest for its next push, and a one-off sync refuses the
 * whole push, naming the biggest files (it would rather not make a version that is half a change).
 */
export async function fitOnePush(push: PushToFit): Promise<FittedPush> {
  const { changes, notPushed, where } = push
  const advice = pushAdvice(where)
  const deletions = [...changes].filter(([, file]) => file === null).map(([path]) => path)
  let sending = [...changes.values()].filter((file): file is LocalFile => file !== null)
  for (const file of sending) if (file.size > MAX_EXPANDED_BYTES) notPushed.set(file.path, tooBig(file.path, file.size, where))
  sending = sending.filter((file) => !notPushed.has(file.path)).sort((a, b) => b.size - a.size)
  // Over the limit before a byte is read: the one-off sync refuses at once; the watcher makes room.
  if (!push.partial) refuseIfSurelyTooLarge(sending, advice)
  for (let total = sending.reduce((sum, f) => sum + f.size, 0); total > MAX_EXPANDED_BYTES; total -= sending[0]!.size) {
    notPushed.set(sending[0]!.path, noRoom(sending[0]!.path, sending[0]!.size))
    sending.shift()
  }
  const read = new Map<string, ReadForSync>()
  for (const file of sending) {
    try {
      read.set(file.path, await readForSync(file))
    } catch (error) {
      // Deleted since the scan: the watcher hears of it. Unreadable now: reported, not deleted.
      if (!isMissing(error)) notPushed.set(file.path, unreadable(file.path, ioReason(error), push.inFolio(file.path)))
    }
  }
  const bodyOf = () => {
    const files: FittedPush['body']['files'] = {}
    for (const [path, sent] of [...read].sort(byPath)) files[path] = sent.content
    for (const path of deletions) files[path] = null
    return { files, message: push.message, baseVersionId: push.baseVersionId }
  }
  let measured = measureOneRequest(bodyOf())
  if (measured.fits) return { body: measured.body, read, deletions }
  for (const [path, sent] of [...read]) {
    const alone = measureOneRequest({ files: { [path]: sent.content } })
    if (alone.fits) continue
    notPushed.set(path, tooBig(path, sent.size, where, alone.why))
    read.delete(path)
  }
  if (!push.partial) {
    const sizes = [...read].map(([path, sent]) => ({ path, size: sent.size }))
    return { body: fitOneRequest(bodyOf(), sizes, advice), read, deletions }
  }
  for (const [path, sent] of [...read].sort(([, a], [, b]) => b.size - a.size)) {
    measured = measureOneRequest(bodyOf())
    if (measured.fits) break
    notPushed.set(path, noRoom(path, sent.size))
    read.delete(path)
  }
  return { body: measureOneRequest(bodyOf()).body, read, deletions }
}
