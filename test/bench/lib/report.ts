import { writeFile } from 'node:fs/promises'

/**
 * Collects what the sections find. Goals are reported as PASS/MISS, never asserted: a
 * benchmark on a shared 2-core machine informs, it does not gate.
 */
export interface Goal {
  op: '>=' | '<' | '<='
  value: number
  unit: Unit
}

/** '×' a ratio, 'MB'/'KB' a size, 'ok' a yes/no check (1 = OK), 'ms' a latency, 'files'/'requests' a count. */
export type Unit = '×' | 'MB' | 'KB' | 'ok' | 'ms' | 'files' | 'requests'

export interface Check {
  section: string
  name: string
  value: number
  unit: Unit
  goal?: Goal
  /** What the value is made of, e.g. "folio 9,120 req/s / raw 12,400 req/s". */
  detail: string
}

export class Report {
  readonly checks: Check[] = []
  readonly sections: Record<string, unknown> = {}
  readonly errors: Array<{ section: string; message: string }> = []
  readonly serverProblems: string[] = []

  log(line = ''): void {
    process.stdout.write(`${line}\n`)
  }

  heading(title: string): void {
    this.log()
    this.log(`== ${title} ${'='.repeat(Math.max(0, 86 - title.length))}`)
  }

  table(headers: string[], rows: string[][]): void {
    const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
    this.log(line(headers))
    this.log(widths.map((w) => '-'.repeat(w)).join('  '))
    for (const row of rows) this.log(line(row))
  }

  check(check: Check): Check {
    this.checks.push(check)
    return check
  }

  /** A problem seen in a server (non-2xx, stderr output, slowness): listed again in the summary. */
  problem(message: string): void {
    this.serverProblems.push(message)
  }

  summary(): void {
    this.heading('Summary')
    this.table(
      ['section', 'measure', 'value', 'goal', 'result', 'from'],
      this.checks.map((c) => [c.section, c.name, formatValue(c.value, c.unit), goalText(c.goal), verdict(c), c.detail]),
    )
    if (this.serverProblems.length) {
      this.log()
      this.log('Problems seen in the server:')
      for (const p of this.serverProblems) this.log(`  - ${p}`)
    }
    if (this.errors.length) {
      this.log()
      this.log('Sections that failed to run:')
      for (const e of this.errors) this.log(`  - ${e.section}: ${e.message}`)
    }
  }

  async writeJson(path: string, extra: Record<string, unknown>): Promise<void> {
    const checks = this.checks.map((c) => ({ ...c, result: verdict(c) }))
    await writeFile(
      path,
      `${JSON.stringify({ ...extra, checks, sections: this.sections, serverProblems: this.serverProblems, errors: this.errors }, null, 2)}\n`,
    )
  }
}

export function goalText(goal: Goal | undefined): string {
  if (!goal) return '(reference)'
  if (goal.unit === 'ok') return 'OK'
  return `${goal.op} ${formatValue(goal.value, goal.unit)}`
}

export function verdict(check: Pick<Check, 'value' | 'goal'>): 'PASS' | 'MISS' | '-' {
  if (!check.goal) return '-'
  if (!Number.isFinite(check.value)) return 'MISS'
  const { op, value } = check.goal
  return (op === '>=' ? check.value >= value : op === '<=' ? check.value <= value : check.value < value) ? 'PASS' : 'MISS'
}

export function formatValue(value: number, unit: Unit): string {
  if (unit === 'ok') return value >= 1 ? 'OK' : 'FAIL'
  if (unit === '×') return `${value.toFixed(2)}×`
  if (unit === 'MB') return `${value.toFixed(2)} MB`
  if (unit === 'KB') return `${value.toFixed(1)} KB`
  if (unit === 'ms') return `${Math.round(value)} ms`
  if (unit === 'files') return `${value} files`
  if (unit === 'requests') return `${value} requests`
  return String(value)
}
