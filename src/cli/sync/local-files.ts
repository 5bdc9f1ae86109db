import { createHash } from 'node:crypto'
import { createReadStream, type Stats } from 'node:fs'
import { lstat, readdir, readFile, readlink, realpath, stat } from 'node:fs/promises'
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

/**
 * What is at a path of the folder now. `unreadable` is a file the folder has but that cannot be
 * read (permission denied, a link to nothing, a named pipe): never a reason to delete it from the
 * folio, which keeps its copy. `gone` is the only answer that means the folder lost the file.
 */
export type Reading =
  | { kind: 'file'; file: LocalFile }
  | { kind: 'gone' }
  /** A folder now stands there: its files are read on their own. */
  | { kind: 'folder' }
  | { kind: 'unreadable'; reason: string }

const ERROR_WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'a loop of symbolic links',
  EIO: 'an input/output error',
  EBUSY: 'busy (locked by another program)',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
}

/** "permission denied (EACCES)": the words a person needs, and the code to search for. */
export function ioReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  if (!code) return (error as Error).message ?? String(error)
  return `${ERROR_WORDS[code] ?? (error as Error).message.replace(/^\w+: /, '').replace(/, \w+ '.*'$/, '')} (${code})`
}

/** The path (or a folder on its way) does not exist. */
export const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')

function specialKind(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe'
  if (info.isSocket()) return 'a socket'
  if (info.isBlockDevice() || info.isCharacterDevice()) return 'a device'
  return 'not a regular file'
}

/** Small files are read at once; big ones streamed, so a video never has to fit in memory. */
const READ_AT_ONCE_BYTES = 8 * 1024 * 1024

async function hashBytes(absolute: string, size: number): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256')
  if (size <= READ_AT_ONCE_BYTES) {
    const bytes = await readFile(absolute)
    return { size: bytes.length, sha256: hash.update(bytes).digest('hex') }
  }
  let read = 0
  for await (const chunk of createReadStream(absolute)) {
    hash.update(chunk as Buffer)
    read += (chunk as Buffer).length
  }
  return { size: read, sha256: hash.digest('hex') }
}

/** Why a path that lstat finds (but stat does not) cannot be read: a link to nothing, or a loop. */
async function brokenLink(absolute: string): Promise<string | undefined> {
  const link = await lstat(absolute).catch(() => undefined)
  if (!link?.isSymbolicLink()) return undefined
  const target = await readlink(absolute).catch(() => '?')
  return `a symbolic link to ${target}, which does not exist`
}

/** Reads one path of the folder (stat first: a named pipe is never opened, it would block). */
export async function readLocalFile(root: string, absolute: string): Promise<Reading> {
  let info: Stats
  try {
    info = await stat(absolute)
  } catch (error) {
    if (!isMissing(error)) return { kind: 'unreadable', reason: ioReason(error) }
    const broken = await brokenLink(absolute)
    return broken ? { kind: 'unreadable', reason: broken } : { kind: 'gone' }
  }
  if (info.isDirectory()) return { kind: 'folder' }
  if (!info.isFile()) return { kind: 'unreadable', reason: `${specialKind(info)}, not a file that can be published` }
  try {
    const { size, sha256 } = await hashBytes(absolute, info.size)
    return { kind: 'file', file: { path: toFolioPath(root, absolute), absolute, size, sha256 } }
  } catch (error) {
    if (isMissing(error)) return { kind: 'gone' } // deleted between the stat and the read
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') return { kind: 'folder' }
    return { kind: 'unreadable', reason: ioReason(error) }
  }
}

export interface FolderScan {
  /** Every file of the folder that is not ignored and could be read, with its content hash. */
  files: Map<string, LocalFile>
  /** path → why it could not be read; an unreadable folder's path ends with /. */
  unreadable: Map<string, string>
}

/** The reason when `path` is unreadable, or lies in a folder that is. */
export function unreadableReason(unreadable: Map<string, string>, path: string): string | undefined {
  const own = unreadable.get(path)
  if (own) return own
  for (const [entry, reason] of unreadable) if (entry.endsWith('/') && path.startsWith(entry)) return `in ${entry}, which cannot be read: ${reason}`
  return undefined
}

/**
 * Every file of the folder that is not ignored, and every one that could not be read (reported,
 * never taken for deleted). Symbolic links are followed, as the watcher follows them; a folder
 * reached twice (a link loop) is walked once.
 */
export async function scanFolder(root: string, ignored: IgnoreTest): Promise<FolderScan> {
  const scan: FolderScan = { files: new Map(), unreadable: new Map() }
  const walked = new Set<string>()
  const walk = async (dir: string) => {
    const real = await realpath(dir)
    if (walked.has(real)) return
    walked.add(real)
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const absolute = join(dir, entry.name)
      const path = toFolioPath(root, absolute)
      const isFolder = entry.isDirectory() || (entry.isSymbolicLink() && Boolean((await stat(absolute).catch(() => undefined))?.isDirectory()))
      if (ignored(path, isFolder)) continue
      if (isFolder) {
        await walk(absolute).catch((error) => scan.unreadable.set(`${path}/`, ioReason(error)))
        continue
      }
      const reading = await readLocalFile(root, absolute)
      if (reading.kind === 'file') scan.files.set(path, reading.file)
      else if (reading.kind === 'unreadable') scan.unreadable.set(path, reading.reason)
    }
  }
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new Error(`${root} is not a folder`)
  await walk(root)
  return scan
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

/** A file's bytes as they are sent, with the hash of exactly those bytes (the file may have changed since the scan). */
export interface ReadForSync {
  content: string | { base64: string }
  size: number
  sha256: string
}

export async function readForSync(file: LocalFile): Promise<ReadForSync> {
  const bytes = await readFile(file.absolute)
  return {
    content: isText(bytes) ? bytes.toString('utf8') : { base64: bytes.toString('base64') },
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  }
}

/** For the files API (create): binary as a data URL. */
export async function readAsFileContent(file: LocalFile): Promise<string> {
  const bytes = await readFile(file.absolute)
  if (isText(bytes)) return bytes.toString('utf8')
  const mime = sniffImage(bytes) ?? mimeForPath(file.path).split(';')[0]
  return `data:${mime};base64,${bytes.toString('base64')}`
}
