import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio, updateFolio } from '../src/api/files.js'
import { runCli } from './helpers/cli.js'
import { useServer } from './helpers/use-server.js'

/**
 * folio pull writes a folio's files into a folder, and folio restore --pull does so after a
 * restore (issue 26). Nothing of the folder is lost that is not in the folio's history: unpushed
 * changes are never overwritten without --force, and a file is removed only when a version holds
 * its bytes.
 */

const s = useServer()
let work: string
const config = () => ({ FOLIO_CONFIG_DIR: join(work, 'config') })

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-pull-'))
})
afterAll(() => rm(work, { recursive: true, force: true }))

/** A 1×1 PNG: binary files travel as data URLs in the files API and must land as bytes. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const cli = (args: string[], cwd?: string) => runCli([...args, '--server', s.ts.url], config(), cwd ? { cwd } : {})
const latest = async (id: string): Promise<Record<string, string>> =>
  (await s.api.send(getFolio, { params: { id }, query: { files: 'latest' } })).body.versions.at(-1).files
const put = (id: string, files: Record<string, string>) => s.api.send(updateFolio, { params: { id }, body: { files } })

describe('folio pull', () => {
  it('writes the latest files into a new folder, byte for byte, and links it', async () => {
    const id = await s.api.create('Pulled', {
      'index.html': '<h1>home</h1>',
      'css/site.css': 'h1{}',
      'logo.png': `data:image/png;base64,${PNG.toString('base64')}`,
    })
    const dir = join(work, 'fresh')
    const pulled = await cli(['pull', id, dir, '--json'])
    expect(pulled.code).toBe(0)
    expect(pulled.json()).toEqual({
      event: 'pulled',
      id,
      dir,
      versionId: 'v1',
      latestVersionId: 'v1',
      written: ['css/site.css', 'index.html', 'logo.png'],
      removed: [],
      kept: [],
    })
    expect(await readFile(join(dir, 'index.html'), 'utf8')).toBe('<h1>home</h1>')
    expect(await readFile(join(dir, 'css/site.css'), 'utf8')).toBe('h1{}')
    expect(await readFile(join(dir, 'logo.png'))).toEqual(PNG)
    expect(JSON.parse(await readFile(join(dir, '.folio', 'link.json'), 'utf8'))).toMatchObject({ id })

    // Linked and agreeing: a sync has nothing to push, a second pull nothing to write.
    expect((await cli(['sync', '--json'], dir)).json()).toMatchObject({ event: 'synced', versionId: 'v1', changed: false })
    const again = await cli(['pull'], dir)
    expect(again.code).toBe(0)
    expect(again.stdout).toBe(`${dir} already holds v1\n`)
  })

  it('removes only files whose bytes a version holds, keeps the rest, and refuses to overwrite unpushed changes without --force', async () => {
    const dir = join(work, 'site')
    await mkdir(dir)
    await writeFile(join(dir, 'index.html'), '<h1>one</h1>')
    await writeFile(join(dir, 'old.html'), '<p>old</p>')
    const id = await s.api.create('Site', { 'index.html': 'start' })
    expect((await cli(['sync', id, dir, '--json'])).json()).toMatchObject({ versionId: 'v2' })

    // Elsewhere: index.html changes and old.html goes. In the folder: a new file, never pushed.
    await put(id, { 'index.html': '<h1>two</h1>', 'new.html': '<p>new</p>' })
    await writeFile(join(dir, 'draft.html'), '<p>mine, not pushed</p>')
    const pulled = await cli(['pull'], dir)
    expect(pulled.code).toBe(0)
    expect(pulled.stdout).toBe(
      [
        `Pulled v3 into ${dir}: 2 written, 1 removed, 1 kept`,
        '  written: index.html, new.html',
        '  removed old.html: it is in v2',
        '  kept draft.html: not in v3, and these bytes are in no version',
        '',
      ].join('\n'),
    )
    expect(await readFile(join(dir, 'index.html'), 'utf8')).toBe('<h1>two</h1>')
    expect(existsSync(join(dir, 'old.html'))).toBe(false)
    expect(await readFile(join(dir, 'draft.html'), 'utf8')).toBe('<p>mine, not pushed</p>')

    // The kept file is the folder's own change: the next sync pushes it on top of v3.
    expect((await cli(['sync', '--json'], dir)).json()).toMatchObject({ versionId: 'v4', added: 1, paths: ['draft.html'] })

    // An unpushed edit the pull would overwrite: refused, nothing written, exit 1.
    await writeFile(join(dir, 'index.html'), '<h1>my edit</h1>')
    await put(id, { 'index.html': '<h1>their edit</h1>', 'new.html': '<p>new</p>', 'draft.html': '<p>mine, not pushed</p>', 'more.html': '<p>more</p>' })
    const refused = await cli(['pull', '--json'], dir)
    expect(refused.code).toBe(1)
    expect(refused.json()).toEqual({
      error: 'conflict',
      message: `The folder has changes not pushed to index.html; pulling v5 would overwrite them. Nothing was written. Push them first (folio sync ${id} ${dir}; with --force when a version was made elsewhere), or pass --force to take the folio's files and lose those changes.`,
    })
    expect(await readFile(join(dir, 'index.html'), 'utf8')).toBe('<h1>my edit</h1>')
    expect(existsSync(join(dir, 'more.html'))).toBe(false)

    // A one-off sync refuses too: both sides changed index.html.
    const sync = await cli(['sync'], dir)
    expect(sync.code).toBe(1)
    expect(sync.stderr).toMatch(
      /v5 was made elsewhere .* while this folder has changes not pushed: nothing was pushed\. Changed on both sides: index\.html\. Changed only in v5: more\.html\./,
    )

    // --force takes the folio's files.
    const forced = await cli(['pull', '--force', '--json'], dir)
    expect(forced.json()).toMatchObject({ versionId: 'v5', written: ['index.html', 'more.html'], removed: [], kept: [] })
    expect(await readFile(join(dir, 'index.html'), 'utf8')).toBe('<h1>their edit</h1>')
    expect((await cli(['sync', '--json'], dir)).json()).toMatchObject({ versionId: 'v5', changed: false })
  })

  it('--at writes an older version, which the next sync pushes as the latest', async () => {
    const id = await s.api.create('Old one', { 'index.html': '<h1>v1</h1>' })
    await put(id, { 'index.html': '<h1>v2</h1>', 'extra.html': 'x' })
    const dir = join(work, 'older')
    const pulled = await cli(['pull', id, dir, '--at', 'v1', '--json'])
    expect(pulled.json()).toMatchObject({ versionId: 'v1', latestVersionId: 'v2', written: ['index.html'] })
    expect(await readFile(join(dir, 'index.html'), 'utf8')).toBe('<h1>v1</h1>')
    // extra.html never came from this folder: a sync keeps it in the folio (as always).
    expect((await cli(['sync', '--json'], dir)).json()).toMatchObject({ versionId: 'v3', updated: 1, kept: ['extra.html'] })
    expect(await latest(id)).toEqual({ 'index.html': '<h1>v1</h1>', 'extra.html': 'x' })

    const missing = await cli(['pull', id, dir, '--at', 'v9', '--json'])
    expect(missing.code).toBe(2)
    expect(missing.json()).toMatchObject({ error: 'usage', message: expect.stringMatching(/^Folio \S+ has no version v9 \(it has v1–v3/) })
  })

  it('refuses to pull one folio into a folder linked to another', async () => {
    const a = await s.api.create('A')
    const b = await s.api.create('B')
    const dir = join(work, 'linked-a')
    expect((await cli(['pull', a, dir])).code).toBe(0)
    const wrong = await cli(['pull', b], dir)
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain(`${dir} is linked to folio ${a}, not ${b}: pass the folder to pull into, folio pull ${b} <folder>.`)
  })
})

describe('folio restore in a linked folder', () => {
  it('--pull writes the restored files into it; --no-pull and no terminal leave it, saying how', async () => {
    const id = await s.api.create('Restored', { 'a.html': '<h1>a</h1>', 'b.css': 'b{}' })
    const dir = join(work, 'restore')
    expect((await cli(['pull', id, dir])).code).toBe(0)
    await writeFile(join(dir, 'c.js'), 'c()')
    await rm(join(dir, 'b.css'))
    expect((await cli(['sync', '--json'], dir)).json()).toMatchObject({ versionId: 'v2', added: 1, deleted: 1 })

    const restored = await cli(['restore', 'v1', '--pull', '--json'], dir)
    expect(restored.code).toBe(0)
    const [result, pull] = restored.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(result).toEqual({ id, restored: 'v1', versionId: 'v3' })
    expect(pull).toMatchObject({ event: 'pulled', versionId: 'v3', written: ['b.css'], removed: [{ path: 'c.js', inVersion: 'v2' }], kept: [] })
    expect(await readFile(join(dir, 'b.css'), 'utf8')).toBe('b{}')
    expect(existsSync(join(dir, 'c.js'))).toBe(false)
    expect((await cli(['sync', '--json'], dir)).json()).toMatchObject({ versionId: 'v3', changed: false })

    const left = await cli(['restore', 'v2', '--no-pull'], dir)
    expect(left.stdout).toBe('Restored v2 as v4\n')
    expect(left.stderr).toBe('')
    expect(existsSync(join(dir, 'c.js'))).toBe(false)

    const told = await cli(['restore', 'v1'], dir)
    expect(told.stdout).toBe('Restored v1 as v5\n')
    expect(told.stderr).toContain(`${dir} still holds the files from before: folio pull writes v5's files into it`)

    // Not in the linked folder: --pull has nowhere to write, and nothing is restored.
    const nowhere = await cli(['restore', id, 'v1', '--pull'], work)
    expect(nowhere.code).toBe(2)
    expect(nowhere.stderr).toContain('--pull writes the restored files into the folder linked to')
    expect((await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.versions).toHaveLength(5)
  })
})
