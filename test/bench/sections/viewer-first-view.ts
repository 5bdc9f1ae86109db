import { execFile } from 'node:child_process'
import { cp, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Frame, Page } from 'playwright-core'
import { medianOf } from '../lib/autocannon.js'
import { launchChromium, type NetRequest, NetworkLog } from '../lib/chromium.js'
import type { BenchContext } from '../lib/context.js'
import { NO_RATE_LIMITS, ROOT, startFolio } from '../lib/folio.js'
import { type LatencyRelay, type Link, startLatencyRelay } from '../lib/latency-relay.js'
import { type ServerChild, sleep, startJsonLineServer } from '../lib/processes.js'
import { formatValue, goalText, verdict } from '../lib/report.js'

const run = promisify(execFile)

/**
 * A phone on a so-so 4G link: 150 ms round trip, 10 Mbit/s down, 5 up. Between Lighthouse's
 * "slow 4G" (1.6 Mbit/s) and a good 4G cell: every request in a chain costs a round trip, and a
 * megabyte still costs most of a second, so both the number of requests and their bytes show.
 * The link is a TCP relay in front of each server (lib/latency-relay.ts), the same for both
 * targets: Chromium connects to the relay, so every process of the browser (the share page's
 * and the sandboxed frame's alike) goes through it, with nothing set in the browser itself. Each
 * chunk arrives RTT/2 after it left, a new connection's first request waits one more RTT (the
 * TCP handshake; no TLS), and each connection sends at most 10 Mbit/s down and 5 up.
 * Connections stay HTTP/1.1, six per host, as Chromium opens them.
 */
const RTT_MS = 150
const LINK: Link = { rttMs: RTT_MS, downMbps: 10, upMbps: 5 }

/** The demo links images on the web; this machine has none, so they fail at once, for both targets alike. */
const OFFLINE_WEB = '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'

const CONTENT_TIMEOUT_MS = 30_000
const SETTLE_QUIET_MS = 1000
const SETTLE_MAX_MS = 15_000

type TargetName = 'folio' | 'static'
type ViewName = 'cold' | 'warm'

interface Content {
  name: string
  label: string
  folder: string
  /** The element that is the content: visible once the first view shows it. */
  marker: string
}

interface Target {
  name: TargetName
  /** Where a viewer goes: the share page, or the folder's index on the static server. */
  url: string
}

/** One view's figures; "before content" = the requests that started before the content was painted. */
interface ViewFigures {
  contentMs: number
  fcpMs: number
  markerMs: number
  /** Requests to the server that went to the network before the content (revalidations included). */
  requests: number
  bytes: number
  /** Answered by the browser's cache before the content. */
  cacheHits: number
  /** The share UI (the server's origin, not /v/): before the content, and in the whole view until the network settled. */
  uiRequests: number
  uiBytes: number
  uiAllRequests: number
  uiAllBytes: number
  uiAllDecodedBytes: number
  /** The folio's own files (the static server: all its files; folio: under /v/) in the whole view: downloaded in full, revalidated (304), from the cache. */
  filesDownloaded: number
  filesRevalidated: number
  filesCached: number
  /** The share UI's scripts, styles, fonts, images (not the share page itself, not API calls) downloaded in full. */
  uiAssetsDownloaded: number
  /** Everything to the server in the whole view. */
  allRequests: number
  allBytes: number
  blockedElsewhere: number
  /** Frame clock vs the page's, checked on the frame's own navigation request (ms). */
  clockSkewMs: number
}

/**
 * Section 13: what a viewer waits for on the first view of a share link, in a real Chromium over
 * a phone link (a latency relay in front of each server), against the same folder on a static
 * file server with compression.
 *
 * Content painted: in the document that holds the content (folio: its frame under /v/; the static
 * server: the page), the first contentful paint AND the marker element visible, timed from the
 * page's navigation start (the frame's clock moved over with performance.timeOrigin). Requests and
 * bytes: to the server under test, started before that paint, as on the wire (CDP's
 * encodedDataLength: compressed, headers included). The share UI: whatever the view loads from
 * folio's origin outside /v/ (the page, its scripts and styles, the bridge, its API calls).
 * Cold: a new browser context, cache disabled; warm: the same page navigated again, cache on.
 */
