/**
 * Paths of files inside a folio ("index.html", "assets/logo.png"). They end up in URLs of the
 * raw route and in manifests, so anything that could climb out of the folio or confuse a
 * file system is refused rather than repaired.
 */

export const MAX_PATH_LENGTH = 512

/** Returns the canonical path, or a sentence saying what is wrong with it. */
export function checkFilePath(input: string): { ok: true; path: string } | { ok: false; reason: string } {
  let path = input
  while (path.startsWith('./')) path = path.slice(2)
  if (path.length === 0) return { ok: false, reason: 'is empty' }
  if (path.length > MAX_PATH_LENGTH) return { ok: false, reason: `is longer than ${MAX_PATH_LENGTH} characters` }
  if (path.includes('\0')) return { ok: false, reason: 'contains a NUL byte' }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return { ok: false, reason: 'contains a control character' }
  if (path.includes('\\')) return { ok: false, reason: 'contains a backslash; use / between folders' }
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return { ok: false, reason: 'is absolute; give a path relative to the folio' }
  const segments = path.split('/')
  if (segments.some((s) => s === '..')) return { ok: false, reason: 'contains ..' }
  if (segments.some((s) => s === '' || s === '.')) return { ok: false, reason: 'has an empty or . segment' }
  return { ok: true, path }
}

/** Files are listed with index.html first, then folders after their parents, alphabetically. */
export function compareFilePaths(a: string, b: string): number {
  if (a === b) return 0
  if (a === 'index.html') return -1
  if (b === 'index.html') return 1
  return a < b ? -1 : 1
}
