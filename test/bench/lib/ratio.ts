import { compareAlternating, cpuNote, fmt, problemsOf, type Target } from './autocannon.js'
import type { BenchContext } from './context.js'
import { verdict } from './report.js'

/**
 * The common shape of a "folio vs baseline" section: measure both alternately, report the
 * ratio of medians against a goal, flag any non-2xx answer.
 */
export async function ratioSection(
  ctx: BenchContext,
  options: { section: string; name: string; baseline: Target; measured: Target; goal: number; connections?: number },
): Promise<{ ratio: number; medians: Record<string, number> }> {
  const { report } = ctx
  const comparison = await compareAlternating([options.baseline, options.measured], {
    connections: options.connections ?? 50,
    duration: ctx.duration,
    rounds: ctx.rounds,
    warmup: ctx.warmup,
    log: (l) => report.log(l),
  })
  const base = comparison.median[options.baseline.name] ?? Number.NaN
  const measured = comparison.median[options.measured.name] ?? Number.NaN
  const check = report.check({
    section: options.section,
    name: options.name,
    value: measured / base,
    unit: '×',
    goal: { op: '>=', value: options.goal, unit: '×' },
    detail: `${options.measured.name} ${fmt(measured)} / ${options.baseline.name} ${fmt(base)} req/s`,
  })
  report.log()
  report.table(
    ['comparison', 'baseline req/s', 'measured req/s', 'ratio', 'goal', 'result'],
    [[options.name, fmt(base), fmt(measured), `${check.value.toFixed(2)}×`, `>= ${options.goal}×`, verdict(check)]],
  )
  report.log(`  median CPU, one core = 100%: ${cpuNote(comparison)}`)
  for (const [name, results] of Object.entries(comparison.rounds)) {
    const p = problemsOf(results)
    if (p.non2xx || p.errors || p.timeouts)
      report.problem(`${options.section}, ${name}: non-2xx ${p.non2xx}, errors ${p.errors}, timeouts ${p.timeouts} (${JSON.stringify(p.statusCodes)})`)
  }
  return { ratio: check.value, medians: comparison.median }
}
