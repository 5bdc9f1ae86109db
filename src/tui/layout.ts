/**
 * How much fits: the terminal's rows are shared by fixed sections, the folio rows and the recent
 * activity. The folio list keeps up to three rows first, then the activity gets its lines, then
 * the list the rest; the QR code is dropped before either goes below that. Pure, so it is
 * tested alone.
 */

/** Comments shown of the selected folio (the panel scrolls through the rest). */
export const COMMENT_ROWS = 3
/**
 * Lines around the folio rows when the server answers: header, gap, gap, "Folios", table head,
 * scroll hint, gap, "Comments" (and COMMENT_ROWS), gap, "Recent activity", message, footer.
 */
export const FIXED_LINES = 12 + COMMENT_ROWS
/** The activity panel shows at most this many lines (the newest). */
export const ACTIVITY_MAX = 5

export interface LayoutInput {
  width: number
  height: number
  folioCount: number
  /** Lines of the tunnel panel without a QR code. */
  tunnelLines: number
  /** Its lines with the QR code (0 when there is none). */
  tunnelLinesWithQr: number
  /** Width of the QR code in cells. */
  qrWidth: number
}

export interface Layout {
  showQr: boolean
  /** Folio rows that fit (at least 1). */
  visibleRows: number
  /** Lines of recent activity (at least 1). */
  activityLines: number
}

/** The text beside the QR code keeps at least this many cells. */
const QR_TEXT_ROOM = 30

export function computeLayout(input: LayoutInput): Layout {
  const room = input.height - FIXED_LINES
  const wanted = Math.min(3, Math.max(1, input.folioCount)) + 1
  const fitsQr = input.tunnelLinesWithQr > 0 && input.width >= input.qrWidth + 2 + QR_TEXT_ROOM && room - input.tunnelLinesWithQr >= wanted
  const left = room - (fitsQr ? input.tunnelLinesWithQr : input.tunnelLines)
  // The list first keeps up to five rows, then the activity takes up to ACTIVITY_MAX, then the list the rest.
  const rowsFirst = Math.max(1, Math.min(5, input.folioCount))
  const activityLines = Math.max(1, Math.min(ACTIVITY_MAX, left - rowsFirst))
  return { showQr: fitsQr, visibleRows: Math.max(1, left - activityLines), activityLines }
}

/** The first row shown so that `selected` stays visible. */
export function windowStart(selected: number, visible: number, total: number): number {
  if (total <= visible) return 0
  return Math.min(Math.max(0, selected - visible + 1), total - visible)
}
