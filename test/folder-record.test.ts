import { createHash } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FolderRecord } from '../src/cli/sync/folder-record.js'

/** The folder record: which files of a folio came from a folder, kept true across deletes and restores. */

let config: string
beforeAll(async () => {
  config = await mkdtemp(join(tmpdir(), 'folio-record-'))
  process.env.FOLIO_CONFIG_DIR = config
})
afterAll(async () => {
  delete process.env.FOLIO_CONFIG_DIR
  await rm(config, { recursive: true, force: true })
})

const sha = (text: string) => createHash('sha256').update(text).digest('hex')
const where = (root: string) => ({ server: 'http://127.0.0.1:3000', id: 'kL9VtGLOsbNK', root })

describe('FolderRecord', () => {
  it('knows a deleted file by the bytes the folder gave it, and survives a reload', async () => {
    const record = await FolderRecord.open(where('/site'))
    await record.replace(
      ['index.html', 'old.html'],
      [
        ['index.html', sha('home')],
        ['old.html', sha('old v1')],
      ],
      'v1',
    )
    await record.update(['old.html'], [], [['old.html', sha('old v2')]], 'v2')
    await record.update([], ['old.html'], [], 'v3')

    const reloaded = await FolderRecord.open(where('/site'))
    expect(reloaded.versionId).toBe('v3')
    expect(reloaded.has('old.html')).toBe(false)
    // A restore of v1 or v2 brings back the folder's own bytes: from the folder.
    expect(reloaded.cameFromFolder('old.html', sha('old v1'))).toBe(true)
    expect(reloaded.cameFromFolder('old.html', sha('old v2'))).toBe(true)
    // The same path with other bytes (folio upload, another folder): not from the folder.
    expect(reloaded.cameFromFolder('old.html', sha('uploaded'))).toBe(false)
    expect(reloaded.cameFromFolder('index.html', sha('anything'))).toBe(true)
    // Another folder synced to the same folio has a record of its own.
    expect((await FolderRecord.open(where('/elsewhere'))).cameFromFolder('old.html', sha('old v1'))).toBe(false)
  })

  it('forgets the oldest of the paths the folder no longer has, so a build naming files by hash stays small', async () => {
    const record = await FolderRecord.open(where('/build'))
    for (let build = 0; build < 1100; build++) {
      const name = `app.${build}.js`
      await record.replace(
        ['index.html', name],
        [
          ['index.html', sha('home')],
          [name, sha(`build ${build}`)],
        ],
        `v${build + 1}`,
      )
    }
    const records = await Promise.all((await readdir(join(config, 'sync'))).map(async (name) => JSON.parse(await readFile(join(config, 'sync', name), 'utf8'))))
    const saved = records.find((r) => r.root === '/build')
    expect(Object.keys(saved.contents)).toHaveLength(1002) // index.html, app.1099.js and 1000 gone ones
    expect(record.cameFromFolder('app.1098.js', sha('build 1098'))).toBe(true)
    expect(record.cameFromFolder('app.99.js', sha('build 99'))).toBe(true)
    expect(record.cameFromFolder('app.98.js', sha('build 98'))).toBe(false)
    expect(record.cameFromFolder('index.html', sha('home'))).toBe(true)
  })
})
