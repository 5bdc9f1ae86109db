import type { Analytics } from './model.js'

/** A forged beacon may not claim more than this many seconds at once (viewers beacon every 30 s). */
export const MAX_BEACON_SECONDS = 600
/** Slides or sections a folio's analytics keep (a deck longer than this keeps its first 500). */
export const MAX_PARTS = 500
/** Parts one beacon may report (a viewer flipping through a deck between two beacons). */
const MAX_PARTS_PER_BEACON = 64
const MAX_TITLE = 120
/** Days of views kept for the views-over-time chart. */
export const DAYS_KEPT = 90
/** Versions whose own figures are kept (the newest ones). */
export const VERSIONS_KEPT = 10
/** Starts and ends of views kept for nudges and the "recent views" list. */
export const RECENT_KEPT = 20

export type PartKind = 'slides' | 'sections'

/** Time on one slide (decks) or section (documents, by heading); parts are counted from 1. */
export interface PartBeacon {
  part: number
  seconds: number
  title?: string
  /** The first time this view reached the part: it counts one more view of it. */
  entered: boolean
}

/** How a view ended, as the viewer's page summed it up (for the author's nudge). */
export interface ViewSummary {
  seen: number
  total?: number
  seconds: number
  longest?: number
}

export interface Beacon {
  isInitial: boolean
  sessionSeconds: number
  mobile: boolean
  /** This browser had seen the folio before (a random id in its own storage; nothing identifies it here). */
  returning?: boolean
  /** The recipient link the view came through. */
  link?: string
  /** The version on screen (its number). */
  version?: number
  kind?: PartKind
  /** How many slides or sections the page has. */
  total?: number
  parts?: PartBeacon[]
  /** The furthest part this view has reached, and what it had reported before (drop-off). */
  furthest?: number
  previousFurthest?: number
  /** This view reached the last part (sent once per view). */
  completed?: boolean
  /** The view ended (the page was closed or left): its summary. */
  end?: ViewSummary
}

/** Stored per part, per version and per link. */
export interface PartStats {
  views: number
  seconds: number
  title?: string
}

export interface TimeStats {
  views: number
  seconds: number
  parts?: Record<string, PartStats>
}

/** A named link for one recipient, with its own figures (recipient-links.ts). */
export interface RecipientLink extends TimeStats {
  name: string
  createdAt: string
  expiresAt?: string
  maxViews?: number
  revokedAt?: string
  lastViewAt?: string
  /** Comments made through it. */
  comments?: number
}

export interface RecentView {
  at: string
  type: 'started' | 'ended'
  link?: string
  mobile?: boolean
  summary?: ViewSummary
  kind?: PartKind
}

/**
 * The analytics document as stored: the spec's five figures, then folio's additions. Every
 * addition is optional, so a document written before them reads as it was.
 */
export interface AnalyticsDoc extends Analytics {
  botViews?: number
  returningViews?: number
  completedViews?: number
  kind?: PartKind
  total?: number
  parts?: Record<string, PartStats>
  /** Views whose furthest part was this one. */
  dropOff?: Record<string, number>
  /** Views per UTC day, YYYY-MM-DD. */
  daily?: Record<string, number>
  versions?: Record<string, TimeStats>
  links?: Record<string, RecipientLink>
  recent?: RecentView[]
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null
const partNumber = (v: unknown) => (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_PARTS ? (v as number) : undefined)
const seconds = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(v, MAX_BEACON_SECONDS) : 0)
const title = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim().replace(/\s+/g, ' ').slice(0, MAX_TITLE) : undefined)

/** Reads whatever a beacon body holds; anything malformed counts as an empty beacon (spec). */
export function parseBeacon(body: unknown): Beacon {
  const b = isObject(body) ? body : {}
  const beacon: Beacon = {
    isInitial: b.isInitial === true,
    sessionSeconds: seconds(b.sessionSeconds),
    mobile: b.device === 'mobile',
    returning: b.returning === true,
    completed: b.completed === true,
  }
  if (typeof b.link === 'string' && /^[A-Za-z0-9_-]{8,40}$/.test(b.link)) beacon.link = b.link
  if (Number.isInteger(b.version) && (b.version as number) >= 1) beacon.version = b.version as number
  if (b.kind === 'slides' || b.kind === 'sections') {
    beacon.kind = b.kind
    beacon.total = partNumber(b.total)
    beacon.furthest = partNumber(b.furthest)
    beacon.previousFurthest = partNumber(b.previousFurthest)
    if (Array.isArray(b.parts)) {
      beacon.parts = []
      for (const p of b.parts.slice(0, MAX_PARTS_PER_BEACON)) {
        if (!isObject(p)) continue
        const part = partNumber(p.n)
        if (part === undefined) continue
        beacon.parts.push({ part, seconds: seconds(p.s), title: title(p.t), entered: p.v === true })
      }
    }
  }
  if (isObject(b.end)) {
    const e = b.end
    const seen = Number.isInteger(e.seen) && (e.seen as number) >= 0 ? Math.min(e.seen as number, MAX_PARTS) : 0
    beacon.end = { seen, total: partNumber(e.total), seconds: Math.min(seconds(e.seconds), 24 * 3600), longest: partNumber(e.longest) }
  }
  return beacon
}