export async function benchViewerFirstView(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading("13. A viewer's first view through a slow link (Chromium, 150 ms RTT, 10/5 Mbit/s)")
  const dir = await ctx.tmpDir('first-view')
  const contents = await prepareContents(dir)

  const folio = await startFolio('folio', join(dir, 'data'), NO_RATE_LIMITS)
  const ids = new Map<string, string>()
  for (const content of contents) ids.set(content.name, await publishWithCli(folio.url, content.folder, await ctx.tmpDir('first-view-cli')))
  const statics = new Map<string, ServerChild>()
  for (const c of contents)
    statics.set(c.name, await startJsonLineServer(`static ${c.name}`, process.execPath, [join(ROOT, 'test/bench/static-server.mjs'), c.folder]))
  // Chromium reaches each server through its own relay only (the CLI above published directly):
  // the share page and its frame are same-origin with the folio relay's 127.0.0.1:port, which is
  // all folio needs (its pages build their URLs from their location).
  const relays = new Map<string, LatencyRelay>()
  const closeRelays = () => Promise.all([...relays.values()].map((relay) => relay.close()))
  try {
    relays.set('folio', await startLatencyRelay(folio.url, LINK))
    for (const c of contents) relays.set(`static ${c.name}`, await startLatencyRelay(statics.get(c.name)!.url, LINK))
  } catch (error) {
    await closeRelays()
    throw error
  }
  const targetFor = (name: TargetName, content: Content): Target =>
    name === 'folio'
      ? { name, url: `${relays.get('folio')!.url}/share/${ids.get(content.name)}` }
      : { name, url: `${relays.get(`static ${content.name}`)!.url}/` }

  const { browser, source } = await launchChromium([OFFLINE_WEB]).catch(async (error: Error) => {
    await closeRelays()
    throw error
  })
  report.log(`  ${source}; cold = a new browser context (empty cache), warm = the same page navigated again`)
  report.log(
    `  link: a TCP relay in front of each server, ${RTT_MS} ms round trip (+1 for a new connection's handshake), ${LINK.downMbps}/${LINK.upMbps} Mbit/s per connection`,
  )
  report.log(`  contents: ${contents.map((c) => c.label).join('; ')}`)
  const samples: Record<string, ViewFigures[]> = {}
  const waterfalls: Record<string, string[]> = {}
  const warmUiDownloads: Record<string, string[]> = {}
  try {
    // Warm-up, not measured: the servers' own first-request costs (templates read, chunks
    // loaded, caches filled) are paid once per server, not by each viewer.
    for (const content of contents) for (const name of ['folio', 'static'] as const) await measureTwice(targetFor(name, content), content)
    for (let round = 0; round < ctx.rounds; round++) {
      const order: TargetName[] = round % 2 === 0 ? ['folio', 'static'] : ['static', 'folio']
      for (const content of contents) {
        for (const name of order) {
          const { cold, warm } = await measureTwice(targetFor(name, content), content, round === ctx.rounds - 1 ? `${name} ${content.name}` : undefined)
          ;(samples[key(name, content.name, 'cold')] ??= []).push(cold)
          ;(samples[key(name, content.name, 'warm')] ??= []).push(warm)
        }
      }
      report.log(
        `  round ${round + 1}/${ctx.rounds}: ${contents.map((c) => `${c.name} cold folio ${ms(samples[key('folio', c.name, 'cold')]!.at(-1)!.contentMs)} / static ${ms(samples[key('static', c.name, 'cold')]!.at(-1)!.contentMs)}`).join(', ')}`,
      )
    }
  } finally {
    await browser.close()
    await closeRelays()
  }

  /** A view that never shows its content is a problem to report, not the end of the section: once, it is measured again in a new context. */
  async function measureTwice(target: Target, content: Content, waterfallName?: string): Promise<{ cold: ViewFigures; warm: ViewFigures }> {
    try {
      return await measurePair(target, content, waterfallName)
    } catch (error) {
      report.problem(`13 first view, measured again: ${(error as Error).message}`)
      report.log(`  ${target.name} ${content.name}: ${(error as Error).message.slice(0, 300)}…; measuring again`)
      return measurePair(target, content, waterfallName)
    }
  }

  /**
   * The folio is viewed twice, each time in a new context: once timed (the frame's requests not
   * followed, so nothing pauses it) and once counted (its frame followed over CDP). The static
   * page has no frame: one view is both.
   */
  async function measurePair(target: Target, content: Content, waterfallName?: string): Promise<{ cold: ViewFigures; warm: ViewFigures }> {
    const timed = await viewColdThenWarm(target, content, { followFrames: false })
    if (target.name === 'static') {
      keepWaterfalls(target, content, timed, waterfallName)
      return { cold: timed.cold.figures, warm: timed.warm.figures }
    }
    const counted = await viewColdThenWarm(target, content, { followFrames: true })
    keepWaterfalls(target, content, counted, waterfallName)
    const timesOf = (f: ViewFigures) => ({ contentMs: f.contentMs, fcpMs: f.fcpMs, markerMs: f.markerMs })
    return {
      cold: { ...counted.cold.figures, ...timesOf(timed.cold.figures) },
      warm: { ...counted.warm.figures, ...timesOf(timed.warm.figures) },
    }
  }

  type Measured = Awaited<ReturnType<typeof measureView>>
  function keepWaterfalls(target: Target, content: Content, views: { cold: Measured; warm: Measured }, waterfallName?: string): void {
    if (!waterfallName) return
    waterfalls[`${waterfallName} cold`] = views.cold.waterfall
    waterfalls[`${waterfallName} warm`] = views.warm.waterfall
    if (target.name === 'folio') warmUiDownloads[content.name] = views.warm.uiDownloaded
  }

  async function viewColdThenWarm(target: Target, content: Content, options: { followFrames: boolean }): Promise<{ cold: Measured; warm: Measured }> {
    const context = await browser.newContext()
    try {
      await context.addInitScript({ content: `(${PAINT_PROBE})(${JSON.stringify({ selector: content.marker, inFrame: target.name === 'folio' })})` })
      const page = await context.newPage()
      // The context's cache starts empty; disabled for the cold view all the same. DevTools'
      // "disable cache" only keeps responses from being read: they are still stored, and the
      // warm view, with the cache on, finds them.
      const net = await NetworkLog.attach(page, { cacheDisabled: true, followFrames: options.followFrames })
      const cold = await measureView(page, net, target, `${target.name} ${content.name} cold`)
      net.reset()
      await net.setCacheDisabled(false)
      const warm = await measureView(page, net, target, `${target.name} ${content.name} warm`)
      if (net.childErrors.length)
        report.problem(`13 first view, ${target.name} ${content.name}: CDP in the folio's frame: ${net.childErrors.slice(0, 3).join('; ')}`)
      await net.close()
      return { cold, warm }
    } finally {
      await context.close()
    }
  }

  report.log(`  the relays' own error (timers late, worst): ${[...relays].map(([k, r]) => `${k} ${Math.round(r.stats.maxLateMs)} ms`).join(', ')}`)
  const med = (name: TargetName, content: Content, view: ViewName) => medianFigures(samples[key(name, content.name, view)]!)
  const rows: string[][] = []
  for (const content of contents) {
    for (const view of ['cold', 'warm'] as const) {
      for (const name of ['static', 'folio'] as const) {
        const f = med(name, content, view)
        rows.push([
          `${content.name} ${view} ${name}`,
          ms(f.contentMs),
          ms(f.fcpMs),
          `${f.requests}${f.cacheHits ? ` +${f.cacheHits} cached` : ''}`,
          kb(f.bytes),
          name === 'folio' ? `${f.uiRequests} / ${kb(f.uiBytes)}` : '-',
          name === 'folio' ? `${f.uiAllRequests} / ${kb(f.uiAllBytes)} / ${kb(f.uiAllDecodedBytes)}` : '-',
          `${f.filesDownloaded} / ${f.filesRevalidated} / ${f.filesCached}`,
          `${f.allRequests} / ${kb(f.allBytes)}`,
        ])
      }
    }
  }
  report.log()
  report.log(
    `  medians of ${ctx.rounds} round(s). "Before": requests to the server that started before the content was painted. KB as on the wire (compressed, headers`,
  )
  report.log('  included); "raw": the bodies decoded. Whole view: until the network was quiet for 1 s after the content (open event streams aside).')
  report.table(
    [
      'view',
      'content at',
      'FCP',
      'req before',
      'KB before',
      'share UI before: req / KB',
      'share UI whole view: req / KB / raw',
      "folio's files: 200 / 304 / cache",
      'whole view: req / KB',
    ],
    rows,
  )

  const [onePage, reveal] = contents as [Content, Content]
  report.log()
  for (const content of contents) {
    const f = med('folio', content, 'warm')
    const s = med('static', content, 'warm')
    const ui = warmUiDownloads[content.name] ?? []
    report.log(
      `  warm, ${content.name}: ${f.requests} requests before the content (static ${s.requests}); the folio's own files: ${f.filesDownloaded} downloaded again, ${f.filesRevalidated} revalidated (304), ${f.filesCached} from the cache (static ${s.filesDownloaded} / ${s.filesRevalidated} / ${s.filesCached}); share UI files downloaded again: ${f.uiAssetsDownloaded}${ui.length ? ` (${ui.join(', ')})` : ''}`,
    )
  }
  // Measured here (Chromium 156): a sandboxed frame without allow-same-origin has an opaque
  // origin, and Chromium gives an opaque origin's requests a transient cache partition (and
  // sockets of their own): whatever their Cache-Control, the files the frame loads are not
  // found in the HTTP cache on the next view. The frame's own document is (it is fetched for the page).
  if (contents.some((c) => med('folio', c, 'warm').filesDownloaded + med('folio', c, 'warm').uiAssetsDownloaded > 0)) {
    report.log("  (files the sandboxed frame loads itself come from a transient cache partition: an opaque origin's requests are not cached across views)")
  }

  const section = '13 first view'
  const coldOne = med('folio', onePage, 'cold')
  const checks = [
    report.check({
      section,
      name: 'requests before the content, one-page, cold',
      value: coldOne.requests,
      unit: 'requests',
      goal: { op: '<=', value: 6, unit: 'requests' },
      detail: `share UI ${coldOne.uiRequests} + the folio's ${coldOne.requests - coldOne.uiRequests}; static server ${med('static', onePage, 'cold').requests}`,
    }),
    report.check({
      section,
      name: "share UI's own bytes, one-page, cold",
      value: coldOne.uiAllBytes / 1024,
      unit: 'KB',
      goal: { op: '<=', value: 35, unit: 'KB' },
      detail: `compressed as sent, ${coldOne.uiAllRequests} requests (${kb(coldOne.uiAllDecodedBytes)} KB decoded); ${kb(coldOne.uiBytes)} KB before the content`,
    }),
    ...[onePage, reveal].map((content) => {
      const f = med('folio', content, 'cold').contentMs
      const s = med('static', content, 'cold').contentMs
      return report.check({
        section,
        name: `time to content over static, ${content.name}, cold`,
        value: f - s,
        unit: 'ms',
        goal: { op: '<=', value: 2 * RTT_MS, unit: 'ms' },
        detail: `folio ${ms(f)} / static ${ms(s)} (${(f / s).toFixed(2)}×)`,
      })
    }),
  ]
  for (const content of [onePage, reveal]) {
    const f = med('folio', content, 'warm')
    report.check({
      section,
      name: `folio's unchanged files downloaded again, ${content.name}, warm`,
      value: f.filesDownloaded,
      unit: 'files',
      detail: `${f.filesRevalidated} revalidated (304), ${f.filesCached} from cache, ${f.requests} requests before the content; share UI files downloaded again ${f.uiAssetsDownloaded}`,
    })
  }
  report.log()
  report.table(
    ['goal', 'value', 'goal', 'result', 'from'],
    checks.map((c) => [c.name, formatValue(c.value, c.unit), goalText(c.goal), verdict(c), c.detail]),
  )
  for (const name of ['folio one-page cold', 'folio one-page warm']) {
    report.log()
    report.log(
      `  ${name} (last round, the counted view: its frame paused while followed), ms from navigation start: start → end, KB on the wire, status, request`,
    )
    for (const line of waterfalls[name] ?? []) report.log(`    ${line}`)
  }
  const skew = Math.max(
    ...Object.values(samples)
      .flat()
      .map((f) => Math.abs(f.clockSkewMs)),
  )
  if (skew > 20) report.problem(`13 first view: the folio frame's clock and the page's differ by up to ${ms(skew)} (times inside the frame are that uncertain)`)
  if (folio.stderr().trim()) report.problem(`13 first view, folio stderr: ${folio.stderr().trim().slice(-500)}`)

  report.sections.viewerFirstView = {
    conditions: { rttMs: RTT_MS, downMbps: 10, upMbps: 5, chromium: source },
    contents: contents.map((c) => ({ name: c.name, label: c.label, marker: c.marker })),
    medians: Object.fromEntries(Object.entries(samples).map(([k, list]) => [k, medianFigures(list)])),
    samples,
    waterfalls,
  }
  await Promise.all([folio.stop(), ...[...statics.values()].map((s) => s.stop())])
}

