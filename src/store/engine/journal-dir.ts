import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** Where a data dir's write journal lives (durable-fs-driver.ts, write-journal.ts). */
export const JOURNAL_DIR = '.journal'

/**
 * Whether a folder holds a data dir's writes that only its journal has (a server killed before
 * its first checkpoint): a data dir, though its files may not show it yet.
 */
export async function journalHoldsWrites(dir: string): Promise<boolean> {
  const names = await readdir(join(dir, JOURNAL_DIR)).catch(() => [] as string[])
  for (const name of names) if (name.endsWith('.log') && (await stat(join(dir, JOURNAL_DIR, name))).size > 0) return true
  return false
}
