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

/**
 * Text broken at spaces into lines of at most `width` characters, the later ones indented, so a
 * long error keeps its cause on screen (an error's cause is at its end, where a cut line loses
 * it). A word longer than a line is cut where the line ends; past maxLines, the last line ends
 * with an ellipsis.
 */
export function wrapText(text: string, width: number, { maxLines = 3, indent = '' } = {}): string[] {
  const lines: string[] = []
  const room = () => Math.max(1, width - (lines.length ? indent.length : 0))
  let line = ''
  for (let word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    while (word) {
      const joined = line ? `${line} ${word}` : word
      if (joined.length <= room()) {
        line = joined
        word = ''
      } else if (line) {
        lines.push(line)
        line = ''
      } else {
        const fits = room()
        lines.push(word.slice(0, fits))
        word = word.slice(fits)
      }
    }
  }
  if (line || !lines.length) lines.push(line)
  const shown = lines.slice(0, maxLines).map((l, i) => (i ? `${indent}${l}` : l))
  if (lines.length > maxLines) {
    const last = shown[maxLines - 1]!
    shown[maxLines - 1] = `${last.length >= width ? last.slice(0, width - 1) : last}…`
  }
  return shown
}

const BARS = '▁▂▃▄▅▆▇█'

/** Views of the last `days` days (UTC) as one bar each, today last: "▁▁▃▁▇▂▁". */
export function sparkline(byDay: Array<{ date: string; views: number }>, days = 7, today = new Date()): string {
  const views = new Map(byDay.map((d) => [d.date, d.views]))
  const counts = Array.from({ length: days }, (_, i) => views.get(new Date(today.getTime() - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10)) ?? 0)
  const most = Math.max(...counts)
  if (most === 0) return '·'.repeat(days)
  return counts.map((n) => (n === 0 ? '·' : BARS[Math.min(BARS.length - 1, Math.ceil((n / most) * BARS.length) - 1)])).join('')
}

/** The slides or sections that held viewers longest: "slide 7 “Pricing” 2 min, slide 3 40 s". */
export function topPartsLine(parts: Array<{ slide?: number; section?: number; title?: string; totalTimeSeconds: number }> | undefined): string {
  if (!parts?.length) return ''
  return parts
    .map(
      (p) =>
        `${p.slide !== undefined ? 'slide' : 'section'} ${p.slide ?? p.section}${p.title ? ` “${oneLine(p.title, 24)}”` : ''} ${duration(p.totalTimeSeconds)}`,
    )
    .join(', ')
}