/** What a beacon may keep when its viewer asked not to be tracked (Global Privacy Control, Do Not Track): the view, on the link it came through. */
export function viewOnly(beacon: Beacon): Beacon {
  return { isInitial: beacon.isInitial, sessionSeconds: 0, mobile: beacon.mobile, ...(beacon.link ? { link: beacon.link } : {}) }
}

const round3 = (n: number) => Math.round(n * 1000) / 1000

function addParts(into: Record<string, PartStats> | undefined, parts: PartBeacon[] | undefined): Record<string, PartStats> | undefined {
  if (!parts?.length) return into
  const out = { ...into }
  for (const p of parts) {
    const key = String(p.part)
    const was = out[key]
    // A deck's 501st slide is not kept; one already counted still is.
    if (!was && Object.keys(out).length >= MAX_PARTS) continue
    out[key] = {
      views: (was?.views ?? 0) + (p.entered ? 1 : 0),
      seconds: round3((was?.seconds ?? 0) + p.seconds),
      ...((p.title ?? was?.title) ? { title: p.title ?? was?.title } : {}),
    }
  }
  return out
}

function addTime(into: TimeStats | undefined, beacon: Beacon, kind: PartKind | undefined): TimeStats {
  return {
    ...into,
    views: (into?.views ?? 0) + (beacon.isInitial ? 1 : 0),
    seconds: round3((into?.seconds ?? 0) + beacon.sessionSeconds),
    parts: kind ? addParts(into?.parts, beacon.parts) : into?.parts,
  }
}

/** Keeps the `keep` largest keys (dates, version numbers) of a record. */
function newest<T>(record: Record<string, T>, keep: number, numeric = false): Record<string, T> {
  const keys = Object.keys(record)
  if (keys.length <= keep) return record
  const sorted = numeric ? keys.sort((a, b) => Number(a) - Number(b)) : keys.sort()
  return Object.fromEntries(sorted.slice(-keep).map((k) => [k, record[k]!]))
}

/**
 * The document after one beacon. `now` dates the day's views and the nudges. `link` is the
 * beacon's link when it is one that still counts (recipient-links.ts decides); the spec's own
 * five figures are counted as they always were.
 */
export function applyBeacon(current: AnalyticsDoc, beacon: Beacon, now = new Date(), link?: string): AnalyticsDoc {
  const views = current.views + (beacon.isInitial ? 1 : 0)
  const totalTimeSeconds = round3(current.totalTimeSeconds + beacon.sessionSeconds)
  const next: AnalyticsDoc = {
    ...current,
    views,
    totalTimeSeconds,
    // Spec: recalculated on each beacon.
    avgTimeSeconds: views > 0 ? Math.round((totalTimeSeconds / views) * 100) / 100 : 0,
    mobileViews: current.mobileViews + (beacon.isInitial && beacon.mobile ? 1 : 0),
    desktopViews: current.desktopViews + (beacon.isInitial && !beacon.mobile ? 1 : 0),
  }
  // A document's kind follows what its viewers see now: a folio that became a deck starts over.
  const kind = beacon.kind
  if (kind && kind !== current.kind) {
    next.kind = kind
    next.parts = undefined
    next.dropOff = undefined
  }
  if (kind && beacon.total) next.total = beacon.total
  if (kind) next.parts = addParts(next.parts, beacon.parts)
  if (kind && beacon.furthest !== undefined && beacon.furthest !== beacon.previousFurthest) {
    const dropOff = { ...next.dropOff }
    if (beacon.previousFurthest !== undefined && (dropOff[beacon.previousFurthest] ?? 0) > 0) dropOff[beacon.previousFurthest]! -= 1
    dropOff[beacon.furthest] = (dropOff[beacon.furthest] ?? 0) + 1
    next.dropOff = dropOff
  }
  if (beacon.completed) next.completedViews = (current.completedViews ?? 0) + 1
  if (beacon.isInitial) {
    if (beacon.returning) next.returningViews = (current.returningViews ?? 0) + 1
    const day = now.toISOString().slice(0, 10)
    next.daily = newest({ ...current.daily, [day]: (current.daily?.[day] ?? 0) + 1 }, DAYS_KEPT)
  }
  if (beacon.version !== undefined && (beacon.isInitial || beacon.sessionSeconds > 0 || beacon.parts?.length)) {
    const key = String(beacon.version)
    next.versions = newest({ ...current.versions, [key]: addTime(current.versions?.[key], beacon, kind) }, VERSIONS_KEPT, true)
  }
  const linked = link ? current.links?.[link] : undefined
  if (link && linked) {
    next.links = {
      ...current.links,
      [link]: { ...linked, ...addTime(linked, beacon, kind), ...(beacon.isInitial ? { lastViewAt: now.toISOString() } : {}) },
    }
  }
  if (beacon.isInitial || beacon.end) {
    const entry: RecentView = { at: now.toISOString(), type: beacon.isInitial ? 'started' : 'ended' }
    if (linked) entry.link = link
    if (beacon.mobile) entry.mobile = true
    if (beacon.end) {
      entry.summary = beacon.end
      if (current.kind ?? kind) entry.kind = kind ?? current.kind
    }
    next.recent = [...(current.recent ?? []), entry].slice(-RECENT_KEPT)
  }
  return next
}

/** A preview fetcher or crawler asked for the share page: counted apart from views. */
export function applyBotView(current: AnalyticsDoc): AnalyticsDoc {
  return { ...current, botViews: (current.botViews ?? 0) + 1 }
}
