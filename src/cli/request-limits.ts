import { gzipSync } from 'node:zlib'
import { GZIP_ABOVE_BYTES } from '../client/gzip.js'
import { bytes } from '../terminal/format.js'
import { CliError } from './errors.js'

/**
 * What the server takes in one JSON request: 20 MB on the wire, and a {_gz, _d} envelope may
 * expand to at most 32 MB. Checked here, before sending, so that a folder that cannot fit is
 * refused with the names of its big files instead of the server's FOLIO_TOO_LARGE.
 */
export const MAX_WIRE_BYTES = 20 * 1024 * 1024
export const MAX_EXPANDED_BYTES = 32 * 1024 * 1024

export interface SizedFile {
  path: string
  size: number
}

/** Given the biggest files, the sentence that says what to do instead (it differs per command). */
export type Advice = (biggest: SizedFile[]) => string

const IMAGE = /\.(png|jpe?g|gif|webp|ico|bmp|svg)$/i
export const isImagePath = (path: string) => IMAGE.test(path)

function tooLarge(what: string, files: SizedFile[], advice: Advice): CliError {
  const biggest = [...files].sort((a, b) => b.size - a.size).slice(0, 5)
  const names = biggest.map((f) => `${f.path} (${bytes(f.size)}${f.size > MAX_WIRE_BYTES ? `, over ${bytes(MAX_WIRE_BYTES)} by itself` : ''})`).join(', ')
  return new CliError(
    `Too big for one request: ${what}; the server takes ${bytes(MAX_WIRE_BYTES)} per request (${bytes(MAX_EXPANDED_BYTES)} once a gzipped body is expanded). Biggest files: ${names}. ${advice(biggest)}`,
  )
}

/**
 * Refuses before any file is read when the raw bytes alone are over the limit: JSON never makes
 * a file smaller (text gains escapes, binary grows by 4/3 in base64).
 */
export function refuseIfSurelyTooLarge(files: SizedFile[], advice: Advice): void {
  const total = files.reduce((sum, f) => sum + f.size, 0)
  if (total > MAX_EXPANDED_BYTES) throw tooLarge(`the ${files.length} file(s) to send hold ${bytes(total)}`, files, advice)
}

/** How a body would travel: as it is when small, else gzipped in the envelope the server expands; `fits` says whether it can. */
export interface Measured<T> {
  body: T
  fits: boolean
  /** Why not, when it does not fit: "the files come to 33.0 MB as JSON". */
  why?: string
}

export function measureOneRequest<T extends object>(body: T): Measured<T> {
  const json = JSON.stringify(body)
  const expanded = Buffer.byteLength(json)
  if (expanded <= GZIP_ABOVE_BYTES) return { body, fits: true }
  if (expanded > MAX_EXPANDED_BYTES) return { body, fits: false, why: `the files come to ${bytes(expanded)} as JSON` }
  const envelope = { _gz: true, _d: gzipSync(json).toString('base64') }
  const wire = envelope._d.length + 20
  if (wire > MAX_WIRE_BYTES) return { body, fits: false, why: `the files come to ${bytes(wire)} even gzipped` }
  return { body: envelope as unknown as T, fits: true }
}

/**
 * The body as it will travel in one request: as it is when small, else gzipped in the envelope
 * the server expands. Throws a CliError naming the biggest files when it cannot fit.
 */
export function fitOneRequest<T extends object>(body: T, files: SizedFile[], advice: Advice): T {
  const measured = measureOneRequest(body)
  if (!measured.fits) throw tooLarge(measured.why!, files, advice)
  return measured.body
}
