import type { getFolio } from './files.js'
import type { ResponseOf } from './contract.js'
import { feedbackSince, sinceTime } from '../domain/feedback-since.js'
import { tunnelPasswordLine } from '../domain/tunnel-providers.js'

/* The parts of the MCP tools' answers (mcp-tools.ts) that read a folio: summaries, lines, feedback. */

export interface FolioLike {
  id: string
  title: string
  status: string
  isPrivate: boolean
  versions: Array<{ versionId: string }>
}
export const latestOf = (folio: FolioLike) => folio.versions.at(-1)?.versionId ?? 'none'
type FolioAnswer = ResponseOf<typeof getFolio>

/** What create/update answers say about the folio: not its files, comments or settings again. */
export function summaryOf(folio: Omit<FolioLike, 'versions'> & { versions: Array<{ versionId: string; fileList?: string[] }> }) {
  const latest = folio.versions.at(-1)
  return {
    id: folio.id,
    title: folio.title,
    status: folio.status,
    isPrivate: folio.isPrivate,
    latestVersionId: latestOf(folio),
    versionCount: folio.versions.length,
    fileList: latest?.fileList ?? [],
  }
}

/** read_file: one file of the latest version, or some of its lines. */
export function fileLines(folio: FolioAnswer, args: Record<string, unknown>) {
  const path = String(args.path)
  const content = folio.versions.at(-1)?.files?.[path]
  if (content === undefined) return { path, content: undefined }
  const lines = content.split('\n')
  const fromLine = Math.min(Number(args.fromLine ?? 1), lines.length)
  const toLine = Math.min(Math.max(Number(args.toLine ?? lines.length), fromLine), lines.length)
  return { path, versionId: latestOf(folio), fromLine, toLine, lineCount: lines.length, content: lines.slice(fromLine - 1, toLine).join('\n') }
}

export function feedbackOf(folio: FolioAnswer, since: string) {
  const time = sinceTime(since, folio.versions)
  if (time === undefined)
    return { error: `since: ${since} is neither a version of this folio (${folio.versions.map((v) => v.versionId).join(', ')}) nor an ISO time.` } as const
  return { error: undefined, ...feedbackSince(folio.comments, time, since), reactions: folio.reactions, views: folio.analytics.views }
}

export function commentsOf(folio: FolioAnswer, args: Record<string, unknown>) {
  return folio.comments.filter((c) => !c.deletedAt && (args.versionId === undefined || c.versionId === args.versionId)).map(({ elementHtml: _html, ...c }) => c)
}

/** What to tell viewers with a tunnel link: the reminder page's password, what they see first. */
export function viewerLines(tunnel: { viewerPassword?: string | null; viewerNotice?: string | null }): string[] {
  return [tunnelPasswordLine(tunnel.viewerPassword), tunnel.viewerNotice ?? ''].filter(Boolean)
}
