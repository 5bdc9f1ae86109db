import type { AnalyticsDoc, PartKind, PartStats, RecentView, RecipientLink, TimeStats, ViewSummary } from './analytics.js'
import { type LinkStatus, linkStatus } from './recipient-links.js'

/**
 * The analytics document as the API shows it: the spec's five figures first, unchanged, then
 * folio's additions. Lists carry the short form (`analyticsSummary`); GET /api/files/{id} the whole.
 */

export interface PartFigure {
  slide?: number
  section?: number
  title?: string
  views: number
  totalTimeSeconds: number
}

export interface LinkFigures {
  id: string
  name: string
  status: LinkStatus
  createdAt: string
  expiresAt?: string
  maxViews?: number
  revokedAt?: string
  lastViewAt?: string
  views: number
  totalTimeSeconds: number
  comments: number
  slides?: PartFigure[]
  sections?: PartFigure[]
}

export interface RecentViewFigure {
  at: string
  type: 'started' | 'ended'
  link?: string
  linkName?: string
  device: 'mobile' | 'desktop'
  /** For the end of a view: "Dana at Acme read 9 of 12 slides in 4 min, longest on slide 7". */
  text: string
  summary?: ViewSummary
}

export interface AnalyticsSummary {
  views: number
  totalTimeSeconds: number
  avgTimeSeconds: number
  mobileViews: number
  desktopViews: number
  botViews: number
  returningViews: number
  newViews: number
  completedViews: number
  /** Views that reached the last slide or section, of all views (0 to 1). */
  completionRate: number
  /** The latest start or end of a view: what `folio status` and the dashboard nudge with. */
  lastView?: RecentViewFigure
  /** Views per day: the last 14 in a list, the last 90 in GET /api/files/{id}. */
  viewsByDay: Array<{ date: string; views: number }>
  /** The three slides or sections viewers spent most time on (lists; GET has them all). */
  topParts?: PartFigure[]
}

export interface AnalyticsFigures extends Omit<AnalyticsSummary, 'topParts'> {
  slides?: PartFigure[]
  sections?: PartFigure[]
  dropOff?: Array<{ slide?: number; section?: number; views: number }>
  viewsByDay: Array<{ date: string; views: number }>
  versions: Array<{ versionId: string; views: number; totalTimeSeconds: number; slides?: PartFigure[]; sections?: PartFigure[] }>
  links: LinkFigures[]
  recentViews: RecentViewFigure[]
}

const singular = (kind: PartKind) => (kind === 'slides' ? 'slide' : 'section')

function partFigures(kind: PartKind, parts: Record<string, PartStats> | undefined): PartFigure[] {
  return Object.entries(parts ?? {})
    .map(
      ([n, p]): PartFigure => ({
        [singular(kind)]: Number(n),
        ...(p.title ? { title: p.title } : {}),
        views: p.views,
        totalTimeSeconds: Math.round(p.seconds),
      }),
    )
    .sort((a, b) => (a.slide ?? a.section ?? 0) - (b.slide ?? b.section ?? 0))
}

function withParts(kind: PartKind | undefined, stats: TimeStats) {
  return kind && stats.parts ? { [kind]: partFigures(kind, stats.parts) } : {}
}

export function analyticsSummary(doc: AnalyticsDoc): AnalyticsSummary {
  const returningViews = doc.returningViews ?? 0
  const completedViews = Math.min(doc.completedViews ?? 0, doc.views)
  return {
    views: doc.views,
    totalTimeSeconds: doc.totalTimeSeconds,
    avgTimeSeconds: doc.avgTimeSeconds,
    mobileViews: doc.mobileViews,
    desktopViews: doc.desktopViews,
    botViews: doc.botViews ?? 0,
    returningViews,
    newViews: Math.max(0, doc.views - returningViews),
    completedViews,
    completionRate: doc.views > 0 ? Math.round((completedViews / doc.views) * 1000) / 1000 : 0,
    ...(doc.recent?.length ? { lastView: recentFigure(doc, doc.recent[doc.recent.length - 1]!) } : {}),
    viewsByDay: viewsByDay(doc, 14),
  }
}

