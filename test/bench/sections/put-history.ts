import { join } from 'node:path'
import { compareAlternating, cpuNote, fmt, problemsOf, type Target } from '../lib/autocannon.js'
import { countingPutBody, EditableDoc } from '../lib/content.js'
import type { BenchContext } from '../lib/context.js'
import { startFolio } from '../lib/folio.js'
import type { ServerChild } from '../lib/processes.js'
import { createFolio, getText, putFiles } from '../lib/http.js'
import { verdict } from '../lib/report.js'

const SECTION = '2 PUT'
const HISTORY = 1000
const CONNECTIONS = 10

/**
 * Section 2: does a write cost more when the folio already has a long history? A PUT of a
 * ~100 KB page on a folio with 1 version vs on one with 1,000. Each request carries different
 * content, so each one stores a new blob and compacts the previous one into a delta, as a real
 * save does.
 */
export async function benchPutHistory(ctx: BenchContext): Promise<void> {
  ctx.report.heading(`2. PUT of a ~100 KB version: folio with 1 version vs ${fmt(HISTORY)} versions`)
  const dir = await ctx.tmpDir('put-history')
  const server = await startFolio('folio', join(dir, 'data'))
  ctx.report.sections.putHistory = await comparePutHistory(ctx, server, SECTION)
  await server.stop()
}

/** PUT at 1 version vs at HISTORY versions on one running server (section 2; section 12 on PostgreSQL). */
export async function comparePutHistory(ctx: BenchContext, server: ServerChild, section: string): Promise<object> {
  const { report } = ctx
  // The long history: each version edits one more line of the page, as successive saves do.
  const doc = new EditableDoc(100 * 1024, 2)
  const freshLines = [...doc.lines]
  const longId = await createFolio(server.url, 'Long history', doc.text())
  const buildStart = performance.now()
  for (let i = 1; i < HISTORY; i++) {
    doc.edit(i)
    await putFiles(server.url, longId, { 'index.html': doc.text() }, `Edit ${i}`)
  }
  const buildS = (performance.now() - buildStart) / 1000
  const before = await versionCount(server.url, longId)
  if (before !== HISTORY) throw new Error(`the long-history folio has ${before} versions, expected ${HISTORY}`)
  report.log(`  built ${fmt(HISTORY - 1)} versions over HTTP, one at a time, in ${buildS.toFixed(1)} s (${fmt((HISTORY - 1) / buildS)} PUT/s sequential)`)

  // Each request's counter rewrites one line in the middle of the folio's current page: a
  // one-line edit against the head, like the history's.
  const counterLine = Math.floor(freshLines.length / 2) + 1
  const freshFolios: string[] = []
  const fresh: Target = {
    name: 'PUT, 1 version',
    url: '',
    method: 'PUT',
    pid: server.pid,
    body: countingPutBody(freshLines, counterLine, 'fresh'),
    // A new folio every round: otherwise this one would have hundreds of versions by round 2.
    beforeRound: async () => {
      const id = await createFolio(server.url, 'Fresh', freshLines.join('\n'))
      freshFolios.push(id)
      fresh.url = `${server.url}/api/files/${id}`
    },
  }
  const long: Target = {
    name: `PUT, ${fmt(HISTORY)} versions`,
    url: `${server.url}/api/files/${longId}`,
    method: 'PUT',
    pid: server.pid,
    body: countingPutBody(doc.lines, counterLine, 'long'),
  }
  const comparison = await compareAlternating([fresh, long], {
    connections: CONNECTIONS,
    duration: ctx.duration,
    rounds: ctx.rounds,
    warmup: ctx.warmup,
    settleMs: 1000,
    log: (l) => report.log(l),
  })
  const freshRps = comparison.median[fresh.name] ?? NaN
  const longRps = comparison.median[long.name] ?? NaN

  // Every 2xx must have made exactly one version. autocannon stops counting at the end of a
  // round while up to CONNECTIONS requests are still in flight; the server finishes them.
  const longOk = [...comparison.warmups[long.name]!, ...comparison.rounds[long.name]!].reduce((s, r) => s + r.ok, 0)
  const added = (await versionCount(server.url, longId)) - HISTORY
  const versionsMatch = added >= longOk && added <= longOk + CONNECTIONS * (ctx.rounds + 1)
  if (!versionsMatch) report.problem(`section ${section}: ${fmt(longOk)} PUTs answered 2xx but the folio gained ${fmt(added)} versions`)

  const check = report.check({
    section,
    name: `PUT at ${fmt(HISTORY)} versions vs at 1`,
    value: longRps / freshRps,
    unit: '×',
    goal: { op: '>=', value: 0.9, unit: '×' },
    detail: `${fmt(longRps)} / ${fmt(freshRps)} req/s`,
  })
  const problems = Object.fromEntries(Object.entries(comparison.rounds).map(([name, results]) => [name, problemsOf(results)]))
  report.log()
  report.table(
    ['comparison', 'baseline req/s', 'measured req/s', 'ratio', 'goal', 'result', 'non-2xx'],
    [
      [
        `${fmt(HISTORY)} versions vs 1`,
        fmt(freshRps),
        fmt(longRps),
        `${check.value.toFixed(2)}×`,
        '>= 0.9×',
        verdict(check),
        `${problems[fresh.name]!.non2xx} / ${problems[long.name]!.non2xx}`,
      ],
    ],
  )
  report.log(`  median CPU, one core = 100%: ${cpuNote(comparison)}`)
  report.log(`  long-history folio: ${fmt(longOk)} PUTs answered 2xx, ${fmt(added)} versions added (${versionsMatch ? 'consistent' : 'MISMATCH'})`)
  for (const [name, p] of Object.entries(problems)) {
    if (p.non2xx || p.errors || p.timeouts)
      report.problem(`section ${section}, ${name}: non-2xx ${p.non2xx}, errors ${p.errors}, timeouts ${p.timeouts} (${JSON.stringify(p.statusCodes)})`)
  }
  if (server.stderr().trim()) report.problem(`section ${section}, folio stderr: ${server.stderr().trim().slice(-500)}`)

  return {
    historyBuildSeconds: buildS,
    medians: comparison.median,
    rounds: comparison.rounds,
    problems,
    longHistory: { okResponses: longOk, versionsAdded: added, consistent: versionsMatch },
    freshFolios: freshFolios.length,
  }
}

async function versionCount(baseUrl: string, id: string): Promise<number> {
  const folio = JSON.parse(await getText(`${baseUrl}/api/files/${id}?files=none`)) as { versionCount: number; versions: unknown[] }
  if (folio.versions.length !== folio.versionCount) throw new Error(`versionCount ${folio.versionCount} but ${folio.versions.length} versions listed`)
  return folio.versionCount
}
