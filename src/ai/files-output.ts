import { checkFilePath } from '../domain/file-paths.js'
import { PROJECT_MODES, type ProjectMode } from '../domain/model.js'

/** What a model answered, taken apart: the explanation for the user and the files it wrote. */
export interface ModelOutput {
  explanation: string
  files: Record<string, string>
  /** ai-create: the title, description and mode the model chose. */
  meta?: { title?: string; description?: string; projectMode?: ProjectMode }
}

/** Why a model's answer cannot become files (the route answers AI failed to generate HTML content.). */
export class UnusableOutputError extends Error {}

const FILE_BLOCK = /<folio-file\s+path\s*=\s*"([^"]+)"\s*>\r?\n?([\s\S]*?)<\/folio-file>/g
const META_BLOCK = /<folio-meta>([\s\S]*?)<\/folio-meta>/
/** A whole document without the blocks asked for: small models often answer so. */
const BARE_DOCUMENT = /(?:```html?\s*\n)?(<!DOCTYPE html[\s\S]*?<\/html>)\s*(?:```)?/i

/** Reads the answer format of prompt.ts (folio-file blocks); a bare document counts as `fallbackPath`. */
export function parseModelOutput(text: string, fallbackPath = 'index.html'): ModelOutput {
  const files: Record<string, string> = {}
  let rest = text.replace(FILE_BLOCK, (_, path: string, content: string) => {
    const checked = checkFilePath(path.trim())
    if (!checked.ok) throw new UnusableOutputError(`The model wrote a file at ${JSON.stringify(path.slice(0, 80))}, which ${checked.reason}.`)
    files[checked.path] = stripFence(content)
    return ''
  })
  if (!Object.keys(files).length) {
    const bare = BARE_DOCUMENT.exec(rest)
    if (bare) {
      files[fallbackPath] = `${bare[1]!.trim()}\n`
      rest = rest.replace(bare[0], '')
    }
  }
  let meta: ModelOutput['meta']
  const metaMatch = META_BLOCK.exec(rest)
  if (metaMatch) {
    meta = parseMeta(metaMatch[1]!)
    rest = rest.replace(metaMatch[0], '')
  }
  return { explanation: rest.replace(/\n{3,}/g, '\n\n').trim(), files, meta }
}

/** A file block the model wrapped in a markdown fence as well. */
function stripFence(content: string): string {
  const fenced = /^\s*```[\w-]*\s*\n([\s\S]*?)\n\s*```\s*$/.exec(content)
  const body = fenced ? fenced[1]! : content
  return `${body.replace(/\s+$/, '')}\n`
}

function parseMeta(json: string): ModelOutput['meta'] {
  try {
    const o = JSON.parse(json) as Record<string, unknown>
    const str = (v: unknown, max: number) => (typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : undefined)
    const mode = str(o.projectMode, 20)
    return {
      title: str(o.title, 500),
      description: str(o.description, 10_000),
      projectMode: PROJECT_MODES.includes(mode as ProjectMode) ? (mode as ProjectMode) : undefined,
    }
  } catch {
    return undefined
  }
}

/** An HTML file that is a whole document: a cut-off answer (no </html>) is not one. */
export function isHtmlDocument(content: string): boolean {
  return /<html[\s>]/i.test(content) && /<\/html>\s*$/i.test(content.trim()) && /<body[\s>]/i.test(content)
}

const isHtmlPath = (path: string) => /\.html?$/i.test(path)

/**
 * The proposal: the base version's files with the model's files over them. Refused when the model
 * wrote no file, or an HTML file that is not a whole document. `changed` lists what differs.
 */
export function mergeProposal(base: Record<string, string>, output: ModelOutput): { files: Record<string, string>; changed: string[] } {
  const written = Object.entries(output.files)
  if (!written.length) throw new UnusableOutputError('The model answered without any file.')
  for (const [path, content] of written) {
    if (isHtmlPath(path) && !isHtmlDocument(content))
      throw new UnusableOutputError(`The model’s ${path} is not a complete HTML document (it may have been cut off).`)
  }
  const files = { ...base }
  const changed: string[] = []
  for (const [path, content] of written) {
    if (files[path] !== content) changed.push(path)
    files[path] = content
  }
  return { files, changed }
}