/** A list's analytics: the summary with the last 14 days and the three parts that held viewers longest. */
export function analyticsListItem(doc: AnalyticsDoc): AnalyticsSummary {
  const summary = analyticsSummary(doc)
  if (!doc.kind || !doc.parts) return summary
  const top = partFigures(doc.kind, doc.parts)
    .filter((p) => p.totalTimeSeconds > 0)
    .sort((a, b) => b.totalTimeSeconds - a.totalTimeSeconds)
    .slice(0, 3)
  return top.length ? { ...summary, topParts: top } : summary
}

function viewsByDay(doc: AnalyticsDoc, days: number) {
  return Object.entries(doc.daily ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .slice(-days)
    .map(([date, views]) => ({ date, views }))
}

function recentFigure(doc: AnalyticsDoc, entry: RecentView): RecentViewFigure {
  const linkName = entry.link ? doc.links?.[entry.link]?.name : undefined
  return {
    at: entry.at,
    type: entry.type,
    ...(entry.link ? { link: entry.link } : {}),
    ...(linkName ? { linkName } : {}),
    device: entry.mobile ? 'mobile' : 'desktop',
    text: viewText(entry, linkName),
    ...(entry.summary ? { summary: entry.summary } : {}),
  }
}

const minutes = (seconds: number) => (seconds < 60 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`)

/** The sentence a nudge carries. */
export function viewText(entry: RecentView, linkName: string | undefined): string {
  const who = linkName ?? `A viewer${entry.mobile ? ' on a phone' : ''}`
  if (entry.type === 'started') return `${who} opened it`
  const s = entry.summary
  if (!s) return `${who} left`
  const kind = entry.kind ?? 'slides'
  if (!s.seen || !entry.kind) return `${who} read it for ${minutes(s.seconds)}`
  const of = s.total ? ` of ${s.total}` : ''
  const longest = s.longest ? `, longest on ${singular(kind)} ${s.longest}` : ''
  return `${who} read ${s.seen}${of} ${s.seen === 1 && !s.total ? singular(kind) : kind} in ${minutes(s.seconds)}${longest}`
}

export function linkFigures(id: string, link: RecipientLink, kind: PartKind | undefined, now: Date): LinkFigures {
  const { name, createdAt, expiresAt, maxViews, revokedAt, lastViewAt } = link
  return {
    id,
    name,
    status: linkStatus(link, now),
    createdAt,
    ...(expiresAt ? { expiresAt } : {}),
    ...(maxViews !== undefined ? { maxViews } : {}),
    ...(revokedAt ? { revokedAt } : {}),
    ...(lastViewAt ? { lastViewAt } : {}),
    views: link.views,
    totalTimeSeconds: Math.round(link.seconds),
    comments: link.comments ?? 0,
    ...withParts(kind, link),
  }
}

export function analyticsFigures(doc: AnalyticsDoc, now = new Date()): AnalyticsFigures {
  const kind = doc.kind
  const figures: AnalyticsFigures = {
    ...analyticsSummary(doc),
    viewsByDay: viewsByDay(doc, 90),
    versions: Object.entries(doc.versions ?? {})
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([n, stats]) => ({ versionId: `v${n}`, views: stats.views, totalTimeSeconds: Math.round(stats.seconds), ...withParts(kind, stats) })),
    links: Object.entries(doc.links ?? {}).map(([id, link]) => linkFigures(id, link, kind, now)),
    recentViews: (doc.recent ?? []).map((entry) => recentFigure(doc, entry)),
  }
  if (kind) {
    figures[kind] = partFigures(kind, doc.parts)
    figures.dropOff = Object.entries(doc.dropOff ?? {})
      .filter(([, views]) => views > 0)
      .map(([n, views]): { slide?: number; section?: number; views: number } => ({ [singular(kind)]: Number(n), views }))
      .sort((a, b) => (a.slide ?? a.section ?? 0) - (b.slide ?? b.section ?? 0))
  }
  return figures
}
