import { rm } from 'node:fs/promises'
import { afterEach } from 'vitest'
import { makeDataDir } from './server.js'

/**
 * For tests that open the store on a data dir of their own: `dataDir()` makes one, `cleanup`
 * takes what must be closed or removed after the test, run in reverse order after each test.
 */
export function useTempDataDirs(): { dataDir: () => Promise<string>; cleanup: Array<() => Promise<void>> } {
  const cleanup: Array<() => Promise<void>> = []
  afterEach(async () => {
    while (cleanup.length) await cleanup.pop()!()
  })
  async function dataDir(): Promise<string> {
    const dir = await makeDataDir()
    cleanup.push(() => rm(dir, { recursive: true, force: true }))
    return dir
  }
  return { dataDir, cleanup }
}
