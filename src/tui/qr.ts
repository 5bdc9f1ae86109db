import QRCode from 'qrcode/lib/core/qrcode.js'

export interface QrOptions {
  /** Light modules around the code (the quiet zone); default 2. */
  margin?: number
  /** Swap dark and light: for terminals that draw light text on a dark background without colours. */
  invert?: boolean
}

/**
 * A QR code as text: two module rows per line with half blocks (▀ top dark, ▄ bottom dark,
 * █ both, space neither), so a module is about square in a terminal cell. Dark modules are
 * the drawn characters: show the lines dark-on-light (the view sets black on bright white). Every line
 * has the same length, size + 2 × margin; there are ceil((size + 2 × margin) / 2) lines.
 */
export function qrLines(text: string, options: QrOptions = {}): string[] {
  const margin = options.margin ?? 2
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'L' })
  const size = modules.size
  const full = size + 2 * margin
  const dark = (row: number, col: number): boolean => {
    const r = row - margin
    const c = col - margin
    const on = r >= 0 && c >= 0 && r < size && c < size && Boolean(modules.get(r, c))
    return options.invert ? !on : on
  }
  const lines: string[] = []
  for (let row = 0; row < full; row += 2) {
    let line = ''
    for (let col = 0; col < full; col++) {
      const top = dark(row, col)
      // An odd last row has no partner below: that half stays light (more quiet zone).
      const bottom = row + 1 < full ? dark(row + 1, col) : Boolean(options.invert)
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' '
    }
    lines.push(line)
  }
  return lines
}
