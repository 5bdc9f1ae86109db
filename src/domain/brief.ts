import type { Comment } from './model.js'
import { compareFilePaths } from './file-paths.js'

export interface BriefInput {
  title: string
  description: string
  projectMode: string
  latestVersionId: string
  files: Array<{ path: string; size: number }>
  comments: Comment[]
}

/**
 * Reading order of feedback: file by file (index.html first), then top to bottom and left to
 * right on the page; comments without a position come after, oldest first.
 */
export function comparePagePosition(a: Comment, b: Comment): number {
  const byFile = compareFilePaths(a.filename, b.filename)
  if (byFile !== 0) return byFile
  const aPlaced = typeof a.y === 'number'
  const bPlaced = typeof b.y === 'number'
  if (aPlaced !== bPlaced) return aPlaced ? -1 : 1
  if (aPlaced && bPlaced) {
    if (a.y !== b.y) return a.y! - b.y!
    if ((a.x ?? 0) !== (b.x ?? 0)) return (a.x ?? 0) - (b.x ?? 0)
  }
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0
}

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
/** Inline code that survives backticks inside the text. */
const code = (text: string) => {
  const fence = text.includes('`') ? '``' : '`'
  return `${fence}${fence === '``' ? ' ' : ''}${text}${fence === '``' ? ' ' : ''}${fence}`
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** A markdown design brief for whoever (or whatever AI) makes the next version. */
export function buildBrief(input: BriefInput): { brief: string; openComments: Comment[] } {
  const open = input.comments.filter((c) => !c.resolved).sort(comparePagePosition)
  const lines: string[] = [`# Design brief: ${oneLine(input.title, 200)}`, '']
  if (input.description.trim()) lines.push(input.description.trim(), '')
  lines.push(
    `- Project mode: ${input.projectMode}`,
    `- Latest version: ${input.latestVersionId}`,
    `- Files: ${input.files.length}`,
    `- Open feedback: ${open.length === 0 ? 'none' : `${open.length} comment${open.length === 1 ? '' : 's'}`}`,
    '',
  )

  lines.push('## Open feedback, in page order', '')
  if (open.length === 0) lines.push('No open comments: every pin is resolved.', '')
  let file: string | undefined
  open.forEach((c, i) => {
    if (c.filename !== file) {
      file = c.filename
      lines.push(`### ${code(file)}`, '')
    }
    const where = [
      typeof c.x === 'number' && typeof c.y === 'number' ? `at ${Math.round(c.x)}% across, ${Math.round(c.y)}% down` : undefined,
      c.selector ? `on ${code(oneLine(c.selector, 160))}` : undefined,
      `(${c.versionId})`,
    ]
      .filter(Boolean)
      .join(' ')
    lines.push(`${i + 1}. **${oneLine(c.author, 80)}** ${where}: ${oneLine(c.text, 2000)}`)
    if (c.elementHtml) lines.push(`   - Element: ${code(oneLine(c.elementHtml, 300))}`)
  })
  if (open.length) lines.push('')

  lines.push('## File structure', '')
  const files = [...input.files].sort((a, b) => compareFilePaths(a.path, b.path))
  for (const f of files) lines.push(`- ${code(f.path)} (${formatSize(f.size)})`)
  lines.push('')

  lines.push(
    '## Next version',
    '',
    open.length
      ? 'Address each open comment at the element it points to, keep what nobody commented on, and keep the file structure unless a comment asks otherwise.'
      : 'No feedback is waiting; improve the folio as its description asks, keeping the file structure.',
    '',
  )
  return { brief: lines.join('\n'), openComments: open }
}
