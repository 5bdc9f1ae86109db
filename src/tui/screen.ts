import { EventEmitter } from 'node:events'

const BEGIN_SYNC = '\x1b[?2026h'
const END_SYNC = '\x1b[?2026l'
const HIDE_CURSOR = '\x1b[?25l'
const SHOW_CURSOR = '\x1b[?25h'
const CLEAR_LINE = '\x1b[2K'
const CLEAR_BELOW = '\x1b[J'
const moveTo = (row: number) => `\x1b[${row};1H`

/**
 * The stream Ink draws the live view on: each frame painted whole, at fixed rows of the
 * alternate screen.
 *
 * Ink's own renderer (log-update) erases the previous frame by moving the cursor up as many
 * lines as that frame had. After a resize the terminal has rewrapped those lines, so the count
 * is wrong and parts of the old frame stay on screen (issue 11). With `debug: true` Ink instead
 * writes every frame whole, with nothing around it: this stream puts line n on row n (cleared
 * first), clears what is below the last one and cuts the frame at the terminal's height, so no
 * frame depends on what the terminal did to the one before. A frame equal to the one on screen
 * is not painted again, unless the terminal was resized since.
 */
export class FullScreenStream extends EventEmitter {
  readonly isTTY = true
  #last: string | null = null
  readonly #target: NodeJS.WriteStream
  readonly #onResize = () => {
    this.#last = null
    this.emit('resize')
  }

  constructor(target: NodeJS.WriteStream) {
    super()
    this.#target = target
    target.on('resize', this.#onResize)
  }

  get columns(): number {
    return this.#target.columns || 80
  }

  get rows(): number {
    return this.#target.rows || 24
  }

  /** Ink waits on a write's callback before it resolves waitUntilExit; an empty write is only that. */
  write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean {
    const frame = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
    if (frame === '' || frame === this.#last) {
      if (callback) process.nextTick(callback)
      return true
    }
    this.#last = frame
    return this.#target.write(paint(frame, this.rows), callback)
  }

  /** Hides the cursor (the frames never need it); `close` shows it again. */
  open(): void {
    this.#target.write(HIDE_CURSOR)
  }

  close(): void {
    this.#target.off('resize', this.#onResize)
    this.#target.write(SHOW_CURSOR)
  }
}

/** The escape sequences that draw `frame` from the top-left corner on a screen `rows` high. */
export function paint(frame: string, rows: number): string {
  const lines = frame.replace(/\n+$/, '').split('\n').slice(0, Math.max(1, rows))
  let out = BEGIN_SYNC
  lines.forEach((line, i) => {
    out += moveTo(i + 1) + CLEAR_LINE + line
  })
  if (lines.length < rows) out += moveTo(lines.length + 1) + CLEAR_BELOW
  return out + END_SYNC
}
