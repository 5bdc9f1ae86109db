/**
 * How much fits: the terminal's rows are shared by fixed sections and the folio rows; the QR
 * code is dropped before the folio list shrinks below three rows. Pure, so it is tested alone.
 */

/** Lines around the folio rows when the server answers (header, gaps, "Folios", table head, scroll hint, comments, message, footer). */
export const FIXED_LINES = 15
/** Ink redraws in place only while the frame is shorter than the terminal: keep one line free. */
export const SPARE_LINES = 1

export interface LayoutInput {
  width: number
  height: number
  folioCount: number
  /** Lines of the tunnel text (state, last error, hint). */
  tunnelTextLines: number
  /** Lines of the QR code; 0 when there is none. */
  qrLines: number
}

export interface Layout {
  showQr: boolean
  /** Folio rows that fit (at least 1). */
  visibleRows: number
  titleWidth: number
}

/** Columns besides title and reactions: cursor 2, status 20, version 7, views 7, average 9, mobile/desktop 10. */
export const COLUMNS = { cursor: 2, status: 20, version: 7, views: 7, average: 9, devices: 10 } as const
const FIXED_WIDTH = Object.values(COLUMNS).reduce((a, b) => a + b, 0)
const REACTIONS_WIDTH = 26

export function computeLayout(input: LayoutInput): Layout {
  const room = input.height - SPARE_LINES - FIXED_LINES
  const wanted = Math.min(3, Math.max(1, input.folioCount))
  const withQr = room - Math.max(input.tunnelTextLines, input.qrLines)
  const showQr = input.qrLines > 0 && withQr >= wanted
  const rows = showQr ? withQr : room - input.tunnelTextLines
  const titleWidth = Math.max(10, Math.min(40, input.width - FIXED_WIDTH - REACTIONS_WIDTH))
  return { showQr, visibleRows: Math.max(1, rows), titleWidth }
}

/** The first row shown so that `selected` stays visible. */
export function windowStart(selected: number, visible: number, total: number): number {
  if (total <= visible) return 0
  return Math.min(Math.max(0, selected - visible + 1), total - visible)
}
