import { REACTION_EMOJI } from '../domain/reactions.js'
import { duration } from '../terminal/format.js'
import type { FolioRow } from './snapshot.js'

/** Small text pieces shared by the live view and the one-shot text snapshot. */

export const statusLabel = (f: Pick<FolioRow, 'status' | 'isPrivate'>): string => (f.isPrivate ? `${f.status} (private)` : f.status)

/** 72 → "1m 12s". */
export const averageTime = (f: FolioRow): string => duration(f.analytics.avgTimeSeconds)

export const deviceSplit = (f: FolioRow): string => `${f.analytics.mobileViews}/${f.analytics.desktopViews}`

/** "👍 2  ❤️ 0  💡 1  🔥 0": every reaction, in the order viewers see them. */
export const reactionsLabel = (reactions: Record<string, number>): string => REACTION_EMOJI.map((e) => `${e} ${reactions[e] ?? 0}`).join('  ')

/** One line: newlines folded, long text cut with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat
}

export function clockTime(iso: string): string {
  const d = new Date(iso)
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':')
}
