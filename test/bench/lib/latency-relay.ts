import { connect, createServer, type Socket } from 'node:net'

/**
 * A slow link in front of one server, at the TCP level: the browser connects to the relay
 * (127.0.0.1, a port of its own) and the relay forwards every byte to the server and back,
 * late. Every process of the browser goes through it alike (a sandboxed frame's as well as the
 * page's), and each target of a comparison gets the same one. The model, per connection:
 *
 * - Latency: a chunk is delivered one way (RTT/2) after it left, in order, in both directions.
 *   A request therefore costs a full round trip before its first byte of answer, as on a real
 *   link (DevTools' emulation adds its latency per request instead, and no handshake).
 * - Handshake: the connection is usable one RTT after the browser opened it (TCP's SYN and
 *   SYN-ACK). The browser sees it open at once (loopback), so it sends its request straight
 *   away; the relay holds those bytes until then: a new connection's first request arrives
 *   1.5 RTT after the connect, a reused connection's 0.5 RTT after it was sent. No TLS.
 * - Bandwidth: each direction of each connection sends at most `downMbps` (toward the browser)
 *   or `upMbps` (toward the server): a chunk leaves once the ones before it are out and takes
 *   its size / rate to go, then arrives one way later. Chunks are cut in slices of SLICE bytes,
 *   so a large read from the server arrives progressively, not all at once at the end. The cap
 *   is not shared between connections (six parallel connections may use six times the rate).
 * - Not modelled: slow start and congestion windows, loss, TLS, the server's own distance
 *   (the relay connects to it at once, over loopback).
 *
 * Backpressure: a direction stops reading its source (pause) when more than HIGH_WATER bytes
 * are waiting in it or its destination's buffer is full, and reads again (resume) once under
 * half and drained: memory stays bounded and a slow reader slows the writer, as TCP would.
 * The mark is well over the bandwidth-delay product (10 Mbit/s × 75 ms ≈ 94 KB), so the relay
 * itself never holds the rate under the cap. Ends (FIN) travel with the data, after it; an error
 * on either side (ECONNRESET when the browser drops a socket) destroys both, counted, not thrown.
 */

export interface Link {
  /** Round trip, ms: each direction's latency is half of it; a new connection's handshake costs one. */
  rttMs: number
  /** Toward the browser, Mbit/s, per connection. */
  downMbps: number
  /** Toward the server, Mbit/s, per connection. */
  upMbps: number
}

export interface LatencyRelay {
  /** http://127.0.0.1:<relay's port>: the target's URLs with this origin go through the link. */
  url: string
  /**
   * Since the start: connections the browser opened, errors (resets) on them, bytes each way, and
   * how late the relay's timers delivered (ms past due, the worst): its own error.
   */
  stats: RelayStats
  close(): Promise<void>
}

export interface RelayStats {
  connections: number
  errors: number
  bytesDown: number
  bytesUp: number
  maxLateMs: number
}

const SLICE = 4096
const HIGH_WATER = 1024 * 1024

/** Starts a relay to `targetUrl`'s host and port (an http://host:port URL), listening on 127.0.0.1:0. */
export async function startLatencyRelay(targetUrl: string, link: Link): Promise<LatencyRelay> {
  const target = new URL(targetUrl)
  const port = Number(target.port || 80)
  const stats: RelayStats = { connections: 0, errors: 0, bytesDown: 0, bytesUp: 0, maxLateMs: 0 }
  const open = new Set<Socket>()

  const server = createServer({ allowHalfOpen: true, noDelay: true }, (browser) => {
    const openedAt = performance.now()
    stats.connections++
    const upstream = connect({ host: target.hostname, port, allowHalfOpen: true, noDelay: true })
    const lanes = [
      new Lane(browser, upstream, link.upMbps, link, openedAt, stats, 'bytesUp'),
      new Lane(upstream, browser, link.downMbps, link, openedAt, stats, 'bytesDown'),
    ]
    const fail = () => {
      stats.errors++
      browser.destroy()
      upstream.destroy()
    }
    for (const socket of [browser, upstream]) {
      open.add(socket)
      socket.on('error', fail)
      socket.on('close', () => {
        open.delete(socket)
        // Closed without its end having been read (destroyed, reset): the other side goes too.
        if (!socket.readableEnded) (socket === browser ? upstream : browser).destroy()
        if (browser.destroyed && upstream.destroyed) for (const lane of lanes) lane.stop()
      })
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${address.port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of open) socket.destroy()
      }),
  }
}

/** One direction of one connection: what `from` sends reaches `to` late, at the link's rate, in order. */
class Lane {
  private readonly queue: Array<{ due: number; data: Buffer | null }> = []
  private queuedBytes = 0
  /** When the link has sent everything given to it so far (performance.now() ms). */
  private busyUntil: number
  private readonly bytesPerMs: number
  private readonly oneWayMs: number
  private timer: NodeJS.Timeout | undefined
  private ended = false

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    mbps: number,
    link: Link,
    openedAt: number,
    private readonly stats: RelayStats,
    private readonly counter: 'bytesDown' | 'bytesUp',
  ) {
    this.bytesPerMs = (mbps * 1e6) / 8 / 1000
    this.oneWayMs = link.rttMs / 2
    this.busyUntil = openedAt + link.rttMs
    from.on('data', (chunk: Buffer) => this.send(chunk))
    from.on('end', () => this.end())
    to.on('drain', () => this.resumeIfRoom())
  }

  stop(): void {
    clearTimeout(this.timer)
    this.queue.length = 0
  }

  private send(chunk: Buffer): void {
    for (let offset = 0; offset < chunk.length; offset += SLICE) {
      const data = chunk.subarray(offset, offset + SLICE)
      this.busyUntil = Math.max(performance.now(), this.busyUntil) + data.length / this.bytesPerMs
      this.queuedBytes += data.length
      this.enqueue(this.busyUntil + this.oneWayMs, data)
    }
    if (this.queuedBytes > HIGH_WATER || this.to.writableNeedDrain) this.from.pause()
  }

  /** The source's FIN: it follows the last byte sent. */
  private end(): void {
    if (this.ended) return
    this.ended = true
    this.enqueue(Math.max(performance.now(), this.busyUntil) + this.oneWayMs, null)
  }

  private enqueue(due: number, data: Buffer | null): void {
    this.queue.push({ due, data })
    if (!this.timer) this.arm()
  }

  private arm(): void {
    const head = this.queue[0]
    this.timer = head ? setTimeout(() => this.deliver(), Math.max(0, head.due - performance.now())) : undefined
  }

  /** Hands over everything due (within a millisecond: timers are no finer). */
  private deliver(): void {
    const now = performance.now()
    if (this.queue[0]) this.stats.maxLateMs = Math.max(this.stats.maxLateMs, now - this.queue[0].due)
    while (this.queue.length && this.queue[0]!.due <= now + 1) {
      const { data } = this.queue.shift()!
      if (data) this.queuedBytes -= data.length
      if (this.to.destroyed) continue
      if (!data) this.to.end()
      else {
        this.stats[this.counter] += data.length
        this.to.write(data)
      }
    }
    this.resumeIfRoom()
    this.arm()
  }

  private resumeIfRoom(): void {
    if (this.from.isPaused() && !this.from.destroyed && this.queuedBytes < HIGH_WATER / 2 && !this.to.writableNeedDrain) this.from.resume()
  }
}
