import { writeFile } from 'node:fs/promises'
import autocannon from 'autocannon'
import { join } from 'node:path'
import { compareAlternating, cpuNote, fmt, load, medianOf, problemsOf } from '../lib/autocannon.js'
import { type BenchContext, SMALL_HTML } from '../lib/context.js'
import { fillStore, NO_RATE_LIMITS, ROOT, startFolio } from '../lib/folio.js'
import { freePort, sleep, startJsonLineServer, startPolledServer } from '../lib/processes.js'
import { verdict } from '../lib/report.js'

const SECTION = '9 list'
const FOLIOS = 100

/**
 * Section 9: GET /api/files of a workspace of 100 folios, against a raw node:http server
 * answering the very same bytes from memory, and json-server v1 answering the same 100 items
 * as its `posts` collection (GET /posts).
 */
export async function benchList(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading(`9. GET /api/files (${FOLIOS} folios) vs raw node:http vs json-server GET /posts`)
  const dir = await ctx.tmpDir('list-vs-raw')
  const dataDir = join(dir, 'data')
  await fillStore(dataDir, FOLIOS, SMALL_HTML)

  const folio = await startFolio('folio', dataDir, NO_RATE_LIMITS)
  const listUrl = `${folio.url}/api/files`
  // One published folio takes the beacons of the last measurement.
  const beaconTarget = ((await (await fetch(listUrl)).json()) as Array<{ id: string }>)[0]!.id
  const published = await fetch(`${listUrl}/${beaconTarget}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'published' }),
  })
  if (!published.ok) throw new Error(`PUT /api/files/${beaconTarget}: ${published.status} ${await published.text()}`)
  const firstResponse = await fetch(listUrl)
  const first = Buffer.from(await firstResponse.arrayBuffer())
  const etag = firstResponse.headers.get('etag')
  const second = Buffer.from(await (await fetch(listUrl)).arrayBuffer())
  if (!first.equals(second)) report.problem('section 9: two GETs of an unchanged list returned different bytes')
  const items = JSON.parse(first.toString('utf8')) as unknown[]
  if (items.length !== FOLIOS) throw new Error(`GET /api/files listed ${items.length} folios, expected ${FOLIOS}`)

  const bodyFile = join(dir, 'list.json')
  await writeFile(bodyFile, first)
  const raw = await startJsonLineServer('raw', process.execPath, [join(ROOT, 'test/bench/raw-server.mjs'), bodyFile])
  const rawUrl = `${raw.url}/api/files`
  if (!Buffer.from(await (await fetch(rawUrl)).arrayBuffer()).equals(first)) throw new Error('The raw server does not answer the bytes folio answered')

  const dbFile = join(dir, 'db.json')
  await writeFile(dbFile, JSON.stringify({ posts: items }, null, 2))
  const port = await freePort()
  const jsonServerUrl = `http://127.0.0.1:${port}/posts`
  const jsonServer = await startPolledServer(
    'json-server',
    process.execPath,
    [join(ROOT, 'node_modules/json-server/lib/bin.js'), dbFile, '--port', String(port), '--host', '127.0.0.1'],
    jsonServerUrl,
    { cwd: dir },
  )
  const jsonServerBytes = (await (await fetch(jsonServerUrl)).arrayBuffer()).byteLength
  report.log(
    `  list body ${fmt(first.length)} bytes for ${FOLIOS} folios, ETag ${etag ?? '(none)'}; json-server answers the same items in ${fmt(jsonServerBytes)} bytes`,
  )

  const comparison = await compareAlternating(
    [
      { name: 'raw', url: rawUrl, pid: raw.pid },
      { name: 'folio', url: listUrl, pid: folio.pid },
      { name: 'json-server', url: jsonServerUrl, pid: jsonServer.pid },
    ],
    { connections: 50, duration: ctx.duration, rounds: ctx.rounds, warmup: ctx.warmup, log: (l) => report.log(l) },
  )
  const { raw: rawRps = NaN, folio: folioRps = NaN, 'json-server': jsonRps = NaN } = comparison.median

  const vsRaw = report.check({
    section: SECTION,
    name: `list of ${FOLIOS} vs raw node:http`,
    value: folioRps / rawRps,
    unit: '×',
    goal: { op: '>=', value: 0.85, unit: '×' },
    detail: `folio ${fmt(folioRps)} / raw ${fmt(rawRps)} req/s`,
  })
  const vsJsonServer = report.check({
    section: SECTION,
    name: `list of ${FOLIOS} vs json-server GET /posts`,
    value: folioRps / jsonRps,
    unit: '×',
    goal: { op: '>=', value: 1.5, unit: '×' },
    detail: `folio ${fmt(folioRps)} / json-server ${fmt(jsonRps)} req/s`,
  })
  report.log()
  report.table(
    ['comparison', 'baseline req/s', 'measured req/s', 'ratio', 'goal', 'result'],
    [
      ['folio vs raw', fmt(rawRps), fmt(folioRps), `${vsRaw.value.toFixed(2)}×`, '>= 0.85×', verdict(vsRaw)],
      ['folio vs json-server', fmt(jsonRps), fmt(folioRps), `${vsJsonServer.value.toFixed(2)}×`, '>= 1.5×', verdict(vsJsonServer)],
    ],
  )
  report.log(`  median CPU, one core = 100%: ${cpuNote(comparison)}`)

  for (const [name, results] of Object.entries(comparison.rounds)) {
    const p = problemsOf(results)
    if (p.non2xx || p.errors || p.timeouts)
      report.problem(`section 9, ${name}: non-2xx ${p.non2xx}, errors ${p.errors}, timeouts ${p.timeouts} (${JSON.stringify(p.statusCodes)})`)
  }
  if (folio.stderr().trim()) report.problem(`section 9, folio stderr: ${folio.stderr().trim().slice(-500)}`)

  const underBeacons = await listUnderBeacons(ctx, listUrl, `${folio.url}/api/files/${beaconTarget}/analytics`, folio.pid)

  report.sections.list = { folios: FOLIOS, bodyBytes: first.length, jsonServerBytes, etag, medians: comparison.median, rounds: comparison.rounds, underBeacons }
  await Promise.all([folio.stop(), raw.stop(), jsonServer.stop()])
}

const BEACONS_PER_SECOND = 500

/**
 * Every beacon changes a list item (analytics), so it drops the kept list: the next GET
 * rebuilds it. How much of the list's speed is left while a workspace's folio takes beacons at
 * a steady 500/s (informational: no goal). Alternating rounds, alone and with beacons; the
 * beacons come from autocannon too, at a fixed rate over 50 connections (each waits for its
 * beacon's group commit).
 */
async function listUnderBeacons(ctx: BenchContext, listUrl: string, beaconUrl: string, pid: number) {
  const { report } = ctx
  report.log()
  report.log(`  the list while one folio of the workspace takes ${BEACONS_PER_SECOND} beacons/s (each one drops the kept list):`)
  const alone: number[] = []
  const withBeacons: number[] = []
  let beaconsAnswered = 0
  const list = { name: 'list', url: listUrl, pid }
  const options = { connections: 50, duration: ctx.duration }
  for (let round = 0; round < ctx.rounds; round++) {
    alone.push((await load(list, options)).reqPerSec)
    await sleep(250)
    const [result, beacons] = await Promise.all([load(list, options), steadyBeacons(beaconUrl, ctx.duration)])
    beaconsAnswered += beacons
    withBeacons.push(result.reqPerSec)
    report.log(
      `  round ${round + 1}: list alone ${fmt(alone.at(-1)!)} req/s, with beacons ${fmt(result.reqPerSec)} req/s (CPU server ${Math.round((result.serverCpu ?? NaN) * 100)}%), ${fmt(beacons / ctx.duration)} beacons/s answered`,
    )
    await sleep(250)
  }
  const ratio = medianOf(withBeacons) / medianOf(alone)
  report.log(`  median: ${fmt(medianOf(withBeacons))} / ${fmt(medianOf(alone))} req/s = ${ratio.toFixed(2)}× of the list alone`)
  return { alone, withBeacons, ratio, beaconsAnswered }
}

/** Beacons at a steady rate for `duration` seconds; resolves with how many were answered 2xx. */
async function steadyBeacons(url: string, duration: number): Promise<number> {
  const { origin, pathname } = new URL(url)
  const body = JSON.stringify({ isInitial: true, device: 'desktop', sessionSeconds: 3 })
  const result = await autocannon({
    url: origin,
    connections: 50,
    duration,
    overallRate: BEACONS_PER_SECOND,
    requests: [{ method: 'POST', path: pathname, headers: { 'content-type': 'application/json' }, body }],
  })
  return result['2xx']
}
