import { type Browser, type CDPSession, chromium, type Page } from 'playwright-core'
import chooseChromium, { type ChromiumLaunch } from '../../helpers/chromium-setup.js'

/**
 * A real Chromium for the bench, and what it sent over the network. The Chromium is the
 * one the browser tests use (CHROMIUM_PATH, else /usr/bin/chromium, else @sparticuz/chromium),
 * chosen by the tests' own chromium-setup.ts, with its launch flags.
 */
export async function launchChromium(extraArgs: string[] = []): Promise<{ browser: Browser; source: string }> {
  let found: ChromiumLaunch | undefined
  // chromium-setup.ts is vitest's globalSetup: it hands its choice to project.provide, which this stands in for.
  await chooseChromium({ provide: (_key: string, value: ChromiumLaunch) => (found = value) } as unknown as Parameters<typeof chooseChromium>[0])
  if (!found?.executablePath)
    throw new Error(`No Chromium for the bench (${found?.source}): ${found?.error}. Set CHROMIUM_PATH, install chromium, or npm install (@sparticuz/chromium).`)
  const browser = await chromium.launch({ executablePath: found.executablePath, args: [...found.args, ...extraArgs] })
  return { browser, source: `${found.source}, ${browser.version()}` }
}

export interface NetRequest {
  id: string
  url: string
  method: string
  /** CDP's resource type: Document, Script, Stylesheet, Fetch, EventSource, … */
  type: string
  /** CDP timestamps: monotonic seconds, one clock for every process of the browser. */
  startedAt: number
  endedAt?: number
  /** As the page saw it (a revalidated response shows its cached 200 here in some versions). */
  status?: number
  /** As it came over the wire (responseReceivedExtraInfo): 304 for a revalidation. */
  wireStatus?: number
  /** Answered from the browser's cache, without the network. */
  cache?: 'memory' | 'disk' | 'prefetch' | 'service worker'
  /** On the wire, headers included (0 from the cache); for a stream still open, what arrived so far. */
  encodedBytes: number
  /** The bodies as the page got them (decompressed). */
  decodedBytes: number
  finished: boolean
  failed?: string
}

/**
 * Network events of a page and of every frame of it, out-of-process ones included. Chromium puts a
 * sandboxed iframe in a process (a target) of its own: its requests never show in the page's CDP
 * session. So the page's session auto-attaches to its child targets and enables the Network
 * domain in each. Playwright's own session keeps its flattened attachment; this one uses the
 * non-flattened protocol (Target.sendMessageToTarget), the only way to talk to a child through
 * Playwright's CDPSession. A child's own children (a cross-origin frame inside the folio) are
 * not followed.
 *
 * Following costs time: each child waits, paused, until its Network domain is on (20–100 ms
 * here), which no same-origin page pays. So a view is timed with `followFrames: false` and
 * counted (requests, bytes) with `followFrames: true`, in separate contexts.
 */
export class NetworkLog {
  private readonly byId = new Map<string, NetRequest>()
  private readonly wire = new Map<string, number>()
  private readonly children = new Set<string>()
  private nextId = 1
  private redirects = 0
  /** performance.now() in this process when a request last started or ended (streams aside). */
  lastActivity = performance.now()
  readonly childErrors: string[] = []

  private constructor(
    private readonly cdp: CDPSession,
    private cacheDisabled: boolean,
  ) {}

