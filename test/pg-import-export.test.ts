import { once } from 'node:events'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, recordAnalytics } from '../src/api/engagement.js'
import { getFolio, listFolios, updateFolio } from '../src/api/files.js'
import { testApi } from './helpers/api.js'
import { runCli, spawnCli } from './helpers/cli.js'
import { killHard, spawnServer } from './helpers/cli-process.js'
import { freshDatabase, type TestDatabase } from './helpers/pg.js'
import { listFiles } from './helpers/store.js'

/*
 * folio db import|export: a data dir with 100 folios and their whole histories goes into
 * PostgreSQL and comes back out as a data dir holding the same versions, comments and counts,
 * byte for byte; a copy that stopped half-way is finished by running it again.
 */

let work: string
let source: string
let db: TestDatabase
/** What the source data dir's server answered for each folio: every version with its files. */
const expected = new Map<string, unknown>()

const FOLIOS = 100
const page = (i: number, v: number) =>
  `<!doctype html><h1>Folio ${i}</h1>\n${Array.from({ length: 60 }, (_, l) => `<p>line ${l}${l === v ? ` edited in v${v}` : ''}</p>`).join('\n')}`

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-db-copy-'))
  source = join(work, 'source')
  db = await freshDatabase()
  const server = await spawnServer(source)
  try {
    const api = testApi(server.url)
    const ids = await Promise.all(
      Array.from({ length: FOLIOS }, (_, i) =>
        api.create(`Folio ${i}`, { 'index.html': page(i, 0), 'data.bin.txt': `\u00e9\u4e2d${i}` }, { status: 'published' }),
      ),
    )
    await Promise.all(
      ids.map(async (id, i) => {
        for (let v = 1; v <= 3; v++)
          await api.send(updateFolio, {
            params: { id },
            query: { files: 'none' },
            body: { files: { 'index.html': page(i, v), [`notes-${v}.md`]: `# v${v}` }, commitMessage: `edit ${v}` },
          })
        await api.send(createComment, { params: { id }, body: { text: `comment on ${i}`, versionId: 'v4', filename: 'index.html' } })
        for (let b = 0; b < i % 4; b++) await api.send(recordAnalytics, { params: { id }, body: { isInitial: true, device: 'desktop', sessionSeconds: 5 } })
      }),
    )
    for (const id of ids) expected.set(id, (await api.send(getFolio, { params: { id }, query: { files: 'all' } })).body)
  } finally {
    const exited = once(server.child, 'exit')
    server.child.kill('SIGINT')
    await exited
  }
}, 120_000)

afterAll(async () => {
  await db?.drop()
  await rm(work, { recursive: true, force: true })
})

/** A folio as a server on `dataDir` answers it, for comparison (the moments it was read aside). */
async function foliosOf(dataDir: string): Promise<Map<string, unknown>> {
  const server = await spawnServer(dataDir)
  try {
    const api = testApi(server.url)
    const listed = (await api.send(listFolios)).body as Array<{ id: string }>
    const out = new Map<string, unknown>()
    for (const { id } of listed) out.set(id, (await api.send(getFolio, { params: { id }, query: { files: 'all' } })).body)
    return out
  } finally {
    await killHard(server.child)
  }
}

describe('folio db import and export', () => {
  it('moves a data dir of 100 folios into the database and back out, every version, comment and count the same, byte for byte', async () => {
    const imported = await runCli(['db', 'import', source, '--database', db.url, '--json'])
    expect(imported.stderr).toBe('')
    expect(imported.code).toBe(0)
    const report = imported.json()
    expect(report.keys).toBe(report.verified)
    expect(report.copied).toBe(report.keys)

    // Running it again writes nothing: everything is there already.
    const again = (await runCli(['db', 'import', source, '--database', db.url, '--json'])).json()
    expect(again).toMatchObject({ keys: report.keys, copied: 0, verified: report.keys })

    const target = join(work, 'exported')
    const exported = await runCli(['db', 'export', target, '--database', db.url, '--json'])
    expect(exported.code).toBe(0)
    expect(exported.json()).toMatchObject({ keys: report.keys, verified: report.keys })

    // The same files, the same bytes.
    const [before, after] = await Promise.all([listFiles(source), listFiles(target)])
    const files = (list: Array<{ path: string }>) =>
      list
        .map((f) => f.path)
        .filter((p) => p !== 'folio.lock')
        .sort()
    expect(files(after)).toEqual(files(before))
    for (const f of files(before)) expect((await readFile(join(target, f))).equals(await readFile(join(source, f)))).toBe(true)

    // And a server on the exported dir answers what the original answered.
    const served = await foliosOf(target)
    expect(served.size).toBe(FOLIOS)
    for (const [id, folio] of expected) expect(served.get(id)).toEqual(folio)
  }, 120_000)

  it("finishes a copy stopped half-way when run again, and refuses another store's data", async () => {
    const other = await freshDatabase()
    try {
      const run = spawnCli(['db', 'import', source, '--database', other.url])
      // Stopped as soon as it says it is copying.
      await new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (/Copied \d/.test(run.stderr())) {
            clearInterval(check)
            resolve()
          }
        }, 5)
      })
      run.child.kill('SIGKILL')
      // Stopped, not finished: the second run has something left to do.
      expect(await run.exited).toBeNull()

      const finished = await runCli(['db', 'import', source, '--database', other.url, '--json'])
      expect(finished.code).toBe(0)
      const report = finished.json()
      expect(report.verified).toBe(report.keys)
      expect(report.copied).toBeGreaterThan(0)
      expect(report.copied).toBeLessThan(report.keys)

      // A different data dir into the same database: refused, nothing written.
      const stranger = join(work, 'stranger')
      const server = await spawnServer(stranger)
      await testApi(server.url).create('Not from the source')
      await killHard(server.child)
      const refused = await runCli(['db', 'import', stranger, '--database', other.url])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(/already holds \d+ item\(s\) that data dir .* does not .* Copy into an empty one\./)
    } finally {
      await other.drop()
    }
  }, 120_000)

  it('explains what is missing or wrong before touching anything', async () => {
    const noDir = await runCli(['db', 'import', '--database', db.url])
    expect(noDir.code).toBe(2)
    expect(noDir.stderr).toContain('Which data dir? folio db import ./.folio')
    // A mistyped folder is not imported as an empty store (nor made into one).
    const typo = join(work, 'not-a-data-dir')
    const notData = await runCli(['db', 'import', typo, '--database', db.url])
    expect(notData.code).toBe(1)
    expect(notData.stderr).toContain(`${typo} is not a folio data dir (it has no format.json): name the folder folio serve --data uses (default ./.folio).`)
    expect(await readFile(join(typo, 'format.json')).catch(() => 'absent')).toBe('absent')
    const notEmpty = join(work, 'not-empty')
    await rm(notEmpty, { recursive: true, force: true })
    await runCli(['db', 'export', notEmpty, '--database', db.url])
    await writeFile(join(notEmpty, 'stray.txt'), 'mine')
    const refused = await runCli(['db', 'export', notEmpty, '--database', db.url])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/already holds 1 item\(s\) that database .* does not \(e\.g\. stray\.txt\)/)
  })
})
