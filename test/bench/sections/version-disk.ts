import { join } from 'node:path'
import { fmt } from '../lib/autocannon.js'
import { EditableDoc } from '../lib/content.js'
import type { BenchContext } from '../lib/context.js'
import { diskUsage, growthByArea, mb } from '../lib/disk.js'
import { readVersionFromStore, startFolio } from '../lib/folio.js'
import { createFolio, getText, putFiles } from '../lib/http.js'
import { verdict } from '../lib/report.js'

const SECTION = '4 disk'
const EDITS = 1000
const GOAL_MB = 3
/** How long the bench lets a full-history GET stream before it gives up on it. */
const FULL_GET_WINDOW_MS = 15_000

/**
 * Section 4: what 1,000 one-line edits of a 1 MB page cost on disk beyond the first copy, and
 * whether the oldest version still reads back byte for byte (it is stored as the end of a
 * chain of reverse deltas, so this is the read that exercises them all).
 */
export async function benchVersionDisk(ctx: BenchContext): Promise<void> {
  const { report } = ctx
  report.heading(`4. Disk for ${fmt(EDITS)} one-line edits of a 1 MB folio`)
  const dataDir = join(await ctx.tmpDir('version-disk'), 'data')
  const server = await startFolio('folio', dataDir)
  let stopped = false
  try {
    const doc = new EditableDoc(1024 * 1024, 4)
    if (doc.distinctEdits < EDITS) throw new Error(`the page has only ${doc.distinctEdits} text lines for ${EDITS} distinct edits`)
    const v1 = doc.text()
    const id = await createFolio(server.url, 'One megabyte', v1)
    const before = await settledUsage(dataDir)

    const putStart = performance.now()
    for (let i = 1; i <= EDITS; i++) {
      doc.edit(i)
      await putFiles(server.url, id, { 'index.html': doc.text() }, `Edit ${i}`)
    }
    const putS = (performance.now() - putStart) / 1000
    // A replaced file becomes a delta in the background, after the PUT is answered, and the
    // write journal (.journal) holds the last writes until its checkpoint, 2 s after its first
    // record: measure once both have settled (the size has not changed for 3 s), as they do on
    // any real server. What the journal held at the last PUT is reported on its own.
    const lastPut = growthByArea(before, await diskUsage(dataDir)).find(([area]) => area === '.journal')?.[1].apparent ?? 0
    const after = await settledUsage(dataDir)
    report.log(`  ${fmt(EDITS)} PUTs of ${mb(Buffer.byteLength(v1))} in ${putS.toFixed(1)} s (${((putS * 1000) / EDITS).toFixed(1)} ms each, sequential)`)
    report.log(`  the write journal held ${mb(lastPut)} at the last PUT (the last writes, until their checkpoint: at most 4 files of 32 MB)`)

    const apparent = report.check({
      section: SECTION,
      name: `${fmt(EDITS)} versions beyond 1st copy, apparent`,
      value: (after.apparent - before.apparent) / 1024 / 1024,
      unit: 'MB',
      goal: { op: '<', value: GOAL_MB, unit: 'MB' },
      detail: `sum of file sizes; ${fmt(after.files - before.files)} files added`,
    })
    const allocated = report.check({
      section: SECTION,
      name: `${fmt(EDITS)} versions beyond 1st copy, allocated`,
      value: (after.allocated - before.allocated) / 1024 / 1024,
      unit: 'MB',
      goal: { op: '<', value: GOAL_MB, unit: 'MB' },
      detail: `st_blocks×512 of files and folders; ${fmt(after.dirs - before.dirs)} folders added`,
    })
    report.log()
    report.table(
      ['data dir', 'apparent', 'allocated', 'files', 'folders'],
      [
        ['after the first version', mb(before.apparent), mb(before.allocated), fmt(before.files), fmt(before.dirs)],
        [`after ${fmt(EDITS)} more`, mb(after.apparent), mb(after.allocated), fmt(after.files), fmt(after.dirs)],
        [
          'beyond the first copy',
          mb(after.apparent - before.apparent),
          mb(after.allocated - before.allocated),
          fmt(after.files - before.files),
          fmt(after.dirs - before.dirs),
        ],
        ['goal', `< ${GOAL_MB} MB ${verdict(apparent)}`, `< ${GOAL_MB} MB ${verdict(allocated)}`, '', ''],
      ],
    )
    // Where the growth went: shows whether it is data (deltas) or filesystem overhead.
    const growth = growthByArea(before, after)
    report.log()
    report.table(
      ['growth by area', 'apparent', 'allocated', 'files', 'folders'],
      growth.map(([area, g]) => [area, mb(g.apparent), mb(g.allocated), fmt(g.files), fmt(g.dirs)]),
    )

    // The version list without contents, and the head with them.
    const listed = JSON.parse(await getText(`${server.url}/api/files/${id}?files=none`)) as { versionCount: number; versions: Array<{ versionId: string }> }
    const countOk = listed.versionCount === EDITS + 1 && listed.versions.length === EDITS + 1 && listed.versions.at(-1)?.versionId === `v${EDITS + 1}`
    const latest = JSON.parse(await getText(`${server.url}/api/files/${id}?files=latest`)) as { versions: Array<{ files?: Record<string, string> }> }
    const headOk = latest.versions.at(-1)?.files?.['index.html'] === doc.text()

    // v1 through the full GET, which streams the oldest version first.
    const probe = await probeFullGet(`${server.url}/api/files/${id}`, v1, EDITS + 1)
    let v1Ok = probe.v1Ok
    let v1Via = 'GET /api/files/{id} (streamed)'
    if (v1Ok === undefined) {
      await server.stop()
      stopped = true
      const files = await readVersionFromStore(dataDir, id, 1)
      v1Ok = files?.['index.html'] !== undefined && Buffer.from(files['index.html']).equals(Buffer.from(v1))
      v1Via = 'the store API (the GET did not reach v1 in time)'
    }
    report.check({
      section: SECTION,
      name: `GET lists ${fmt(EDITS + 1)} versions`,
      value: countOk ? 1 : 0,
      unit: 'ok',
      goal: { op: '>=', value: 1, unit: 'ok' },
      detail: `versionCount ${listed.versionCount} (?files=none)`,
    })
    report.check({
      section: SECTION,
      name: 'v1 byte-identical to the upload',
      value: v1Ok ? 1 : 0,
      unit: 'ok',
      goal: { op: '>=', value: 1, unit: 'ok' },
      detail: `read via ${v1Via}`,
    })
    report.check({
      section: SECTION,
      name: `v${EDITS + 1} (head) equals the last upload`,
      value: headOk ? 1 : 0,
      unit: 'ok',
      goal: { op: '>=', value: 1, unit: 'ok' },
      detail: '?files=latest',
    })
    report.log()
    report.log(`  versions listed: ${listed.versions.length} (versionCount ${listed.versionCount}) ${countOk ? 'OK' : 'FAIL'}`)
    report.log(`  head equals the last upload: ${headOk ? 'OK' : 'FAIL'}`)
    report.log(`  v1 byte-identical to the first upload: ${v1Ok ? 'OK' : 'FAIL'} (via ${v1Via})`)
    report.log(
      `  full GET (files=all): headers after ${fmt(probe.headersMs)} ms, v1 complete after ${probe.v1Ms === undefined ? '-' : fmt(probe.v1Ms)} ms; ` +
        `${probe.versionsSeen} of ${fmt(EDITS + 1)} versions and ${mb(probe.bytes)} streamed in ${fmt(probe.elapsedMs)} ms${probe.complete ? '' : ' (stopped there)'}`,
    )
    if (!probe.complete) {
      report.problem(
        `section 4: GET /api/files/{id} of the 1,001-version 1 MB folio streamed only ${probe.versionsSeen} of ${EDITS + 1} versions ` +
          `(${mb(probe.bytes)}) in ${(probe.elapsedMs / 1000).toFixed(0)} s; the bench gave up on it`,
      )
    }
    if (server.stderr().trim()) report.problem(`section 4, folio stderr: ${server.stderr().trim().slice(-500)}`)

    report.sections.versionDisk = {
      putSeconds: putS,
      before,
      after,
      growthByArea: Object.fromEntries(growthByArea(before, after)),
      countOk,
      headOk,
      v1Ok,
      v1Via,
      fullGetProbe: probe,
    }
  } finally {
    if (!stopped) await server.stop()
  }
}

