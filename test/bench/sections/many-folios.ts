import { join } from 'node:path'
import { fmt, type LoadResult, medianOf, problemsOf } from '../lib/autocannon.js'
import { type BenchContext, SMALL_HTML } from '../lib/context.js'
import { fillStore, startFolio } from '../lib/folio.js'
import { getText } from '../lib/http.js'
import { rssBytes, type ServerChild, sleep } from '../lib/processes.js'
import { verdict } from '../lib/report.js'
import { loadTogether, pinToOneCore } from '../lib/simultaneous.js'

const SECTION = '3 folios'
const FEW = 10
const MANY = 10_000
const RSS_GOAL_MB = 200

/**
 * Section 3: does reading one folio get slower, or the server fatter, when the store holds
 * many folios? Same small folio, GET against a store of 10 vs one of 10,000, the two servers
 * loaded together; the ratio is the median of the rounds' ratios. Then the memory of the big
 * one, before and after listing every folio (GET /api/files).
 */
export async function benchManyFolios(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading(`3. GET one folio: store of ${FEW} folios vs ${fmt(MANY)} folios, loaded together; memory`)
  // A folder inside the temp dir: the server warns about a data dir that others can read.
  const fewDir = join(await ctx.tmpDir('few-folios'), 'data')
  const manyDir = join(await ctx.tmpDir('many-folios'), 'data')
  const few = await fillStore(fewDir, FEW, SMALL_HTML)
  const many = await fillStore(manyDir, MANY, SMALL_HTML)
  report.log(`  stores filled in-process: ${FEW} folios in ${(few.ms / 1000).toFixed(1)} s, ${fmt(MANY)} in ${(many.ms / 1000).toFixed(1)} s`)

  // Both servers loaded together, a fresh pair each round, both on one core (lib/simultaneous.ts:
  // alternating rounds once swung this ratio to 0.71× with whatever else the machine ran).
  const fewName = `${FEW} folios`
  const manyName = `${fmt(MANY)} folios`
  const rounds: Record<string, LoadResult[]> = { [fewName]: [], [manyName]: [] }
  const ratios: number[] = []
  let pinned = false
  let manyServer: ServerChild | undefined
  let rssAtStart = { rss: NaN, peak: NaN }
  for (let round = 0; round < ctx.rounds; round++) {
    const fewServer = await startFolio(`folio (${FEW})`, fewDir)
    manyServer = await startFolio(`folio (${fmt(MANY)})`, manyDir)
    rssAtStart = rssBytes(manyServer.pid)
    pinned = pinToOneCore([fewServer.pid, manyServer.pid])
    const fewTarget = { name: fewName, url: `${fewServer.url}/api/files/${few.targetId}`, pid: fewServer.pid }
    const manyTarget = { name: manyName, url: `${manyServer.url}/api/files/${many.targetId}`, pid: manyServer.pid }
    // Who is loaded first alternates too: the client serves its connections in some order.
    const order = round % 2 ? [manyTarget, fewTarget] : [fewTarget, manyTarget]
    await loadTogether(order, { connections: 50, duration: ctx.warmup })
    await sleep(250)
    const results = await loadTogether(order, { connections: 50, duration: ctx.duration })
    const [fewResult, manyResult] = order[0] === fewTarget ? results : [results[1]!, results[0]!]
    rounds[fewName]!.push(fewResult!)
    rounds[manyName]!.push(manyResult!)
    ratios.push(manyResult!.reqPerSec / fewResult!.reqPerSec)
    report.log(
      `  round ${round + 1}, together: ${fewName} ${fmt(fewResult!.reqPerSec)} req/s (CPU ${pct(fewResult!.serverCpu)}), ${manyName} ${fmt(manyResult!.reqPerSec)} req/s (CPU ${pct(manyResult!.serverCpu)}), ratio ${ratios.at(-1)!.toFixed(2)}; autocannon ${pct(fewResult!.clientCpu)}`,
    )
    for (const server of [fewServer, manyServer]) {
      if (server.stderr().trim()) report.problem(`section 3, ${server.name} stderr: ${server.stderr().trim().slice(-500)}`)
    }
    await fewServer.stop()
    // The last round's big server stays for the memory figures.
    if (round < ctx.rounds - 1) await manyServer.stop()
  }
  if (!manyServer) throw new Error('section 3 needs at least one round')
  if (!pinned) report.log('  (servers not pinned to one core: taskset missing or one core only; the ratio is noisier)')
  const median = (name: string) => medianOf(rounds[name]!.map((r) => r.reqPerSec))
  const fewRps = median(fewName)
  const manyRps = median(manyName)
  const cpuOf = (name: string) => `${name}: server ${pct(medianOf(rounds[name]!.map((r) => r.serverCpu ?? NaN)))}`

  const rssAfterGets = rssBytes(manyServer.pid)
  const listStart = performance.now()
  const listText = await getText(`${manyServer.url}/api/files`)
  const listBytes = Buffer.byteLength(listText)
  const list = JSON.parse(listText) as unknown[]
  const listMs = performance.now() - listStart
  const rssAfterList = rssBytes(manyServer.pid)
  // The second list shows what the caches buy (metadata and engagement read once).
  const secondStart = performance.now()
  await getText(`${manyServer.url}/api/files`)
  const secondListMs = performance.now() - secondStart
  const rssAfterSecondList = rssBytes(manyServer.pid)
  if (list.length !== MANY) report.problem(`section 3: GET /api/files listed ${list.length} folios, expected ${MANY}`)

  const ratio = report.check({
    section: SECTION,
    name: `GET at ${fmt(MANY)} folios vs at ${FEW}`,
    value: medianOf(ratios),
    unit: '×',
    goal: { op: '>=', value: 0.9, unit: '×' },
    detail: `median of rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}; ${fmt(manyRps)} / ${fmt(fewRps)} req/s`,
  })
  const mbOf = (bytes: number) => bytes / 1024 / 1024
  const rssGets = report.check({
    section: SECTION,
    name: `RSS at ${fmt(MANY)} folios, after the GETs`,
    value: mbOf(rssAfterGets.rss),
    unit: 'MB',
    goal: { op: '<', value: RSS_GOAL_MB, unit: 'MB' },
    detail: `at start ${mbOf(rssAtStart.rss).toFixed(1)} MB`,
  })
  const rssList = report.check({
    section: SECTION,
    name: `RSS at ${fmt(MANY)} folios, after GET /api/files`,
    value: mbOf(rssAfterList.rss),
    unit: 'MB',
    goal: { op: '<', value: RSS_GOAL_MB, unit: 'MB' },
    detail: `peak ${mbOf(rssAfterList.peak).toFixed(1)} MB; list took ${fmt(listMs)} ms`,
  })

  report.log()
  report.table(
    ['comparison', 'baseline req/s', 'measured req/s', 'ratio', 'goal', 'result'],
    [[`${fmt(MANY)} folios vs ${FEW}`, fmt(fewRps), fmt(manyRps), `${ratio.value.toFixed(2)}×`, '>= 0.9×', verdict(ratio)]],
  )
  report.log(`  median CPU, one core = 100%: ${cpuOf(fewName)}, ${cpuOf(manyName)} (both on one core, which they share)`)
  report.log()
  report.table(
    ['memory of the 10,000-folio server', 'RSS', 'peak RSS (VmHWM)', 'goal', 'result'],
    [
      ['at start', mb(rssAtStart.rss), mb(rssAtStart.peak), '', ''],
      ['after the GET rounds', mb(rssAfterGets.rss), mb(rssAfterGets.peak), `< ${RSS_GOAL_MB} MB`, verdict(rssGets)],
      [
        `after GET /api/files (${fmt(listMs)} ms, ${fmt(list.length)} items)`,
        mb(rssAfterList.rss),
        mb(rssAfterList.peak),
        `< ${RSS_GOAL_MB} MB`,
        verdict(rssList),
      ],
      [`after a second GET /api/files (${fmt(secondListMs)} ms)`, mb(rssAfterSecondList.rss), mb(rssAfterSecondList.peak), '', ''],
    ],
  )
  // RSS includes garbage V8 has not collected yet: it moves with GC timing from run to run.
  report.log(`  (RSS counts uncollected garbage too, so it varies between runs; list response ${fmt(listBytes)} bytes)`)

  for (const [name, results] of Object.entries(rounds)) {
    const p = problemsOf(results)
    if (p.non2xx || p.errors || p.timeouts)
      report.problem(`section 3, ${name}: non-2xx ${p.non2xx}, errors ${p.errors}, timeouts ${p.timeouts} (${JSON.stringify(p.statusCodes)})`)
  }
  if (manyServer.stderr().trim()) report.problem(`section 3, ${manyServer.name} stderr after the list: ${manyServer.stderr().trim().slice(-500)}`)

  report.sections.manyFolios = {
    fillSeconds: { few: few.ms / 1000, many: many.ms / 1000 },
    medians: { [fewName]: fewRps, [manyName]: manyRps },
    ratios,
    pinned,
    rounds,
    rssBytes: { atStart: rssAtStart, afterGets: rssAfterGets, afterList: rssAfterList, afterSecondList: rssAfterSecondList },
    listMs,
    listBytes,
    secondListMs,
    listedItems: list.length,
  }
  await manyServer.stop()
}

const pct = (share: number | undefined) => (share === undefined || Number.isNaN(share) ? '-' : `${Math.round(share * 100)}%`)
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
