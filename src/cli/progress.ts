import { bytes } from '../terminal/format.js'
import { showsNotes } from './logger.js'

/**
 * A one-line progress bar on stderr, drawn only for people at a terminal (and only for work big
 * enough to be worth watching); scripts and logs get the final line alone. It redraws one line
 * in place (\r), which log lines cannot: it writes to the terminal itself, and is a note like
 * others: --quiet hides it.
 */
export function progressBar(label: string, total: number, wanted = Boolean(process.stderr.isTTY)) {
  const enabled = wanted && showsNotes()
  let done = 0
  let lastDraw = 0
  const draw = (force = false) => {
    if (!enabled) return
    const now = Date.now()
    if (!force && now - lastDraw < 80) return
    lastDraw = now
    const share = total > 0 ? Math.min(1, done / total) : 1
    const width = 24
    const filled = Math.round(share * width)
    process.stderr.write(
      `\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(Math.round(share * 100)).padStart(3)}% ${bytes(done)}/${bytes(total)}`,
    )
  }
  return {
    add(n: number) {
      done += n
      draw()
    },
    finish() {
      draw(true)
      if (enabled) process.stderr.write('\n')
    },
  }
}

/** Wraps a byte stream so that every chunk that passes is counted. */
export function counted(stream: ReadableStream<Uint8Array>, onChunk: (n: number) => void): ReadableStream<Uint8Array> {
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onChunk(chunk.byteLength)
        controller.enqueue(chunk)
      },
    }),
  )
}