/** What the share page asks its API (and beacons): data, not the UI's own files. */
const API_TYPES = new Set(['Fetch', 'XHR', 'EventSource', 'Ping', 'Preflight', 'WebSocket'])

const key = (target: TargetName, content: string, view: ViewName) => `${target} ${content} ${view}`
const ms = (value: number) => `${Math.round(value)} ms`
const kb = (bytes: number) => (bytes / 1024).toFixed(1)

function medianFigures(list: ViewFigures[]): ViewFigures {
  return Object.fromEntries(Object.keys(list[0]!).map((k) => [k, medianOf(list.map((f) => f[k as keyof ViewFigures]))])) as unknown as ViewFigures
}

/**
 * One view: navigate, wait until the content is painted, then until the network is quiet
 * (open streams aside), and reckon what went over the wire.
 */
async function measureView(
  page: Page,
  net: NetworkLog,
  target: Target,
  view: string,
): Promise<{ figures: ViewFigures; waterfall: string[]; uiDownloaded: string[] }> {
  const { url } = target
  await page.goto(url, { waitUntil: 'commit', timeout: CONTENT_TIMEOUT_MS })
  const { frame, paint } = await waitForContent(page, target, view).catch((error: Error) => {
    // What went wrong on the way is usually in the network: a request that failed, or one that never ended.
    const list = (rs: NetRequest[]) => rs.map((r) => `${r.method} ${r.url} ${r.failed ?? r.status ?? 'no answer'}`).join(', ')
    const failed = net.requests().filter((r) => r.failed || (r.status ?? 0) >= 400)
    const open = net.requests().filter((r) => !r.finished && r.type !== 'EventSource')
    throw new Error(`${error.message}${failed.length ? `; failed: ${list(failed)}` : ''}${open.length ? `; never finished: ${list(open)}` : ''}`)
  })
  const settleBy = performance.now() + SETTLE_MAX_MS
  while (!net.settled(SETTLE_QUIET_MS) && performance.now() < settleBy) await sleep(100)

  const top = (await page.evaluate(`({ timeOrigin: performance.timeOrigin, fetchStart: performance.getEntriesByType('navigation')[0].fetchStart })`)) as {
    timeOrigin: number
    fetchStart: number
  }
  const origin = new URL(url).origin
  const all = net.requests()
  const mine = all.filter((r) => r.url.startsWith(`${origin}/`))
  const nav = mine.find((r) => r.type === 'Document' && r.url === url)
  if (!nav) throw new Error(`No navigation request for ${url} among ${mine.length} requests`)
  // Request times: CDP's monotonic clock, anchored on the page's navigation request (≈ its fetchStart).
  const at = (seconds: number) => (seconds - nav.startedAt) * 1000 + top.fetchStart
  // Paint times: the frame's own clock, moved to the page's with performance.timeOrigin.
  const shift = paint.timeOrigin - top.timeOrigin
  const fcpMs = paint.fcp + shift
  const markerMs = paint.marker + shift
  const contentMs = Math.max(fcpMs, markerMs)
  let clockSkewMs = 0
  if (frame !== page.mainFrame()) {
    const frameNav = mine.find((r) => r.type === 'Document' && r.url === frame.url())
    if (frameNav) clockSkewMs = at(frameNav.startedAt) - (paint.fetchStart + shift)
  }

  const isFile = (r: NetRequest) => target.name === 'static' || new URL(r.url).pathname.startsWith('/v/')
  const wire = (r: NetRequest) => (r.cache ? 0 : r.encodedBytes)
  const sum = (list: NetRequest[], f: (r: NetRequest) => number) => list.reduce((n, r) => n + f(r), 0)
  const before = mine.filter((r) => at(r.startedAt) < contentMs)
  const networkBefore = before.filter((r) => !r.cache)
  const ui = mine.filter((r) => !isFile(r))
  const uiBefore = networkBefore.filter((r) => !isFile(r))
  const files = mine.filter(isFile)
  const revalidated = (r: NetRequest) => !r.cache && (r.wireStatus ?? r.status) === 304
  const uiAssetsDownloaded = ui.filter((r) => r !== nav && !API_TYPES.has(r.type) && !r.cache && !revalidated(r))
  const figures: ViewFigures = {
    contentMs,
    fcpMs,
    markerMs,
    requests: networkBefore.length,
    bytes: sum(networkBefore, wire),
    cacheHits: before.length - networkBefore.length,
    uiRequests: uiBefore.length,
    uiBytes: sum(uiBefore, wire),
    uiAllRequests: ui.filter((r) => !r.cache).length,
    uiAllBytes: sum(ui, wire),
    uiAllDecodedBytes: sum(ui, (r) => r.decodedBytes),
    filesDownloaded: files.filter((r) => !r.cache && !revalidated(r)).length,
    filesRevalidated: files.filter(revalidated).length,
    filesCached: files.filter((r) => r.cache).length,
    uiAssetsDownloaded: uiAssetsDownloaded.length,
    allRequests: mine.filter((r) => !r.cache).length,
    allBytes: sum(mine, wire),
    blockedElsewhere: all.filter((r) => !r.url.startsWith(`${origin}/`) && /^https?:/.test(r.url) && r.failed).length,
    clockSkewMs,
  }
  const waterfall = [...mine]
    .sort((a, b) => a.startedAt - b.startedAt)
    .map((r) => {
      const end = r.endedAt === undefined ? '(open)' : `${Math.round(at(r.endedAt))}`.padStart(6)
      const status = r.cache ? `${r.cache} cache` : String(r.wireStatus ?? r.status ?? r.failed ?? '-')
      const path = new URL(r.url).pathname.replace(/^\/(share|v|api\/files)\/[^/]+/, '/$1/{id}')
      return `${`${Math.round(at(r.startedAt))}`.padStart(6)} → ${end}  ${kb(wire(r)).padStart(6)}  ${status.padEnd(12)} ${r.method} ${path}${at(r.startedAt) >= contentMs ? '   (after the content)' : ''}`
    })
  waterfall.push(`content painted at ${Math.round(contentMs)} (FCP ${Math.round(fcpMs)}, marker visible ${Math.round(markerMs)})`)
  const uiDownloaded = uiAssetsDownloaded.map((r) => new URL(r.url).pathname)
  return { figures, waterfall, uiDownloaded }
}

