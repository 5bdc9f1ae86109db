import { compareAlternating, cpuNote, fmt, problemsOf } from '../lib/autocannon.js'
import { type BenchContext, SMALL_HTML } from '../lib/context.js'
import { fillStore, startFolio } from '../lib/folio.js'
import { getText } from '../lib/http.js'
import { rssBytes } from '../lib/processes.js'
import { verdict } from '../lib/report.js'

const SECTION = '3 folios'
const FEW = 10
const MANY = 10_000
const RSS_GOAL_MB = 200

/**
 * Section 3: does reading one folio get slower, or the server fatter, when the store holds
 * many folios? Same small folio, GET against a store of 10 vs one of 10,000; then the memory
 * of the big one, before and after listing every folio (GET /api/files).
 */
export async function benchManyFolios(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading(`3. GET one folio: store of ${FEW} folios vs ${fmt(MANY)} folios; memory`)
  const fewDir = await ctx.tmpDir('few-folios')
  const manyDir = await ctx.tmpDir('many-folios')
  const few = await fillStore(fewDir, FEW, SMALL_HTML)
  const many = await fillStore(manyDir, MANY, SMALL_HTML)
  report.log(`  stores filled in-process: ${FEW} folios in ${(few.ms / 1000).toFixed(1)} s, ${fmt(MANY)} in ${(many.ms / 1000).toFixed(1)} s`)

  const fewServer = await startFolio(`folio (${FEW})`, fewDir)
  const manyServer = await startFolio(`folio (${fmt(MANY)})`, manyDir)
  const rssAtStart = rssBytes(manyServer.pid)
  const fewTarget = { name: `${FEW} folios`, url: `${fewServer.url}/api/files/${few.targetId}`, pid: fewServer.pid }
  const manyTarget = { name: `${fmt(MANY)} folios`, url: `${manyServer.url}/api/files/${many.targetId}`, pid: manyServer.pid }
  const comparison = await compareAlternating([fewTarget, manyTarget], {
    connections: 50,
    duration: ctx.duration,
    rounds: ctx.rounds,
    warmup: ctx.warmup,
    log: (l) => report.log(l),
  })
  const fewRps = comparison.median[fewTarget.name] ?? NaN
  const manyRps = comparison.median[manyTarget.name] ?? NaN

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
    value: manyRps / fewRps,
    unit: '×',
    goal: { op: '>=', value: 0.9, unit: '×' },
    detail: `${fmt(manyRps)} / ${fmt(fewRps)} req/s`,
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
  report.log(`  median CPU, one core = 100%: ${cpuNote(comparison)}`)
  report.log()
  report.table(
    ['memory of the 10,000-folio server', 'RSS', 'peak RSS (VmHWM)', 'goal', 'result'],
    [
      ['at start', mb(rssAtStart.rss), mb(rssAtStart.peak), '', ''],
      ['after the GET rounds', mb(rssAfterGets.rss), mb(rssAfterGets.peak), `< ${RSS_GOAL_MB} MB`, verdict(rssGets)],
      [`after GET /api/files (${fmt(listMs)} ms, ${fmt(list.length)} items)`, mb(rssAfterList.rss), mb(rssAfterList.peak), `< ${RSS_GOAL_MB} MB`, verdict(rssList)],
      [`after a second GET /api/files (${fmt(secondListMs)} ms)`, mb(rssAfterSecondList.rss), mb(rssAfterSecondList.peak), '', ''],
    ],
  )
  // RSS includes garbage V8 has not collected yet: it moves with GC timing from run to run.
  report.log(`  (RSS counts uncollected garbage too, so it varies between runs; list response ${fmt(listBytes)} bytes)`)

  for (const [name, results] of Object.entries(comparison.rounds)) {
    const p = problemsOf(results)
    if (p.non2xx || p.errors || p.timeouts) report.problem(`section 3, ${name}: non-2xx ${p.non2xx}, errors ${p.errors}, timeouts ${p.timeouts} (${JSON.stringify(p.statusCodes)})`)
  }
  for (const server of [fewServer, manyServer]) {
    if (server.stderr().trim()) report.problem(`section 3, ${server.name} stderr: ${server.stderr().trim().slice(-500)}`)
  }

  report.sections.manyFolios = {
    fillSeconds: { few: few.ms / 1000, many: many.ms / 1000 },
    medians: comparison.median,
    rounds: comparison.rounds,
    rssBytes: { atStart: rssAtStart, afterGets: rssAfterGets, afterList: rssAfterList, afterSecondList: rssAfterSecondList },
    listMs,
    listBytes,
    secondListMs,
    listedItems: list.length,
  }
  await Promise.all([fewServer.stop(), manyServer.stop()])
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
