import { REACTION_EMOJI } from '../domain/reactions.js'
import { oneLine } from './format.js'
import type { FolioRow, StatusSnapshot } from './snapshot.js'

/**
 * Recent activity: what changed between two snapshots, as lines for people (new views,
 * reactions, comments, resolutions, versions, publishing). Every change reaches the view as a
 * new snapshot (a live event reloads it at once, the poll finds the rest), so comparing
 * snapshots is the one place that decides what is news. Pure, so it is tested alone.
 */

export interface ActivityEntry {
  /** When the change was seen (ISO). */
  at: string
  folioId: string
  title: string
  text: string
}

/** The newest entries kept; the panel shows what fits. */
export const ACTIVITY_KEPT = 50

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

function changesOf(before: FolioRow, after: FolioRow): string[] {
  const out: string[] = []
  if (after.latestVersionId !== before.latestVersionId) out.push(`new version ${after.latestVersionId}`)
  if (after.status !== before.status) out.push(after.status === 'published' ? 'published' : 'back to draft')
  if (after.isPrivate !== before.isPrivate) out.push(after.isPrivate ? 'made private' : 'made public')
  const views = after.analytics.views - before.analytics.views
  const seen = after.analytics.lastView
  // A view starting or ending says who and how far ("Dana at Acme read 9 of 12 slides in 4 min").
  const said = seen && seen.at !== before.analytics.lastView?.at ? seen.text : ''
  if (views > 1 || (views === 1 && !said.endsWith('opened it'))) out.push(plural(views, 'new view'))
  if (said) out.push(said)
  const reactions = REACTION_EMOJI.map((e) => [e, (after.reactions[e] ?? 0) - (before.reactions[e] ?? 0)] as const).filter(([, n]) => n > 0)
  if (reactions.length > 0) out.push(reactions.map(([e, n]) => `${e} +${n}`).join(' '))
  const known = new Map((before.comments?.latest ?? []).map((c) => [c.id, c]))
  const newestBefore = before.comments?.latest[0]?.createdAt ?? ''
  // Oldest first, so the lines read in the order things happened.
  for (const c of [...(after.comments?.latest ?? [])].reverse()) {
    const was = known.get(c.id)
    const who = oneLine(c.author || 'Guest', 20)
    if (!was && c.createdAt >= newestBefore) out.push(`${who}${c.parentId ? ' replied' : ''}: ${oneLine(c.text, 200)}`)
    else if (was && was.resolved !== c.resolved) out.push(`${c.resolved ? 'resolved' : 'reopened'}: ${who}: ${oneLine(c.text, 200)}`)
  }
  return out
}

/**
 * The entries for going from `before` to `after`, oldest first. Nothing when either is not a
 * full list (the server away, the key refused): a folio list coming back is not news.
 */
export function activityBetween(before: StatusSnapshot | null, after: StatusSnapshot, at: Date = new Date()): ActivityEntry[] {
  if (!before || !listed(before) || !listed(after)) return []
  const previous = new Map(before.folios.map((f) => [f.id, f]))
  const entry = (f: FolioRow, text: string): ActivityEntry => ({ at: at.toISOString(), folioId: f.id, title: f.title, text })
  const out: ActivityEntry[] = []
  for (const f of after.folios) {
    const was = previous.get(f.id)
    if (!was) out.push(entry(f, 'new folio'))
    else for (const text of changesOf(was, f)) out.push(entry(f, text))
    previous.delete(f.id)
  }
  for (const gone of previous.values()) out.push(entry(gone, 'deleted'))
  return out
}

const listed = (s: StatusSnapshot) => s.server.reachable && !s.foliosError
