import { messageOf, type TunnelConnection, type TunnelConnector, type TunnelProviderName, type TunnelWall } from './providers.js'

export type TunnelPhase = 'stopped' | 'starting' | 'connected' | 'reconnecting'
export interface TunnelState {
  state: TunnelPhase
  url: string | null
  lastError: string | null
  /** The provider of the tunnel running or being started; null when stopped. */
  provider: TunnelProviderName | null
  /** What viewers meet before the folio (localtunnel's reminder page), when the provider says. */
  wall: TunnelWall | null
  /** The URL links were shared with before this tunnel came up at another one; null when unchanged. */
  previousUrl: string | null
}
export interface TunnelManagerOptions {
  /** Back-off between reconnect attempts after the tunnel drops: first delay, doubling, capped (defaults 1_000 and 30_000). */
  retryDelayMs?: number
  maxRetryDelayMs?: number
  /** The public URL of the last tunnel this server had (kept across restarts): a new one is a change to report. */
  lastUrl?: string | null
  /** Problems (warn, the default) and news (info: connected). */
  log?: (message: string, level?: 'info' | 'warn') => void
}
export interface TunnelStarted {
  url: string
  alreadyRunning: boolean
  provider: TunnelProviderName
  /** The connector's description: the tunnel server, the executable. */
  describe: string
  /** With a subdomain asked for: whether the server gave that one. */
  subdomainGranted?: boolean
  wall?: TunnelWall
}
export interface TunnelManager {
  /**
   * Starts a tunnel through `connector` (or returns the running one's URL). Rejects with a clear
   * Error on timeout/failure and then stays 'stopped'. Concurrent calls share one attempt.
   */
  start(connector: TunnelConnector): Promise<TunnelStarted>
  /** Stops it (idempotent); no reconnect happens after stop(), and the provider's process is gone when it resolves. */
  stop(): Promise<void>
  status(): TunnelState
  /** Called on every state change; returns an unsubscribe function. */
  onChange(listener: (state: TunnelState) => void): () => void
}

const STOPPED: TunnelState = { state: 'stopped', url: null, lastError: null, provider: null, wall: null, previousUrl: null }

/**
 * One public tunnel at a time, whatever provides it: starts, reconnects with back-off when it is
 * lost, reports a URL that changed, and stops everything it started. Providers (localtunnel.ts,
 * cloudflare.ts, custom URLs) only open and close one connection.
 */
