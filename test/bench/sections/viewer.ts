import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { htmlLines } from '../lib/content.js'
import type { BenchContext } from '../lib/context.js'
import { NO_RATE_LIMITS, ROOT, startFolio } from '../lib/folio.js'
import { startJsonLineServer } from '../lib/processes.js'
import { ratioSection } from '../lib/ratio.js'

/** Sections 5–7: what viewers hit: beacons, the public metadata and the folio's own files. */
export async function benchViewer(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  const dir = await ctx.tmpDir('viewer')
  const folio = await startFolio('folio', join(dir, 'data'), NO_RATE_LIMITS)
  const page = htmlLines(50 * 1024, 11).join('\n')
  const created = await fetch(`${folio.url}/api/files`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Bench viewer folio', status: 'published', initialHtml: page }),
  })
  const id = ((await created.json()) as { project: { id: string } }).project.id

  report.heading('5. Durable analytics beacon vs raw node:http doing one durable write per request')
  const durable = await startJsonLineServer('raw-durable', process.execPath, [join(ROOT, 'test/bench/raw-durable-server.mjs'), await ctx.tmpDir('raw-durable')])
  const beacon = () => JSON.stringify({ isInitial: true, device: 'desktop', sessionSeconds: 3 })
  const viewsBefore = await views(folio.url, id)
  const beacons = await ratioSection(ctx, {
    section: '5 beacon',
    name: 'beacon vs raw durable write',
    baseline: { name: 'raw durable write', url: `${durable.url}/beacon`, method: 'POST', body: beacon, pid: durable.pid },
    measured: { name: 'folio beacon', url: `${folio.url}/api/files/${id}/analytics`, method: 'POST', body: beacon, pid: folio.pid },
    goal: 1,
  })
  // Every answered beacon is on disk: the count must match what autocannon saw answered.
  const counted = (await views(folio.url, id)) - viewsBefore
  report.log(`  folio counted ${counted.toLocaleString('en-US')} views over the beacon rounds (every 2xx beacon is one view)`)

  report.heading('6. GET /api/files/{id}/public vs raw node:http answering the same JSON from memory')
  const publicUrl = `${folio.url}/api/files/${id}/public`
  const publicBody = Buffer.from(await (await fetch(publicUrl)).arrayBuffer())
  const publicFile = join(dir, 'public.json')
  await writeFile(publicFile, publicBody)
  const rawPublic = await startJsonLineServer('raw', process.execPath, [join(ROOT, 'test/bench/raw-server.mjs'), publicFile])
  const publicRatio = await ratioSection(ctx, {
    section: '6 public',
    name: 'public metadata vs raw',
    baseline: { name: 'raw', url: `${rawPublic.url}/x`, pid: rawPublic.pid },
    measured: { name: 'folio public', url: publicUrl, pid: folio.pid },
    goal: 0.85,
  })

  report.heading('7. Raw route: a 50 KB index.html vs raw node:http serving it from memory')
  const fileUrl = `${folio.url}/v/${id}/-/index.html`
  const served = Buffer.from(await (await fetch(fileUrl)).arrayBuffer())
  const htmlFile = join(dir, 'index.html')
  await writeFile(htmlFile, served)
  const rawHtml = await startJsonLineServer('raw', process.execPath, [join(ROOT, 'test/bench/raw-server.mjs'), htmlFile, 'text/html; charset=utf-8'])
  report.log(`  index.html ${served.length.toLocaleString('en-US')} bytes as served (with the viewer bridge tag)`)
  const rawRoute = await ratioSection(ctx, {
    section: '7 raw route',
    name: '50 KB page vs raw',
    baseline: { name: 'raw', url: `${rawHtml.url}/index.html`, pid: rawHtml.pid },
    measured: { name: 'folio raw route', url: fileUrl, pid: folio.pid },
    goal: 0.85,
  })

  if (folio.stderr().trim()) report.problem(`sections 5-7, folio stderr: ${folio.stderr().trim().slice(-500)}`)
  report.sections.viewer = { beacons, viewsCounted: counted, public: publicRatio, rawRoute }
  await Promise.all([folio.stop(), durable.stop(), rawPublic.stop(), rawHtml.stop()])
}

async function views(baseUrl: string, id: string): Promise<number> {
  const folio = (await (await fetch(`${baseUrl}/api/files/${id}?files=none`)).json()) as { analytics: { views: number } }
  return folio.analytics.views
}
