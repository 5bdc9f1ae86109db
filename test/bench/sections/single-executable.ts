import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { medianOf } from '../lib/autocannon.js'
import type { BenchContext } from '../lib/context.js'
import { medianRunMs } from '../lib/command-time.js'
import { ROOT } from '../lib/folio.js'

const run = promisify(execFile)

/**
 * Section 14: the single executable (npm run build:binary) against the npm install, in this run:
 * its size, `folio --version`, and `folio serve` until it answers /healthz.
 */
export async function benchSingleExecutable(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading('14. Single executable: size, --version and serve start-up vs node bin/folio.mjs')
  await run(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build-binary.ts')], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 })
  const binary = join(ROOT, 'dist', 'bin', `folio-${process.platform}-${process.arch}`)
  const npmInstall = [process.execPath, join(ROOT, 'bin', 'folio.mjs')] as const

  const mb = (await stat(binary)).size / 1024 / 1024
  report.check({ section: '14 binary', name: 'binary size', value: mb, unit: 'MB', goal: { op: '<=', value: 130, unit: 'MB' }, detail: binary })

  await medianRunMs(binary, ['--version'], 3)
  await medianRunMs(npmInstall[0], [npmInstall[1], '--version'], 3)
  const binaryMs = await medianRunMs(binary, ['--version'], 20)
  const npmMs = await medianRunMs(npmInstall[0], [npmInstall[1], '--version'], 20)
  report.check({
    section: '14 binary',
    name: 'folio --version: binary vs npm install',
    value: binaryMs / npmMs,
    unit: '×',
    goal: { op: '<=', value: 1, unit: '×' },
    detail: `${binaryMs.toFixed(0)} ms / ${npmMs.toFixed(0)} ms (medians of 20)`,
  })

  // From the spawn to the first answer of /healthz.
  const serveMs = async (command: string, args: string[], name: string) => {
    const samples: number[] = []
    for (let i = 0; i < 5; i++) {
      const data = await ctx.tmpDir(`${name}-${i}`)
      const t = performance.now()
      const child = spawn(command, [...args, 'serve', '--port', '0', '--data', data, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] })
      let out = ''
      child.stdout.on('data', (d) => (out += d))
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', () => {
          const line = out.split('\n').find((l) => l.startsWith('{'))
          if (line) resolve(JSON.parse(line).url)
        })
        child.once('exit', (code) => reject(new Error(`${name} serve exited with ${code}: ${out}`)))
      })
      await fetch(`${url}/healthz`)
      samples.push(performance.now() - t)
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    }
    return medianOf(samples)
  }
  const binaryServe = await serveMs(binary, [], 'binary')
  const npmServe = await serveMs(npmInstall[0], [npmInstall[1]], 'npm')
  report.check({
    section: '14 binary',
    name: 'folio serve to first answer: binary vs npm install',
    value: binaryServe / npmServe,
    unit: '×',
    detail: `${binaryServe.toFixed(0)} ms / ${npmServe.toFixed(0)} ms (medians of 5)`,
  })
  report.log(
    `  ${mb.toFixed(1)} MB; --version ${binaryMs.toFixed(0)} ms vs ${npmMs.toFixed(0)} ms; serve ${binaryServe.toFixed(0)} ms vs ${npmServe.toFixed(0)} ms`,
  )
}
