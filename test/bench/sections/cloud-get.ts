import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { openStore } from '../../../src/store/index.js'
import { DEFAULT_PLANS } from '../../../src/store/repositories/plans.js'
import { compareAlternating, cpuNote, fmt, medianOf, problemsOf } from '../lib/autocannon.js'
import { type BenchContext, SMALL_HTML } from '../lib/context.js'
import { startFolio } from '../lib/folio.js'
import { verdict } from '../lib/report.js'

const SECTION = '11 Cloud GET'

/**
 * Section 10: an authenticated GET /api/files/{id} in Cloud mode (the workspace key looked up by
 * its hash, tenancy, the plan's rate limit counted in the shared state and its X-RateLimit-*
 * headers) against the same GET of the same folio in OSS (the open local API), in the same run.
 * Measured while working on it: most of what Cloud adds per answer is node writing the three
 * X-RateLimit-* headers the spec asks for (without them, Cloud cost what OSS costs with a key);
 * the key check and the plan's count are well under a microsecond.
 */
export async function benchCloudGet(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading('11. GET /api/files/{id} in Cloud mode (workspace key) vs the same GET in OSS')
  const dir = await ctx.tmpDir('cloud-get')

  const ossDir = join(dir, 'oss')
  const cloudDir = join(dir, 'cloud')
  // A plan whose rate limit autocannon cannot reach: the limit is still counted on every request.
  await writeCloudDataDir(cloudDir)
  const { apiKey } = await makeWorkspace(cloudDir)

  const oss = await startFolio('folio-oss', ossDir)
  const cloud = await startFolio('folio-cloud', cloudDir, {}, ['--mode', 'cloud'])
  const auth = { authorization: `Bearer ${apiKey}` }
  const ossId = await create(oss.url, {})
  const cloudId = await create(cloud.url, auth)
  const ossUrl = `${oss.url}/api/files/${ossId}`
  const cloudUrl = `${cloud.url}/api/files/${cloudId}`
  const probe = await fetch(cloudUrl, { headers: auth })
  if (!probe.ok || !probe.headers.get('x-ratelimit-limit')) throw new Error(`Cloud GET answered ${probe.status} without the plan's X-RateLimit-* headers`)
  if ((await fetch(cloudUrl)).status !== 401) throw new Error('Cloud GET without the key was not refused')

  const comparison = await compareAlternating(
    [
      { name: 'oss', url: ossUrl, pid: oss.pid },
      { name: 'cloud', url: cloudUrl, pid: cloud.pid, headers: auth },
    ],
    { connections: 50, duration: ctx.duration, rounds: ctx.rounds, warmup: ctx.warmup, log: (l) => report.log(l) },
  )
  const { oss: ossRps = NaN, cloud: cloudRps = NaN } = comparison.median
  const check = report.check({
    section: SECTION,
    name: 'Cloud GET (key) vs OSS GET',
    value: cloudRps / ossRps,
    unit: '×',
    goal: { op: '>=', value: 0.85, unit: '×' },
    detail: `cloud ${fmt(cloudRps)} / oss ${fmt(ossRps)} req/s`,
  })
  report.log()
  report.table(
    ['comparison', 'OSS req/s', 'Cloud req/s', 'ratio', 'goal', 'result'],
    [['Cloud GET vs OSS GET', fmt(ossRps), fmt(cloudRps), `${check.value.toFixed(2)}×`, '>= 0.85×', verdict(check)]],
  )
  report.log(`  median CPU, one core = 100%: ${cpuNote(comparison)}`)
  // On a machine others load too, req/s swing with what they do; the server's CPU time per
  // answer does much less: the same ratio, measured by what each request cost.
  const perRequest = (name: string) => medianOf(comparison.rounds[name]!.map((r) => (r.serverCpu ?? NaN) / r.reqPerSec))
  const ossCost = perRequest('oss')
  const cloudCost = perRequest('cloud')
  report.check({
    section: SECTION,
    name: 'Cloud vs OSS, by server CPU per answer',
    value: ossCost / cloudCost,
    unit: '×',
    detail: `oss ${(ossCost * 1e6).toFixed(1)} µs / cloud ${(cloudCost * 1e6).toFixed(1)} µs of server CPU per answer`,
  })
  report.log(`  server CPU per answer: oss ${(ossCost * 1e6).toFixed(1)} µs, cloud ${(cloudCost * 1e6).toFixed(1)} µs (${(ossCost / cloudCost).toFixed(2)}×)`)
  for (const [name, results] of Object.entries(comparison.rounds)) {
    const p = problemsOf(results)
    if (p.non2xx || p.errors || p.timeouts)
      report.problem(`section 11, ${name}: non-2xx ${p.non2xx}, errors ${p.errors}, timeouts ${p.timeouts} (${JSON.stringify(p.statusCodes)})`)
  }
  // A Cloud server without FOLIO_SMTP_URL says so at start: expected here, not a problem.
  const unexpected = (text: string) =>
    text
      .split('\n')
      .filter((line) => line.trim() && !line.includes('E-mail is not configured'))
      .join('\n')
  for (const server of [oss, cloud])
    if (unexpected(server.stderr()).trim()) report.problem(`section 11, ${server.name} stderr: ${unexpected(server.stderr()).trim().slice(-500)}`)
  report.sections.cloudGet = { medians: comparison.median, rounds: comparison.rounds }
  await Promise.all([oss.stop(), cloud.stop()])
}

async function writeCloudDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  await writeFile(
    join(dataDir, 'plans.json'),
    JSON.stringify({ ...DEFAULT_PLANS, bench: { requestsPerMinute: 1_000_000_000, aiMessagesPerMonth: 0, storageBytes: 1024 ** 3 } }),
  )
}

/** What `folio admin workspace create` does, through the store of the stopped server's data dir. */
async function makeWorkspace(dataDir: string): Promise<{ apiKey: string }> {
  const store = await openStore({ dataDir, log: () => {} })
  try {
    return await store.workspaces.create({ name: 'Bench', plan: 'bench', owner: { name: 'bench' } })
  } finally {
    await store.close()
  }
}

async function create(server: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${server}/api/files`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ title: 'Bench small folio', initialHtml: SMALL_HTML }),
  })
  if (response.status !== 201) throw new Error(`POST /api/files: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { project: { id: string } }).project.id
}
