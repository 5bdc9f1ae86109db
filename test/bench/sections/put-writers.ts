import { join } from 'node:path'
import { compareAlternating, cpuNote, fmt, problemsOf, type Target } from '../lib/autocannon.js'
import { countingPutBody, EditableDoc } from '../lib/content.js'
import type { BenchContext } from '../lib/context.js'
import { ROOT, startFolio } from '../lib/folio.js'
import { createFolio, getText } from '../lib/http.js'
import { startJsonLineServer } from '../lib/processes.js'
import { verdict } from '../lib/report.js'

const SECTION = '10 PUT writers'
const WRITERS = 50

/**
 * Section 10: many writers at once. 50 connections PUT a ~100 KB page (each request a one-line
 * edit, so each one is a new version with a new blob), all on one folio, then each on a folio of
 * its own; the baseline is raw node:http writing each body durably over one file (temp file,
 * fsync, rename). One folio's writers share its history, so folio group-commits their versions
 * (one segment and one metadata write per batch); writers on different folios must not wait for
 * each other. PUTs ask for the light answer (?files=none), as the CLI's sync does. A second raw
 * target parses each body and hashes its page before the same write: not a goal, the share of
 * the gap that the request format (JSON, content-addressed) sets before anything is stored.
 */
export async function benchPutWriters(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading(`10. PUT of a ~100 KB version, ${WRITERS} writers: on one folio, on ${WRITERS} folios, vs raw node:http writing each body durably`)
  const dir = await ctx.tmpDir('put-writers')
  const server = await startFolio('folio', join(dir, 'data'))
  const raw = await startJsonLineServer('raw-durable', process.execPath, [join(ROOT, 'test/bench/raw-durable-server.mjs'), await ctx.tmpDir('raw-durable-put')])

  const lines = new EditableDoc(100 * 1024, 3).lines
  const page = lines.join('\n')
  const counterLine = Math.floor(lines.length / 2) + 1
  const baseline: Target = {
    name: 'raw durable PUT',
    url: `${raw.url}/document`,
    method: 'PUT',
    pid: raw.pid,
    body: countingPutBody(lines, counterLine, 'raw'),
  }
  // Not a goal: how far the request format alone (JSON parse, UTF-8, SHA-256) takes raw down.
  const parsed: Target = {
    name: 'raw, parse + hash',
    url: `${raw.url}/parsed`,
    method: 'PUT',
    pid: raw.pid,
    body: countingPutBody(lines, counterLine, 'parsed'),
  }

  // A fresh folio (or set of folios) every round: the comparison is of writers, not of history.
  const oneFolioRounds: string[] = []
  const one: Target = {
    name: 'folio, 1 folio',
    url: '',
    method: 'PUT',
    pid: server.pid,
    body: countingPutBody(lines, counterLine, 'one'),
    beforeRound: async () => {
      const id = await createFolio(server.url, 'One folio, many writers', page)
      oneFolioRounds.push(id)
      one.url = `${server.url}/api/files/${id}?files=none`
    },
  }
  let manyIds: string[] = []
  let nextConnection = 0
  const many: Target = {
    name: `folio, ${WRITERS} folios`,
    url: server.url,
    method: 'PUT',
    pid: server.pid,
    body: countingPutBody(lines, counterLine, 'many'),
    // Each connection keeps to one folio: 50 writers, one per folio.
    pathFor: (connection) => {
      connection.folio ??= nextConnection++ % WRITERS
      return `/api/files/${manyIds[connection.folio as number]}?files=none`
    },
    beforeRound: async () => {
      manyIds = await Promise.all(Array.from({ length: WRITERS }, (_, i) => createFolio(server.url, `Writer ${i}`, page)))
      nextConnection = 0
    },
  }

  const comparison = await compareAlternating([baseline, parsed, one, many], {
    connections: WRITERS,
    duration: ctx.duration,
    rounds: ctx.rounds,
    warmup: ctx.warmup,
    settleMs: 1000,
    log: (l) => report.log(l),
  })
  const rawRps = comparison.median[baseline.name] ?? NaN
  const oneRps = comparison.median[one.name] ?? NaN
  const manyRps = comparison.median[many.name] ?? NaN
  const parsedRps = comparison.median[parsed.name] ?? NaN

  // Every 2xx made exactly one version of the round's folio (the tail still in flight when
  // autocannon stops counting is finished by the server: up to WRITERS more).
  const results = [...comparison.warmups[one.name]!, ...comparison.rounds[one.name]!]
  let consistent = true
  for (const [i, id] of oneFolioRounds.entries()) {
    const ok = results[i]?.ok ?? 0
    const added = (await versionCount(server.url, id)) - 1
    if (added < ok || added > ok + WRITERS) {
      consistent = false
      report.problem(`section 10, round folio ${id}: ${fmt(ok)} PUTs answered 2xx but it gained ${fmt(added)} versions`)
    }
  }

  const checks = [
    report.check({
      section: SECTION,
      name: `${WRITERS} writers on 1 folio vs raw durable PUT`,
      value: oneRps / rawRps,
      unit: '×',
      goal: { op: '>=', value: 0.8, unit: '×' },
      detail: `${fmt(oneRps)} / ${fmt(rawRps)} req/s`,
    }),
    report.check({
      section: SECTION,
      name: `${WRITERS} writers on ${WRITERS} folios vs raw durable PUT`,
      value: manyRps / rawRps,
      unit: '×',
      goal: { op: '>=', value: 0.9, unit: '×' },
      detail: `${fmt(manyRps)} / ${fmt(rawRps)} req/s`,
    }),
  ]
  const reference = report.check({
    section: SECTION,
    name: `raw parsing and hashing each body, vs raw durable PUT`,
    value: parsedRps / rawRps,
    unit: '×',
    detail: `${fmt(parsedRps)} / ${fmt(rawRps)} req/s: the request format's own cost, before anything is stored`,
  })
  const problems = Object.fromEntries(Object.entries(comparison.rounds).map(([name, rounds]) => [name, problemsOf(rounds)]))
  report.log()
  report.table(
    ['comparison', 'baseline req/s', 'measured req/s', 'ratio', 'goal', 'result', 'non-2xx'],
    [
      [`1 folio vs raw`, fmt(rawRps), fmt(oneRps), `${checks[0]!.value.toFixed(2)}×`, '>= 0.8×', verdict(checks[0]!), String(problems[one.name]!.non2xx)],
      [
        `${WRITERS} folios vs raw`,
        fmt(rawRps),
        fmt(manyRps),
        `${checks[1]!.value.toFixed(2)}×`,
        '>= 0.9×',
        verdict(checks[1]!),
        String(problems[many.name]!.non2xx),
      ],
      [
        `raw parse + hash vs raw`,
        fmt(rawRps),
        fmt(parsedRps),
        `${reference.value.toFixed(2)}×`,
        '(reference)',
        verdict(reference),
        String(problems[parsed.name]!.non2xx),
      ],
    ],
  )
  report.log(
    `  folio vs raw that parses and hashes each body: ${(oneRps / parsedRps).toFixed(2)}× on 1 folio, ${(manyRps / parsedRps).toFixed(2)}× on ${WRITERS} folios`,
  )
  report.log(`  median CPU, one core = 100%: ${cpuNote(comparison)}`)
  report.log(`  one-folio rounds: every 2xx is one version (${consistent ? 'consistent' : 'MISMATCH'})`)
  for (const [name, p] of Object.entries(problems)) {
    if (p.non2xx || p.errors || p.timeouts)
      report.problem(`section 10, ${name}: non-2xx ${p.non2xx}, errors ${p.errors}, timeouts ${p.timeouts} (${JSON.stringify(p.statusCodes)})`)
  }
  if (server.stderr().trim()) report.problem(`section 10, folio stderr: ${server.stderr().trim().slice(-500)}`)

  report.sections.putWriters = { medians: comparison.median, rounds: comparison.rounds, problems, oneFolioConsistent: consistent }
  await Promise.all([server.stop(), raw.stop()])
}

async function versionCount(baseUrl: string, id: string): Promise<number> {
  return (JSON.parse(await getText(`${baseUrl}/api/files/${id}?files=none`)) as { versionCount: number }).versionCount
}
