import type { IncomingMessage } from 'node:http'

/**
 * How long a request body may take. node's requestTimeout counts from the request's start to
 * its body's last byte, whether or not anybody reads it, and then writes a bare 408 (behind
 * an answer already sent, if there was one) and destroys the socket: a limit that must be
 * long enough for a 25 MB upload on a slow link is one a slowloris holds a socket for. So
 * progress is what counts: no bytes for `idleMs`, or on average slower than
 * `minBytesPerSecond` once `graceMs` has passed, and the body is too slow. node's own
 * requestTimeout stays on as the ceiling (config.ts).
 */
export interface BodyTimeouts {
  idleMs: number
  graceMs: number
  minBytesPerSecond: number
}

/** 15 s of silence; 16 KB/s on average (a 25 MB upload may take 27 minutes). */
export const DEFAULT_BODY_TIMEOUTS: BodyTimeouts = { idleMs: 15_000, graceMs: 15_000, minBytesPerSecond: 16 * 1024 }

/** How long the next chunk may take (≤ 0: too late already), the last one having come at `lastChunkAt`. */
export function nextChunkWithin(t: BodyTimeouts, startedAt: number, received: number, now: number, lastChunkAt = now): number {
  return Math.min(lastChunkAt + t.idleMs - now, startedAt + t.graceMs + (received / t.minBytesPerSecond) * 1000 - now)
}

export function tooSlowMessage(t: BodyTimeouts): string {
  return `The request body arrived too slowly (no bytes for ${seconds(t.idleMs)} s, or slower than ${rate(t.minBytesPerSecond)} on average): send it again on a faster connection.`
}

const BODY_TIMEOUTS = Symbol('folio.bodyTimeouts')

/** The listener hands its limits to whoever reads the body (body.ts). */
export function setBodyTimeouts(req: IncomingMessage, t: BodyTimeouts): void {
  ;(req as unknown as Record<symbol, BodyTimeouts>)[BODY_TIMEOUTS] = t
}

export function bodyTimeoutsOf(req: IncomingMessage | undefined): BodyTimeouts {
  return (req as unknown as Record<symbol, BodyTimeouts> | undefined)?.[BODY_TIMEOUTS] ?? DEFAULT_BODY_TIMEOUTS
}

/**
 * Once the answer is out, node reads what is left of a body nobody wanted (so the client reads
 * the answer rather than a reset). That rest must keep coming by the same rules, or the socket
 * closes: a client cannot hold it by trickling a body that was refused.
 */
export function closeIfLeftoverStalls(req: IncomingMessage, t: BodyTimeouts): void {
  const socket = req.socket
  const startedAt = Date.now()
  const startBytes = socket.bytesRead
  let seen = startBytes
  let lastProgress = startedAt
  const check = () => {
    if (req.complete || socket.destroyed) return
    const now = Date.now()
    if (socket.bytesRead !== seen) {
      seen = socket.bytesRead
      lastProgress = now
    }
    const wait = nextChunkWithin(t, startedAt, seen - startBytes, now, lastProgress)
    if (wait <= 0) socket.destroy()
    else setTimeout(check, Math.min(wait, 1_000)).unref()
  }
  setTimeout(check, Math.min(t.idleMs, 1_000)).unref()
}

const seconds = (ms: number) => String(Math.round(ms / 100) / 10)
const rate = (bytesPerSecond: number) => (bytesPerSecond >= 1024 ? `${Math.round(bytesPerSecond / 1024)} KB/s` : `${bytesPerSecond} B/s`)