interface Paint {
  fcp: number
  marker: number
  timeOrigin: number
  fetchStart: number
}

/** Polls the frame that holds the content (folio: the frame under /v/; static: the page) until PAINT_PROBE saw it painted. */
async function waitForContent(page: Page, target: Target, view: string): Promise<{ frame: Frame; paint: Paint }> {
  const deadline = performance.now() + CONTENT_TIMEOUT_MS
  let last = 'no frame yet'
  while (performance.now() < deadline) {
    const frame = target.name === 'static' ? page.mainFrame() : page.frames().find((f) => f.url().includes('/v/'))
    if (frame) {
      const state = (await frame.evaluate(READ_PROBE).catch((error: Error) => ({ error: error.message }))) as Partial<Paint> & { error?: string }
      if (state && typeof state.fcp === 'number' && typeof state.marker === 'number') return { frame, paint: state as Paint }
      last = `${frame.url()}: ${JSON.stringify(state)}`
    }
    await sleep(25)
  }
  const frames = page.frames().map((f) => f.url())
  throw new Error(`${view}: the content of ${page.url()} was not painted within ${CONTENT_TIMEOUT_MS / 1000} s (${last}; frames: ${frames.join(', ')})`)
}

/**
 * Runs in every document of the view before its own scripts (an init script), in the one that
 * holds the content only (the frame for folio, the page for the static server): records the
 * first contentful paint and the first animation frame at which the marker element is visible
 * (rendered, not transparent, inside the viewport), both on the document's own clock.
 * Plain JavaScript in a string: tsx's helpers must not leak into the page.
 */
