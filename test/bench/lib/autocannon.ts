import autocannon from 'autocannon'
import { cpuSeconds, sleep } from './processes.js'

/** One load target: a URL and, for writes, a body that must differ on every request. */
export interface Target {
  name: string
  url: string
  method?: 'GET' | 'PUT' | 'POST'
  /** Called once per request: a PUT whose content never repeats creates a real new version each time. */
  body?: () => string
  /**
   * The path (and query) of each request, from autocannon's per-connection context: lets each
   * connection write to a folio of its own. Default: the URL's.
   */
  pathFor?: (connection: Record<string, unknown>) => string
  /** Runs before each measured round (e.g. a fresh folio), outside the timed window. */
  beforeRound?: (round: number) => Promise<void>
  /** The server's pid, to tell whether it or autocannon ran out of CPU. */
  pid?: number
  /** Sent with every request (a credential). */
  headers?: Record<string, string>
}

export interface LoadResult {
  /** 2xx responses per second: errors are not throughput. */
  reqPerSec: number
  ok: number
  non2xx: number
  errors: number
  timeouts: number
  statusCodes: Record<string, number>
  latencyP50Ms: number
  latencyP99Ms: number
  durationS: number
  /**
   * Share of one core used by the server and by this process (autocannon) during the round.
   * A client near 100% means the figure is capped by the load generator, not the server.
   */
  serverCpu?: number
  clientCpu?: number
}

export interface LoadOptions {
  connections: number
  duration: number
}

export async function load(target: Target, options: LoadOptions): Promise<LoadResult> {
  const server0 = target.pid ? cpuSeconds(target.pid) : NaN
  const client0 = cpuSeconds(process.pid)
  const wall0 = performance.now()
  const result = await run(target, options)
  const wall = (performance.now() - wall0) / 1000
  if (target.pid) result.serverCpu = (cpuSeconds(target.pid) - server0) / wall
  result.clientCpu = (cpuSeconds(process.pid) - client0) / wall
  return result
}

async function run(target: Target, options: LoadOptions): Promise<LoadResult> {
  const url = new URL(target.url)
  const method = target.method ?? 'GET'
  const base = { method, path: url.pathname + url.search, headers: { 'content-type': 'application/json', ...target.headers } }
  const result = await autocannon({
    url: url.origin,
    connections: options.connections,
    duration: options.duration,
    timeout: 30,
    requests: [
      target.body || target.pathFor
        ? {
            ...base,
            setupRequest: (req, connection) => ({
              ...req,
              ...(target.pathFor && { path: target.pathFor(connection) }),
              ...(target.body && { body: target.body() }),
            }),
          }
        : base,
    ],
  })
  const statusCodes: Record<string, number> = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count
  return {
    reqPerSec: result['2xx'] / result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    durationS: result.duration,
  }
}

export interface Comparison {
  /** Median req/s per target name, plus every round for the record. */
  median: Record<string, number>
  rounds: Record<string, LoadResult[]>
  warmups: Record<string, LoadResult[]>
}

/**
 * Warms every target up, then measures them in turn (A, B, A, B, …) so that drift in the
 * machine (thermal, page cache, a noisy neighbour) hits all of them alike; medians of the
 * rounds damp a single bad round.
 */
export async function compareAlternating(
  targets: Target[],
  options: LoadOptions & { rounds: number; warmup: number; log: (line: string) => void; settleMs?: number },
): Promise<Comparison> {
  // autocannon stops counting with requests still in flight; the server finishes them after.
  // A pause lets that tail end before the next target's round starts timing.
  const settle = () => sleep(options.settleMs ?? 250)
  const warmups: Record<string, LoadResult[]> = Object.fromEntries(targets.map((t) => [t.name, []]))
  for (const target of targets) {
    await target.beforeRound?.(-1)
    const warm = await load(target, { connections: options.connections, duration: options.warmup })
    warmups[target.name]!.push(warm)
    await settle()
    options.log(`  warm-up ${target.name}: ${fmt(warm.reqPerSec)} req/s`)
  }
  const rounds: Record<string, LoadResult[]> = Object.fromEntries(targets.map((t) => [t.name, []]))
  for (let round = 0; round < options.rounds; round++) {
    for (const target of targets) {
      await target.beforeRound?.(round)
      const result = await load(target, options)
      rounds[target.name]!.push(result)
      await settle()
      const problems =
        result.non2xx || result.errors || result.timeouts ? `  (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})` : ''
      const cpu = `CPU server ${pct(result.serverCpu)}, autocannon ${pct(result.clientCpu)}`
      options.log(
        `  round ${round + 1} ${target.name}: ${fmt(result.reqPerSec)} req/s, p50 ${result.latencyP50Ms} ms, p99 ${result.latencyP99Ms} ms, ${cpu}${problems}`,
      )
    }
  }
  const median = Object.fromEntries(Object.entries(rounds).map(([name, results]) => [name, medianOf(results.map((r) => r.reqPerSec))]))
  return { median, rounds, warmups }
}

export function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const pct = (share: number | undefined) => (share === undefined || Number.isNaN(share) ? '-' : `${Math.round(share * 100)}%`)

export const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n))

/** Sums the non-2xx, errors and timeouts of every round of a target. */
export function problemsOf(results: LoadResult[]): { non2xx: number; errors: number; timeouts: number; statusCodes: Record<string, number> } {
  const statusCodes: Record<string, number> = {}
  for (const r of results) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n
  return {
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
    timeouts: results.reduce((s, r) => s + r.timeouts, 0),
    statusCodes,
  }
}

/** Median CPU per target over its rounds: which side was the bottleneck. */
export function cpuNote(comparison: Comparison): string {
  return Object.entries(comparison.rounds)
    .map(([name, results]) => {
      const server = medianOf(results.map((r) => r.serverCpu ?? NaN))
      const client = medianOf(results.map((r) => r.clientCpu ?? NaN))
      return `${name}: server ${pct(server)} / autocannon ${pct(client)}`
    })
    .join('; ')
}
