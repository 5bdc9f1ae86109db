import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { BenchContext } from '../lib/context.js'
import { medianRunMs } from '../lib/command-time.js'
import { ROOT, startFolio } from '../lib/folio.js'

const run = promisify(execFile)
const BIN = join(ROOT, 'bin/folio.mjs')

/** Section 8: the CLI as people feel it: start-up, the first and second sync, save-to-version latency. */
export async function benchCli(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading('8. CLI: start-up, sync of 1,000 files, save-to-version latency under --watch')
  // The CLI keeps profiles and sync records in its config dir: a temp one, never the user's.
  const env = { ...process.env, FOLIO_CONFIG_DIR: await ctx.tmpDir('cli-config'), FOLIO_API_KEY: '' }

  // Start-up: `folio --help` against the floor of any Node program, `node -e 0`.
  const time = (args: string[], times: number) => medianRunMs(process.execPath, args, times)
  await time(['-e', '0'], 3)
  await time([BIN, '--help'], 3)
  const nodeMs = await time(['-e', '0'], 20)
  const helpMs = await time([BIN, '--help'], 20)
  report.check({
    section: '8 cli',
    name: 'folio --help vs node -e 0',
    value: helpMs / nodeMs,
    unit: '×',
    goal: { op: '<', value: 2, unit: '×' },
    detail: `${helpMs.toFixed(0)} ms / ${nodeMs.toFixed(0)} ms (medians of 20)`,
  })
  report.log(`  start-up: folio --help ${helpMs.toFixed(0)} ms, node -e 0 ${nodeMs.toFixed(0)} ms → ${(helpMs / nodeMs).toFixed(2)}×`)

  const dir = await ctx.tmpDir('cli')
  const folio = await startFolio('folio', join(dir, 'data'))
  const created = await fetch(`${folio.url}/api/files`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Bench sync', initialHtml: '<h1>start</h1>' }),
  })
  const id = ((await created.json()) as { project: { id: string } }).project.id
  const site = join(dir, 'site')
  for (let i = 0; i < 1000; i++) {
    const folder = join(site, `section-${Math.floor(i / 100)}`)
    await mkdir(folder, { recursive: true })
    await writeFile(join(folder, `page-${i}.html`), `<article><h2>Page ${i}</h2>${'<p>Lorem ipsum dolor sit amet.</p>'.repeat(25)}</article>\n`)
  }
  const sync = async () => {
    const t = performance.now()
    const { stdout } = await run(process.execPath, [BIN, 'sync', id, site, '--json', '--server', folio.url], { env })
    return { ms: performance.now() - t, result: JSON.parse(stdout) as { filesSent: number; bytesSent: number; versionId: string; changed: boolean } }
  }
  const first = await sync()
  const second = await sync()
  report.log(
    `  first sync: ${first.result.filesSent} files (${(first.result.bytesSent / 1024).toFixed(0)} KB) in ${first.ms.toFixed(0)} ms → ${first.result.versionId}`,
  )
  report.log(
    `  second sync, nothing changed: ${second.result.filesSent} file bodies sent, ${second.ms.toFixed(0)} ms, version ${second.result.versionId} (changed: ${second.result.changed})`,
  )
  report.check({
    section: '8 cli',
    name: 'file bodies sent by a second sync',
    value: second.result.filesSent,
    unit: 'files',
    goal: { op: '<', value: 1, unit: 'files' },
    detail: `first sync sent ${first.result.filesSent}`,
  })

  // Save-to-version latency: from a save to the watcher reporting the new version.
  const debounceMs = 100
  const watch = spawn(process.execPath, [BIN, 'sync', id, site, '--watch', '--json', '--debounce', String(debounceMs), '--server', folio.url], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  })
  // Lines that arrive before anyone waits for them are kept: two often come in one chunk.
  const waiters: Array<(line: string) => void> = []
  const unread: string[] = []
  let buffer = ''
  watch.stdout.on('data', (chunk) => {
    buffer += chunk
    let nl: number
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl)
      buffer = buffer.slice(nl + 1)
      const waiter = waiters.shift()
      if (waiter) waiter(line)
      else unread.push(line)
    }
  })
  let stderr = ''
  let stdout = ''
  watch.stderr.on('data', (chunk) => (stderr += chunk))
  watch.stdout.on('data', (chunk) => (stdout += chunk))
  // A save the watcher never reports must show up as a problem with what it said, not hang the bench.
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      if (unread.length) return resolve(unread.shift()!)
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `sync --watch said nothing for 15 s; its stdout: ${stdout.slice(-300) || '(empty)'}; its stderr: ${stderr.slice(-300) || '(empty)'}; exit code ${watch.exitCode}`,
            ),
          ),
        15_000,
      )
      waiters.push((line) => {
        clearTimeout(timer)
        resolve(line)
      })
    })
  const latencies: number[] = []
  try {
    await nextLine() // the initial sync (nothing to push)
    await nextLine() // watching
    for (let i = 0; i < 30; i++) {
      const line = nextLine()
      const t = performance.now()
      await writeFile(join(site, 'section-0', 'page-0.html'), `<article><h2>Edit ${i}</h2></article>\n`)
      const event = JSON.parse(await line) as { event: string; changed: boolean }
      if (event.event !== 'synced' || !event.changed) report.problem(`section 8: save ${i} gave ${JSON.stringify(event)}`)
      latencies.push(performance.now() - t)
      await new Promise((r) => setTimeout(r, 150))
    }
  } finally {
    // Ctrl+C makes the watcher push what is pending and save its folder record: let it finish
    // before the temp dirs go.
    const exited = once(watch, 'exit')
    watch.kill('SIGINT')
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))])
  }
  const sorted = [...latencies].sort((a, b) => a - b)
  const p50 = sorted[Math.floor(sorted.length * 0.5)]!
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!
  report.log(`  save → version under --watch (debounce ${debounceMs} ms, 30 saves): p50 ${p50.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms`)
  report.check({ section: '8 cli', name: `save-to-version p50 (debounce ${debounceMs} ms)`, value: p50, unit: 'ms', detail: `p95 ${p95.toFixed(0)} ms` })
  report.check({ section: '8 cli', name: `save-to-version p95 (debounce ${debounceMs} ms)`, value: p95, unit: 'ms', detail: `over 30 saves` })
  report.sections.cli = { helpMs, nodeMs, first, second, latencies }
  await folio.stop()
}
