import { createHash } from 'node:crypto'
import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import ignore from 'ignore'
import { mimeForPath, sniffImage } from '../../domain/image-sniff.js'

/** The rule files at the folder's root; the watcher reloads the rules when one changes. */
export const IGNORE_FILES = ['.gitignore', '.folioignore'] as const

/** Never published, whatever the ignore files say. */
const ALWAYS_IGNORED = ['.git/', 'node_modules/', '.folio/', '.DS_Store', 'Thumbs.db', '*.swp', '*~', ...IGNORE_FILES]

export type IgnoreTest = (relativePath: string, isDirectory?: boolean) => boolean

/** .gitignore and .folioignore at the folder's root, on top of the always-ignored list. */
export async function loadIgnore(root: string): Promise<IgnoreTest> {
  const rules = ignore().add(ALWAYS_IGNORED)
  for (const name of IGNORE_FILES) {
    const text = await readFile(join(root, name), 'utf8').catch(() => '')
    if (text) rules.add(text)
  }
  return (path, isDirectory = false) => path !== '' && rules.ignores(isDirectory ? `${path}/` : path)
}

export interface LocalFile {
  /** Relative to the synced folder, with / between folders: the path in the folio. */
  path: string
  absolute: string
  size: number
  sha256: string
}

export const toFolioPath = (root: string, absolute: string) => relative(root, absolute).split(sep).join('/')

export async function hashFile(root: string, absolute: string): Promise<LocalFile | undefined> {
  try {
    const bytes = await readFile(absolute)
    return { path: toFolioPath(root, absolute), absolute, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
  } catch {
    return undefined // gone (or became a folder) since it was listed
  }
}

/** Every file of the folder that is not ignored, with its content hash. */
export async function scanFolder(root: string, ignored: IgnoreTest): Promise<Map<string, LocalFile>> {
  const files = new Map<string, LocalFile>()
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const absolute = join(dir, entry.name)
      const path = toFolioPath(root, absolute)
      if (entry.isDirectory()) {
        if (!ignored(path, true)) await walk(absolute)
      } else if (entry.isFile() && !ignored(path)) {
        const file = await hashFile(root, absolute)
        if (file) files.set(path, file)
      }
    }
  }
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new Error(`${root} is not a folder`)
  await walk(root)
  return files
}

/** Text travels as a string; anything that is not NUL-free UTF-8 as base64. */
export function isText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

export async function readForSync(file: LocalFile): Promise<string | { base64: string }> {
  const bytes = await readFile(file.absolute)
  return isText(bytes) ? bytes.toString('utf8') : { base64: bytes.toString('base64') }
}

/** For the files API (create): binary as a data URL. */
export async function readAsFileContent(file: LocalFile): Promise<string> {
  const bytes = await readFile(file.absolute)
  if (isText(bytes)) return bytes.toString('utf8')
  const mime = sniffImage(bytes) ?? mimeForPath(file.path).split(';')[0]
  return `data:${mime};base64,${bytes.toString('base64')}`
}