interface Probe {
  v1Ok: boolean | undefined
  headersMs: number
  v1Ms: number | undefined
  versionsSeen: number
  bytes: number
  elapsedMs: number
  complete: boolean
}

/**
 * Reads GET /api/files/{id} (every version with its files) as it streams, for at most
 * FULL_GET_WINDOW_MS: checks that v1's index.html is exactly `v1` (a JSON string escapes one
 * way only, so comparing the serialised text compares the bytes) and counts how many versions
 * arrive in the window. Only the text from v1's start to its end is ever kept.
 */
async function probeFullGet(url: string, v1: string, versions: number): Promise<Probe> {
  const controller = new AbortController()
  const started = performance.now()
  const timer = setTimeout(() => controller.abort(), FULL_GET_WINDOW_MS)
  const expected = `"files":{"index.html":${JSON.stringify(v1)}}`
  const probe: Probe = { v1Ok: undefined, headersMs: NaN, v1Ms: undefined, versionsSeen: 0, bytes: 0, elapsedMs: 0, complete: false }
  const marker = '"versionId":"v'
  let held = ''
  try {
    const response = await fetch(url, { signal: controller.signal })
    probe.headersMs = performance.now() - started
    const decoder = new TextDecoder()
    const reader = response.body!.getReader()
    for (;;) {
      const { value: chunk, done } = await reader.read()
      if (done) break
      probe.bytes += chunk.byteLength
      // Keep a tail as long as the marker so a marker split across chunks is still seen.
      const text = held + decoder.decode(chunk, { stream: true })
      // Markers wholly inside `held` were counted with the previous chunk.
      const from = Math.max(0, held.length - marker.length + 1)
      for (let at = text.indexOf(marker, from); at !== -1; at = text.indexOf(marker, at + 1)) probe.versionsSeen++
      if (probe.v1Ok === undefined) {
        const start = text.indexOf('"versionId":"v1",')
        const filesAt = start === -1 ? -1 : text.indexOf('"files":', start)
        if (filesAt !== -1 && text.length >= filesAt + expected.length) {
          probe.v1Ok = text.slice(filesAt, filesAt + expected.length) === expected
          probe.v1Ms = performance.now() - started
        }
        held = probe.v1Ok === undefined ? text : text.slice(-marker.length)
      } else {
        held = text.slice(-marker.length)
      }
    }
    probe.complete = probe.versionsSeen >= versions
  } catch (error) {
    if (!controller.signal.aborted) throw error
  } finally {
    clearTimeout(timer)
    probe.elapsedMs = performance.now() - started
  }
  return probe
}

/** The data dir's usage once it has not changed for 3 s: housekeeping done, the journal checkpointed. */
async function settledUsage(dataDir: string): Promise<Awaited<ReturnType<typeof diskUsage>>> {
  let usage = await diskUsage(dataDir)
  for (let stableSince = performance.now(); performance.now() - stableSince < 3_000; ) {
    await new Promise((r) => setTimeout(r, 300))
    const again = await diskUsage(dataDir)
    if (again.apparent !== usage.apparent) stableSince = performance.now()
    usage = again
  }
  return usage
}