const PAINT_PROBE = `function ({ selector, inFrame }) {
  if ((window === window.top) === inFrame) return;
  const state = { selector, fcp: null, marker: null };
  Object.defineProperty(window, '__benchPaint', { value: state });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') state.fcp = entry.startTime;
  }).observe({ type: 'paint', buffered: true });
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth &&
      el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  };
  const tick = () => {
    const el = document.querySelector(selector);
    if (el && visible(el)) state.marker = performance.now();
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}`

const READ_PROBE = `(() => {
  const s = window.__benchPaint;
  const nav = performance.getEntriesByType('navigation')[0];
  return s ? { fcp: s.fcp, marker: s.marker, timeOrigin: performance.timeOrigin, fetchStart: nav ? nav.fetchStart : 0,
    found: Boolean(document.querySelector(s.selector)), ready: document.readyState, visibility: document.visibilityState, size: innerWidth + 'x' + innerHeight } : null;
})()`

/** The two contents, each a folder: published as is with the CLI, and served as is by the static server. */
async function prepareContents(dir: string): Promise<Content[]> {
  const onePage = join(dir, 'one-page')
  await mkdir(onePage, { recursive: true })
  await writeFile(
    join(onePage, 'index.html'),
    `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Quarterly review</title>
</head>
<body>
  <h1>Quarterly review</h1>
  <p>Revenue grew in every region this quarter; retention held, and the new onboarding funnel halved the time to a first report.</p>
</body>
</html>
`,
  )
  // reveal.js's own demo, as its package ships it: demo.html as the page, dist/ beside it.
  const reveal = join(dir, 'reveal')
  const pkg = join(ROOT, 'node_modules/reveal.js')
  await mkdir(reveal, { recursive: true })
  await cp(join(pkg, 'demo.html'), join(reveal, 'index.html'))
  await cp(join(pkg, 'dist'), join(reveal, 'dist'), { recursive: true })
  return [
    { name: 'one-page', label: 'one-page: index.html with an <h1> and a paragraph', folder: onePage, marker: 'h1' },
    {
      name: 'reveal',
      label: "reveal: reveal.js's demo.html + dist/ (first slide's heading, once .reveal.ready)",
      folder: reveal,
      marker: '.reveal.ready .slides > section.present h3',
    },
  ]
}

/** As a user publishes a folder: `folio create --dir … --publish`, with the built CLI. */
async function publishWithCli(serverUrl: string, folder: string, configDir: string): Promise<string> {
  const env = { ...process.env, FOLIO_URL: serverUrl, FOLIO_CONFIG_DIR: configDir, FOLIO_API_KEY: '' }
  const { stdout } = await run(process.execPath, [join(ROOT, 'bin/folio.mjs'), 'create', '--dir', folder, '--publish', '--json'], {
    env,
    maxBuffer: 16 * 1024 * 1024,
  })
  const created = JSON.parse(stdout) as { id: string; status: string; files: number }
  if (created.status !== 'published') throw new Error(`folio create --publish left ${created.id} as ${created.status}`)
  return created.id
}
