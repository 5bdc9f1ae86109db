import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { medianOf } from './autocannon.js'

const run = promisify(execFile)

/** The median wall time, in ms, of running `command args` to its exit `times` times one after another. */
export async function medianRunMs(command: string, args: readonly string[], times: number, env?: NodeJS.ProcessEnv): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    await run(command, args, { env })
    samples.push(performance.now() - started)
  }
  return medianOf(samples)
}