  static async attach(page: Page, options: { cacheDisabled: boolean; followFrames: boolean }): Promise<NetworkLog> {
    const cdp = await page.context().newCDPSession(page)
    const log = new NetworkLog(cdp, options.cacheDisabled)
    for (const method of NETWORK_EVENTS) cdp.on(method as 'Network.dataReceived', (params: unknown) => log.onEvent(method, params as Params))
    cdp.on('Target.attachedToTarget', (event) => void log.onChild(event.sessionId))
    cdp.on('Target.detachedFromTarget', (event) => void log.children.delete(event.sessionId ?? ''))
    cdp.on('Target.receivedMessageFromTarget', (event) => {
      const message = JSON.parse(event.message) as { id?: number; method?: string; params?: Params; error?: { message: string } }
      if (message.method) log.onEvent(message.method, message.params ?? {})
      else if (message.error) log.childErrors.push(message.error.message)
    })
    await cdp.send('Network.enable')
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: options.cacheDisabled })
    if (options.followFrames) await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false })
    return log
  }

  /** Forgets what was seen: the next view starts from nothing. */
  reset(): void {
    this.byId.clear()
    this.wire.clear()
    this.lastActivity = performance.now()
  }

  requests(): NetRequest[] {
    return [...this.byId.values()].map((r) => ({ ...r, wireStatus: this.wire.get(r.id) ?? r.wireStatus }))
  }

  async setCacheDisabled(disabled: boolean): Promise<void> {
    this.cacheDisabled = disabled
    await this.cdp.send('Network.setCacheDisabled', { cacheDisabled: disabled })
    for (const sessionId of this.children) await this.toChild(sessionId, 'Network.setCacheDisabled', { cacheDisabled: disabled })
  }

  /** True when nothing but open streams (EventSource) has been in flight for `quietMs`. */
  settled(quietMs: number): boolean {
    const busy = [...this.byId.values()].some((r) => !r.finished && r.type !== 'EventSource')
    return !busy && performance.now() - this.lastActivity >= quietMs
  }

  async close(): Promise<void> {
    await this.cdp.detach().catch(() => {})
  }

  /** A new child is paused until resumed: its Network domain goes on first, so none of its requests is missed. */
  private async onChild(sessionId: string): Promise<void> {
    this.children.add(sessionId)
    // Sent at once, in order: the child handles them in that order, without a round trip each.
    await Promise.all([
      this.toChild(sessionId, 'Network.enable'),
      this.toChild(sessionId, 'Network.setCacheDisabled', { cacheDisabled: this.cacheDisabled }),
      this.toChild(sessionId, 'Runtime.runIfWaitingForDebugger'),
    ])
  }

  private async toChild(sessionId: string, method: string, params: object = {}): Promise<void> {
    const message = JSON.stringify({ id: this.nextId++, method, params })
    await this.cdp.send('Target.sendMessageToTarget', { sessionId, message }).catch((error: Error) => this.childErrors.push(`${method}: ${error.message}`))
  }

  private onEvent(method: string, p: Params): void {
    const id = p.requestId
    if (!id) return
    const known = this.byId.get(id)
    switch (method) {
      case 'Network.requestWillBeSent': {
        // A redirect ends one request and starts the next under the same id.
        if (known && p.redirectResponse) {
          this.byId.delete(id)
          this.byId.set(`${id}#redirect${++this.redirects}`, {
            ...known,
            status: p.redirectResponse.status,
            encodedBytes: p.redirectResponse.encodedDataLength ?? 0,
            finished: true,
            endedAt: p.timestamp,
          })
        } else if (known) return // the same request seen from a second session (a child frame's document)
        this.byId.set(id, {
          id,
          url: p.request!.url,
          method: p.request!.method,
          type: p.type ?? 'Other',
          startedAt: p.timestamp!,
          encodedBytes: 0,
          decodedBytes: 0,
          finished: false,
        })
        this.lastActivity = performance.now()
        return
      }
      case 'Network.responseReceivedExtraInfo':
        if (p.statusCode !== undefined) this.wire.set(id, p.statusCode)
        return
    }
    if (!known) return
    switch (method) {
      case 'Network.requestServedFromCache':
        known.cache ??= 'memory'
        break
      case 'Network.responseReceived': {
        const r = p.response!
        known.status = r.status
        if (r.fromDiskCache) known.cache = 'disk'
        else if (r.fromPrefetchCache) known.cache = 'prefetch'
        else if (r.fromServiceWorker) known.cache = 'service worker'
        if (!known.finished) known.encodedBytes = Math.max(known.encodedBytes, r.encodedDataLength ?? 0)
        if (p.type && known.type === 'Other') known.type = p.type
        break
      }
      case 'Network.dataReceived':
        known.decodedBytes += p.dataLength ?? 0
        if (!known.finished) known.encodedBytes += p.encodedDataLength ?? 0
        return
      case 'Network.loadingFinished':
        known.encodedBytes = p.encodedDataLength ?? known.encodedBytes
        known.finished = true
        known.endedAt = p.timestamp
        break
      case 'Network.loadingFailed':
        known.failed = p.errorText ?? 'failed'
        known.finished = true
        known.endedAt = p.timestamp
        break
    }
    this.lastActivity = performance.now()
  }
}

const NETWORK_EVENTS = [
  'Network.requestWillBeSent',
  'Network.requestServedFromCache',
  'Network.responseReceived',
  'Network.responseReceivedExtraInfo',
  'Network.dataReceived',
  'Network.loadingFinished',
  'Network.loadingFailed',
]

/** The fields of the Network events above that the log reads. */
interface Params {
  requestId?: string
  timestamp?: number
  type?: string
  request?: { url: string; method: string }
  redirectResponse?: { status: number; encodedDataLength?: number }
  response?: { status: number; encodedDataLength?: number; fromDiskCache?: boolean; fromPrefetchCache?: boolean; fromServiceWorker?: boolean }
  statusCode?: number
  dataLength?: number
  encodedDataLength?: number
  errorText?: string
}
