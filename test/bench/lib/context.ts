import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { htmlLines } from './content.js'
import type { Report } from './report.js'

/** What every section gets from run.ts. */
export interface BenchContext {
  report: Report
  /** Under the run's own temp dir, which run.ts removes at the end whatever happens. */
  tmpDir(name: string): Promise<string>
  rounds: number
  /** Seconds per measured round. */
  duration: number
  /** Seconds of warm-up per target. */
  warmup: number
}

export function makeTmpDir(base: string) {
  return async (name: string) => {
    const dir = join(base, name)
    await mkdir(dir, { recursive: true })
    return dir
  }
}

/** The small folio of sections 1 and 3: one index.html of about 2 KB. */
export const SMALL_HTML = htmlLines(2048, 7).join('\n')
