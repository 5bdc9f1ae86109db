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
  const viewsSince = (folio.analytics.recentViews ?? []).filter((v) => v.type === 'ended' && Date.parse(v.at) >= time).map((v) => v.text)
  return {
    error: undefined,
    ...feedbackSince(folio.comments, time, since),
    reactions: folio.reactions,
    views: folio.analytics.views,
    viewsSince,
    analytics: folio.analytics,
  }
}

/** get_feedback's analytics: the figures an author acts on, as lines. */
export function analyticsLines(a: FolioAnswer['analytics']): string {
  const parts = a.slides ?? a.sections
  const unit = a.slides ? 'slide' : 'section'
  const top = [...(parts ?? [])].sort((x, y) => y.totalTimeSeconds - x.totalTimeSeconds).slice(0, 5)
  const stops = [...(a.dropOff ?? [])].sort((x, y) => y.views - x.views).slice(0, 3)
  return [
    `${a.views} views (${a.returningViews ?? 0} returning), ${a.botViews ?? 0} bot or preview fetches not counted; ${a.avgTimeSeconds} s on average; ${Math.round((a.completionRate ?? 0) * 100)}% reached the end.`,
    top.length ? `Most time: ${top.map((p) => `${unit} ${p.slide ?? p.section}${p.title ? ` "${p.title}"` : ''} ${p.totalTimeSeconds} s`).join(', ')}.` : '',
    stops.length ? `Views stopped at: ${stops.map((d) => `${unit} ${d.slide ?? d.section} (${d.views})`).join(', ')}.` : '',
    ...(a.links ?? []).map((l) => `Link "${l.name}" (${l.status}): ${l.views} views, ${l.totalTimeSeconds} s.`),
    ...(a.recentViews ?? [])
      .filter((v) => v.type === 'ended')
      .slice(-5)
      .map((v) => `${v.at}: ${v.text}`),
  ]
    .filter(Boolean)
    .join('\n')
}

export function commentsOf(folio: FolioAnswer, args: Record<string, unknown>) {
  return folio.comments.filter((c) => !c.deletedAt && (args.versionId === undefined || c.versionId === args.versionId)).map(({ elementHtml: _html, ...c }) => c)
}

/** What to tell viewers with a tunnel link: the reminder page's password, what they see first. */
export function viewerLines(tunnel: { viewerPassword?: string | null; viewerNotice?: string | null }): string[] {
  return [tunnelPasswordLine(tunnel.viewerPassword), tunnel.viewerNotice ?? ''].filter(Boolean)
}
