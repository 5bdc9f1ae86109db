import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { compareAlternating, cpuNote, fmt, problemsOf } from '../lib/autocannon.js'
import { type BenchContext, SMALL_HTML } from '../lib/context.js'
import { ROOT, startFolio } from '../lib/folio.js'
import { createFolio } from '../lib/http.js'
import { freePort, startJsonLineServer, startPolledServer } from '../lib/processes.js'
import { verdict } from '../lib/report.js'

const SECTION = '1 GET'

/**
 * Section 1: GET of a small folio against a raw node:http server answering the very same
 * bytes from memory (the ceiling for any Node server on this machine), with json-server v1
 * serving the same folio as a second, real-world reference.
 */
export async function benchGetVsRaw(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading('1. GET /api/files/{id} (small folio) vs raw node:http vs json-server')
  const dir = await ctx.tmpDir('get-vs-raw')

  const folio = await startFolio('folio', join(dir, 'data'))
  const id = await createFolio(folio.url, 'Bench small folio', SMALL_HTML)
  const folioUrl = `${folio.url}/api/files/${id}`
  const firstResponse = await fetch(folioUrl)
  const first = Buffer.from(await firstResponse.arrayBuffer())
  // How the body is framed says which path the server took to send it: a Content-Length means
  // one write of a known string, chunked means the body went through a stream.
  const framing = firstResponse.headers.get('content-length')
    ? 'content-length'
    : `chunked (transfer-encoding: ${firstResponse.headers.get('transfer-encoding') ?? '?'})`
  const second = Buffer.from(await (await fetch(folioUrl)).arrayBuffer())
  if (!first.equals(second)) report.problem('Two GETs of an unchanged folio returned different bytes')

  const bodyFile = join(dir, 'body.json')
  await writeFile(bodyFile, first)
  const raw = await startJsonLineServer('raw', process.execPath, [join(ROOT, 'test/bench/raw-server.mjs'), bodyFile])
  const rawUrl = `${raw.url}/api/files/${id}`
  const rawBody = Buffer.from(await (await fetch(rawUrl)).arrayBuffer())
  if (!rawBody.equals(first)) throw new Error('The raw server does not answer the bytes folio answered')

  // json-server v1 keeps its data in a JSON file: the folio as one item of a "files" collection.
  const dbFile = join(dir, 'db.json')
  await writeFile(dbFile, JSON.stringify({ files: [JSON.parse(first.toString('utf8'))] }, null, 2))
  const port = await freePort()
  const jsonServerUrl = `http://127.0.0.1:${port}/files/${id}`
  // The package's bin run with node directly (what `npx json-server` runs), so the pid we
  // track and kill is the server itself.
  const jsonServer = await startPolledServer(
    'json-server',
    process.execPath,
    [join(ROOT, 'node_modules/json-server/lib/bin.js'), dbFile, '--port', String(port), '--host', '127.0.0.1'],
    jsonServerUrl,
    { cwd: dir },
  )
  report.log(
    `  folio body ${fmt(first.length)} bytes (index.html ${fmt(SMALL_HTML.length)} bytes), framed ${framing}; raw answers the same bytes with content-length`,
  )

  const comparison = await compareAlternating(
    [
      { name: 'raw', url: rawUrl, pid: raw.pid },
      { name: 'folio', url: folioUrl, pid: folio.pid },
      { name: 'json-server', url: jsonServerUrl, pid: jsonServer.pid },
    ],
    { connections: 50, duration: ctx.duration, rounds: ctx.rounds, warmup: ctx.warmup, log: (l) => report.log(l) },
  )
  const { raw: rawRps = NaN, folio: folioRps = NaN, 'json-server': jsonRps = NaN } = comparison.median

  const folioCheck = report.check({
    section: SECTION,
    name: 'folio GET vs raw node:http',
    value: folioRps / rawRps,
    unit: '×',
    goal: { op: '>=', value: 0.85, unit: '×' },
    detail: `folio ${fmt(folioRps)} / raw ${fmt(rawRps)} req/s`,
  })
  const jsonCheck = report.check({
    section: SECTION,
    name: 'json-server: x× raw',
    value: jsonRps / rawRps,
    unit: '×',
    detail: `json-server ${fmt(jsonRps)} / raw ${fmt(rawRps)} req/s`,
  })
  report.log()
  report.table(
    ['comparison', 'baseline req/s', 'measured req/s', 'ratio', 'goal', 'result'],
    [
      ['folio vs raw', fmt(rawRps), fmt(folioRps), `${folioCheck.value.toFixed(2)}×`, '>= 0.85×', verdict(folioCheck)],
      ['json-server vs raw', fmt(rawRps), fmt(jsonRps), `${jsonCheck.value.toFixed(2)}×`, '(reference)', '-'],
    ],
  )
  // Two cores: if autocannon is near 100% during raw's rounds, raw's figure is capped by the
  // client and every ratio against it reads higher than the servers' true ratio.
  report.log(`  median CPU, one core = 100%: ${cpuNote(comparison)}`)

  for (const [name, results] of Object.entries(comparison.rounds)) {
    const p = problemsOf(results)
    if (p.non2xx || p.errors || p.timeouts)
      report.problem(`section 1, ${name}: non-2xx ${p.non2xx}, errors ${p.errors}, timeouts ${p.timeouts} (${JSON.stringify(p.statusCodes)})`)
  }
  if (folio.stderr().trim()) report.problem(`section 1, folio stderr: ${folio.stderr().trim().slice(-500)}`)

  report.sections.getVsRaw = { bodyBytes: first.length, folioFraming: framing, medians: comparison.median, rounds: comparison.rounds }
  await Promise.all([folio.stop(), raw.stop(), jsonServer.stop()])
}
