import { REACTION_EMOJI } from '../domain/reactions.js'
import { averageTime, deviceSplit, reactionsLabel, sparkline, statusLabel } from './format.js'
import type { FolioRow } from './snapshot.js'

/**
 * Which columns of the folio table fit the terminal's width, and how wide each is. The title
 * comes first: columns leave, least useful first, until it has room for TITLE_ROOM characters;
 * the rest is as wide as its content. Pure, so it is tested alone.
 */

export type ColumnKey = 'cursor' | 'title' | 'id' | 'status' | 'version' | 'views' | 'trend' | 'average' | 'devices' | 'reactions'

export interface Column {
  key: ColumnKey
  header: string
  /** Cells, the one space after the text included. */
  width: number
  /** The reactions column in one number when the full one does not fit. */
  compact?: boolean
}

/** The title gets at least this many cells before a column is kept. */
export const TITLE_ROOM = 28
/** And at most this many: a longer title is cut with an ellipsis. */
const TITLE_MAX = 60
const TITLE_MIN = 8

/** The order columns leave in when the title needs room: the first one first. */
const LEAVE_ORDER = ['trend', 'devices', 'average', 'reactions-compact', 'id', 'version', 'reactions', 'views'] as const

/** Cells a string takes: the reaction emoji are two each, the rest of our text one per character. */
export function cellWidth(text: string): number {
  let width = 0
  for (const char of text.replace(/\uFE0F/g, '')) width += /\p{Extended_Pictographic}/u.test(char) ? 2 : 1
  return width
}

/** The reactions in one number: what fits where the emoji do not. */
export const reactionTotal = (reactions: Record<string, number>): string => String(REACTION_EMOJI.reduce((n, e) => n + (reactions[e] ?? 0), 0))

/** The text of a cell (the cursor is drawn by the table). */
export function cellText(column: Column, f: FolioRow): string {
  switch (column.key) {
    case 'cursor':
      return ''
    case 'title':
      return f.title.replace(/\s+/g, ' ')
    case 'id':
      return f.id
    case 'status':
      return statusLabel(f)
    case 'version':
      return f.latestVersionId
    case 'views':
      return String(f.analytics.views)
    case 'trend':
      return sparkline(f.analytics.viewsByDay ?? [])
    case 'average':
      return averageTime(f)
    case 'devices':
      return deviceSplit(f)
    case 'reactions':
      return column.compact ? reactionTotal(f.reactions) : reactionsLabel(f.reactions)
  }
}

const HEADERS: Record<ColumnKey, string> = {
  cursor: '',
  title: 'TITLE',
  id: 'ID',
  status: 'STATUS',
  version: 'VER',
  views: 'VIEWS',
  trend: '7 DAYS',
  average: 'AVG',
  devices: 'MOB/DESK',
  reactions: 'REACTIONS',
}

/** As wide as the widest of header and cells, plus the space after it. */
function fitted(key: ColumnKey, folios: FolioRow[], compact = false): Column {
  const column: Column = { key, header: compact ? 'REACT' : HEADERS[key], width: 0, compact }
  column.width = Math.max(cellWidth(column.header), ...folios.map((f) => cellWidth(cellText(column, f)))) + 1
  return column
}

export function tableColumns(width: number, folios: FolioRow[]): Column[] {
  const keys: ColumnKey[] = ['id', 'status', 'version', 'views', 'trend', 'average', 'devices', 'reactions']
  let columns = keys.map((key) => fitted(key, folios))
  const room = () => width - 2 - columns.reduce((sum, c) => sum + c.width, 0)
  for (const step of LEAVE_ORDER) {
    if (room() >= TITLE_ROOM) break
    if (step === 'reactions-compact') columns = columns.map((c) => (c.key === 'reactions' ? fitted('reactions', folios, true) : c))
    else columns = columns.filter((c) => c.key !== step)
  }
  const longest = Math.max(cellWidth(HEADERS.title), ...folios.map((f) => cellWidth(cellText({ key: 'title', header: '', width: 0 }, f)))) + 1
  const title: Column = { key: 'title', header: HEADERS.title, width: Math.max(TITLE_MIN, Math.min(room(), TITLE_MAX, Math.max(longest, TITLE_ROOM))) }
  return [{ key: 'cursor', header: '', width: 2 }, title, ...columns]
}
