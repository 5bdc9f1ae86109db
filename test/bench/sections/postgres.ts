import { join } from 'node:path'
import pg from 'pg'
import { startCluster } from '../../helpers/pg-cluster.js'
import { type BenchContext, SMALL_HTML } from '../lib/context.js'
import { NO_RATE_LIMITS, ROOT, startFolio } from '../lib/folio.js'
import { createFolio } from '../lib/http.js'
import { startJsonLineServer } from '../lib/processes.js'
import { ratioSection } from '../lib/ratio.js'
import { comparePutHistory } from './put-history.js'

/**
 * Section 12: folio on PostgreSQL (serve --database), on a local cluster with durability on as
 * in production (fsync, synchronous_commit). Three comparisons, each in the same run:
 * - GET of a folio: the PostgreSQL store vs the flat-file store (both answer from the hot cache);
 * - durable beacons on PostgreSQL vs raw node:http writing each one durably (temp file, fsync,
 *   rename), as section 5 for the flat-file store;
 * - PUT at 1,000 versions vs at 1, as section 2.
 */
export async function benchPostgres(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading('12. PostgreSQL store (serve --database, durable cluster): GET vs flat files, beacons vs raw durable write, PUT at 1,000 versions vs 1')
  const cluster = await startCluster({ durable: true })
  try {
    const admin = new pg.Client(cluster.url)
    await admin.connect()
    await admin.query('CREATE DATABASE folio_bench')
    await admin.end()
    const databaseUrl = cluster.url.replace(/\/postgres$/, '/folio_bench')
    const dir = await ctx.tmpDir('postgres')
    const onPg = await startFolio('folio on PostgreSQL', join(dir, 'instance'), NO_RATE_LIMITS, ['--database', databaseUrl])
    const onFiles = await startFolio('folio on flat files', join(dir, 'data'), NO_RATE_LIMITS)

    // Published: viewers' beacons count on published folios only.
    const [pgId, fileId] = await Promise.all([
      createFolio(onPg.url, 'Bench small folio', SMALL_HTML, { status: 'published' }),
      createFolio(onFiles.url, 'Bench small folio', SMALL_HTML, { status: 'published' }),
    ])
    const get = await ratioSection(ctx, {
      section: '12 PostgreSQL GET',
      name: 'GET on PostgreSQL vs on flat files',
      baseline: { name: 'flat files', url: `${onFiles.url}/api/files/${fileId}`, pid: onFiles.pid },
      measured: { name: 'PostgreSQL', url: `${onPg.url}/api/files/${pgId}`, pid: onPg.pid },
      goal: 0.85,
    })
    await onFiles.stop()

    const durable = await startJsonLineServer('raw-durable', process.execPath, [
      join(ROOT, 'test/bench/raw-durable-server.mjs'),
      await ctx.tmpDir('raw-durable-pg'),
    ])
    const beacon = () => JSON.stringify({ isInitial: true, device: 'desktop', sessionSeconds: 3 })
    const before = await views(onPg.url, pgId)
    const beacons = await ratioSection(ctx, {
      section: '12 PostgreSQL beacon',
      name: 'beacon on PostgreSQL vs raw durable write',
      baseline: { name: 'raw durable write', url: `${durable.url}/beacon`, method: 'POST', body: beacon, pid: durable.pid },
      measured: { name: 'beacon on PostgreSQL', url: `${onPg.url}/api/files/${pgId}/analytics`, method: 'POST', body: beacon, pid: onPg.pid },
      goal: 1,
    })
    report.log(
      `  folio counted ${((await views(onPg.url, pgId)) - before).toLocaleString('en-US')} views over the beacon rounds (every 2xx beacon is one view)`,
    )
    await durable.stop()

    report.log()
    const putHistory = await comparePutHistory(ctx, onPg, '12 PostgreSQL PUT')
    if (onPg.stderr().trim()) report.problem(`section 12, folio stderr: ${onPg.stderr().trim().slice(-500)}`)
    report.sections.postgres = { get, beacons, putHistory }
    await onPg.stop()
  } finally {
    await cluster.stop()
  }
}

async function views(url: string, id: string): Promise<number> {
  return ((await (await fetch(`${url}/api/files/${id}?files=none`)).json()) as { analytics: { views: number } }).analytics.views
}
