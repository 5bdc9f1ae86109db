// autocannon ships no types; this declares only the part of its API the bench uses.
declare module 'autocannon' {
  interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
    setupRequest?: (req: Request, context: Record<string, unknown>) => Request
  }
  interface Options {
    url: string
    connections?: number
    duration?: number
    amount?: number
    method?: string
    headers?: Record<string, string>
    body?: string | Buffer
    requests?: Request[]
    timeout?: number
    /** Requests per second over all connections (0: as fast as they go). */
    overallRate?: number
  }
  interface Histogram {
    average: number
    p50: number
    p99: number
    total: number
  }
  interface Result {
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    resets: number
    '2xx': number
    statusCodeStats: Record<string, { count: number }>
    latency: Histogram
    requests: Histogram & { sent: number }
    throughput: Histogram
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
