/**
 * folio's benchmark suite: `npm run bench` (builds dist/, then runs this with tsx).
 *
 * Every figure is a ratio against a baseline measured in the same run, on the same machine,
 * alternating rounds: absolute req/s depend on the machine, ratios much less. Goals are
 * reported PASS/MISS and never fail the run; only a section that cannot run at all does.
 *
 *   BENCH_ONLY=1,3   run only those sections (while working on one)
 *   BENCH_QUICK=1    1 round of 2 s per target, for a smoke test of the suite itself
 */
import { rmSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BenchContext, makeTmpDir } from './lib/context.js'
import { ROOT } from './lib/folio.js'
import { killAllNow, stopAll } from './lib/processes.js'
import { Report } from './lib/report.js'
import { benchCli } from './sections/cli.js'
import { benchCloudGet } from './sections/cloud-get.js'
import { benchGetVsRaw } from './sections/get-vs-raw.js'
import { benchList } from './sections/list-vs-raw.js'
import { benchManyFolios } from './sections/many-folios.js'
import { benchPostgres } from './sections/postgres.js'
import { benchPutHistory } from './sections/put-history.js'
import { benchPutWriters } from './sections/put-writers.js'
import { benchVersionDisk } from './sections/version-disk.js'
import { benchViewer } from './sections/viewer.js'
import { benchViewerFirstView } from './sections/viewer-first-view.js'
import { benchSingleExecutable } from './sections/single-executable.js'

const sections: Array<[string, (ctx: BenchContext) => Promise<void>]> = [
  ['1', benchGetVsRaw],
  ['2', benchPutHistory],
  ['3', benchManyFolios],
  ['4', benchVersionDisk],
  ['5', benchViewer],
  ['9', benchList],
  ['8', benchCli],
  ['10', benchPutWriters],
  ['11', benchCloudGet],
  ['12', benchPostgres],
  ['13', benchViewerFirstView],
  ['14', benchSingleExecutable],
]

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim())
const quick = process.env.BENCH_QUICK === '1'
const base = await mkdtemp(join(tmpdir(), 'folio-bench-'))

// Whatever ends this process (an exception, Ctrl+C), no server child may outlive it and no
// temp data may stay behind.
process.on('exit', () => {
  killAllNow()
  rmSync(base, { recursive: true, force: true })
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    process.stderr.write(`\n${signal}: stopping the servers\n`)
    process.exit(130)
  })
}

const report = new Report()
const ctx: BenchContext = {
  report,
  tmpDir: makeTmpDir(base),
  rounds: quick ? 1 : 3,
  duration: quick ? 2 : 5,
  warmup: quick ? 1 : 2,
}
const started = Date.now()
report.log(`folio bench: node ${process.version}, ${cpus().length} cores, ${ctx.rounds} rounds × ${ctx.duration} s per target, temp ${base}`)

try {
  for (const [name, run] of sections) {
    if (only && !only.includes(name)) continue
    try {
      await run(ctx)
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
      report.errors.push({ section: name, message })
      report.log(`\nsection ${name} failed: ${message}`)
    } finally {
      // A failed section must not leave its servers loading the next one's core.
      await stopAll()
    }
  }
} finally {
  await stopAll()
  await rm(base, { recursive: true, force: true })
}

const seconds = Math.round((Date.now() - started) / 1000)
report.summary()
const resultsPath = join(ROOT, 'test/bench/results.json')
await report.writeJson(resultsPath, {
  finishedAt: new Date().toISOString(),
  node: process.version,
  cores: cpus().length,
  seconds,
  rounds: ctx.rounds,
  duration: ctx.duration,
})
report.log()
report.log(`${seconds} s in all; figures written to test/bench/results.json`)
if (report.errors.length) process.exitCode = 1