export function createTunnelManager(options: TunnelManagerOptions = {}): TunnelManager {
  const firstDelay = options.retryDelayMs ?? 1_000
  const maxDelay = options.maxRetryDelayMs ?? 30_000
  const log = options.log ?? (() => {})
  const listeners = new Set<(state: TunnelState) => void>()
  let state: TunnelState = { ...STOPPED }
  let lastUrl = options.lastUrl ?? null
  // Every start() and stop() begins a new generation; callbacks of an older one change nothing.
  let generation = 0
  let connector: TunnelConnector | null = null
  let current: TunnelConnection | null = null
  let pending: AbortController | null = null
  let starting: Promise<TunnelStarted> | null = null
  let retryTimer: NodeJS.Timeout | undefined
  const closing = new Set<Promise<void>>()

  const set = (patch: Partial<TunnelState>) => {
    const next = { ...state, ...patch }
    if ((Object.keys(next) as Array<keyof TunnelState>).every((key) => next[key] === state[key])) return
    state = next
    for (const listener of [...listeners]) {
      try {
        listener({ ...state })
      } catch (error) {
        log(`A tunnel state listener failed: ${messageOf(error)}`)
      }
    }
  }

  /** Closes a connection, remembered until done: stop() waits for every process to be gone. */
  const end = (connection: TunnelConnection) => {
    const done = connection.close().catch((error: unknown) => log(`The tunnel did not close cleanly: ${messageOf(error)}`))
    closing.add(done)
    void done.finally(() => closing.delete(done))
  }

  const adopt = (connection: TunnelConnection, epoch: number, via: TunnelConnector) => {
    current = connection
    connection.onLost((why) => {
      if (epoch !== generation || current !== connection) return
      current = null
      end(connection)
      log(`Tunnel lost (${why}); reconnecting`)
      set({ state: 'reconnecting', url: null, lastError: why })
      retry(epoch, via, firstDelay)
    })
    // A URL other than the one last shared: say so where the author looks (and keep saying it).
    const changedFrom = lastUrl && lastUrl !== connection.url ? lastUrl : state.previousUrl
    if (lastUrl && lastUrl !== connection.url)
      log(`The tunnel's public URL changed from ${lastUrl} to ${connection.url}: links shared with the old one no longer work.`)
    lastUrl = connection.url
    log(`Tunnel connected: ${connection.url}`, 'info')
    if (connection.wall) log(connection.wall.notice, 'info')
    set({ state: 'connected', url: connection.url, lastError: null, wall: connection.wall ?? null, previousUrl: changedFrom ?? null })
  }

  /** Reconnects after a drop, doubling the delay after each failure, until stop() or start(). */
  const retry = (epoch: number, via: TunnelConnector, delay: number) => {
    retryTimer = setTimeout(() => {
      const controller = (pending = new AbortController())
      via.connect(controller.signal).then(
        (connection) => {
          if (pending === controller) pending = null
          if (epoch === generation) adopt(connection, epoch, via)
          else end(connection)
        },
        (error) => {
          if (pending === controller) pending = null
          if (epoch !== generation) return
          log(`Tunnel reconnect failed (${messageOf(error)}); next try in ${Math.min(delay * 2, maxDelay) / 1000} s`)
          set({ lastError: messageOf(error) })
          retry(epoch, via, Math.min(delay * 2, maxDelay))
        },
      )
    }, delay)
    // A background retry alone must not keep the process alive.
    retryTimer.unref()
  }

  /** Ends whatever runs (tunnel, attempt, back-off) and starts a new generation. */
  const cancelAll = (reason: string): number => {
    generation++
    starting = null
    clearTimeout(retryTimer)
    pending?.abort(new Error(reason))
    pending = null
    const connection = current
    current = null
    if (connection) end(connection)
    return generation
  }

  /** One start() attempt; concurrent start() calls get this same promise. */
  const begin = async (via: TunnelConnector): Promise<TunnelStarted> => {
    // Also while 'reconnecting': the caller asked for a tunnel now, so try now.
    const epoch = cancelAll('superseded by start()')
    connector = via
    set({ state: 'starting', url: null, provider: via.provider, wall: null, previousUrl: null })
    const controller = (pending = new AbortController())
    try {
      const connection = await via.connect(controller.signal)
      if (epoch !== generation) {
        end(connection)
        throw new Error('The tunnel was stopped before it connected.')
      }
      adopt(connection, epoch, via)
      return started(connection, via, false)
    } catch (error) {
      if (epoch === generation) {
        log(`Tunnel failed to start: ${messageOf(error)}`)
        set({ ...STOPPED, lastError: messageOf(error) })
      }
      throw error
    } finally {
      if (pending === controller) pending = null
      if (epoch === generation) starting = null
    }
  }

  const started = (connection: TunnelConnection, via: TunnelConnector, alreadyRunning: boolean): TunnelStarted => ({
    url: connection.url,
    alreadyRunning,
    provider: via.provider,
    describe: via.describe,
    ...(connection.subdomainGranted === undefined ? {} : { subdomainGranted: connection.subdomainGranted }),
    ...(connection.wall ? { wall: connection.wall } : {}),
  })

  return {
    start(via) {
      if (state.state === 'connected' && current && connector) return Promise.resolve(started(current, connector, true))
      return (starting ??= begin(via))
    },
    async stop() {
      cancelAll('The tunnel was stopped before it connected.')
      set({ ...STOPPED })
      await Promise.all([...closing])
    },
    status: () => ({ ...state }),
    onChange(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
  }
}
