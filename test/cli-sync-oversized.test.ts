import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getSyncManifest } from '../src/api/sync.js'
import { spawnCli } from './helpers/cli.js'
import { tinyPng } from './helpers/images.js'
import { useServer } from './helpers/use-server.js'

/** sync --watch with files too big for a push: they never hold back the rest, and are never forgotten. */

const s = useServer()
let work: string
const cleanups: Array<() => unknown> = []

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-oversized-'))
})
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
  await rm(work, { recursive: true, force: true })
})

const MB = 1024 * 1024
const synced = (line: string) => line.startsWith('{') && JSON.parse(line).event === 'synced'
const parse = (line: string) => JSON.parse(line)
const latestPaths = async (id: string) => Object.keys((await s.api.send(getSyncManifest, { params: { id } })).body.files).sort()

function watch(id: string, dir: string) {
  const run = spawnCli(['sync', id, dir, '--watch', '--json', '--debounce', '150', '--server', s.ts.url], { FOLIO_CONFIG_DIR: join(work, 'config') })
  cleanups.push(() => run.child.kill('SIGKILL'))
  return run
}

describe('sync --watch and files too big for one push', () => {
  it('pushes the rest, names the file with its size and the limit on every push, until it fits or is ignored', async () => {
    const dir = await mkdtemp(join(work, 'site-'))
    await writeFile(join(dir, 'index.html'), '<h1>one</h1>')
    const id = await s.api.create('Oversized', { 'index.html': 'start' })
    const run = watch(id, dir)
    expect(parse(await run.waitForLine(synced))).toMatchObject({ versionId: 'v2', notPushed: [] })
    await run.waitForLine((l) => l.includes('"event":"watching"'))

    // 21 MB of noise: under the 32 MB a request may expand to, but 28 MB even gzipped, so no
    // request can carry it. The save next to it goes all the same.
    let mark = run.lines.length
    await writeFile(join(dir, 'video.mp4'), randomBytes(21 * MB))
    await writeFile(join(dir, 'index.html'), '<h1>two</h1>')
    let pushed = parse(await run.waitForLine((l) => synced(l) && parse(l).notPushed.length > 0, 30_000, mark))
    expect(pushed).toMatchObject({
      versionId: 'v3',
      paths: ['index.html'],
      notPushed: [{ path: 'video.mp4', problem: 'too-big', size: 21 * MB, limit: 20 * MB }],
    })
    expect(pushed.notPushed[0].message).toMatch(
      /^video\.mp4 \(21\.0 MB, over 20\.0 MB by itself\) is too big for one push \(it comes to 28\.\d MB even gzipped\): a push carries at most 20\.0 MB \(32\.0 MB once its gzip is expanded\)\. To get it in, make it smaller, or leave it out with \.folioignore\.$/,
    )

    // Every later push still names it; an image that big is told about folio upload.
    mark = run.lines.length
    await writeFile(join(dir, 'hero.png'), Buffer.concat([tinyPng(), randomBytes(33 * MB)]))
    await writeFile(join(dir, 'index.html'), '<h1>three</h1>')
    pushed = parse(await run.waitForLine((l) => synced(l) && parse(l).paths.includes('index.html'), 30_000, mark))
    expect(pushed.versionId).toBe('v4')
    expect(pushed.notPushed.map((n: { path: string }) => n.path)).toEqual(['hero.png', 'video.mp4'])
    expect(pushed.notPushed[0].message).toContain(
      `To get it in, put it in with folio upload ${id} ${join(dir, 'hero.png')} (images up to 25 MB each), or make it smaller.`,
    )
    expect(await latestPaths(id)).toEqual(['index.html'])

    // Made smaller, it goes; ignored, it leaves the list.
    mark = run.lines.length
    await writeFile(join(dir, 'video.mp4'), randomBytes(1024))
    pushed = parse(await run.waitForLine((l) => synced(l) && parse(l).paths.includes('video.mp4'), 30_000, mark))
    expect(pushed).toMatchObject({ versionId: 'v5', added: 1, notPushed: [{ path: 'hero.png' }] })
    mark = run.lines.length
    await writeFile(join(dir, '.folioignore'), 'hero.png\n')
    pushed = parse(await run.waitForLine(synced, 30_000, mark))
    expect(pushed).toMatchObject({ changed: false, notPushed: [] })
    expect(await latestPaths(id)).toEqual(['index.html', 'video.mp4'])

    run.child.kill('SIGINT')
    expect(await run.exited).toBe(0)
  })

  it('files that fit alone but not together: the push takes what fits, and the next one the rest', async () => {
    const dir = await mkdtemp(join(work, 'pair-'))
    await writeFile(join(dir, 'index.html'), '<h1>pair</h1>')
    const id = await s.api.create('Pair', { 'index.html': 'start' })
    const run = watch(id, dir)
    await run.waitForLine((l) => l.includes('"event":"watching"'))

    // 13 MB + 12 MB of noise: each one fits in a request, both come to 33 MB of JSON.
    const mark = run.lines.length
    await writeFile(join(dir, 'a.bin'), randomBytes(13 * MB))
    await writeFile(join(dir, 'b.bin'), randomBytes(12 * MB))
    const first = parse(await run.waitForLine((l) => synced(l) && parse(l).changed, 30_000, mark))
    expect(first).toMatchObject({ paths: ['b.bin'], notPushed: [{ path: 'a.bin', problem: 'no-room' }] })
    expect(first.notPushed[0].message).toBe('a.bin (13.0 MB) did not fit in this push with the rest; the next push takes it.')
    const second = parse(await run.waitForLine((l) => synced(l) && parse(l).paths.includes('a.bin'), 30_000, mark))
    expect(second).toMatchObject({ notPushed: [] })
    expect(await latestPaths(id)).toEqual(['a.bin', 'b.bin', 'index.html'])
    run.child.kill('SIGINT')
    expect(await run.exited).toBe(0)
  })
})
