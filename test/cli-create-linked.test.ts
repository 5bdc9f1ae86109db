import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteFolio, getFolio, listFolios } from '../src/api/files.js'
import { runCli } from './helpers/cli.js'
import { chartDashboard, marpDeck, revealDemo } from './helpers/real-decks.js'
import { useServer } from './helpers/use-server.js'

// Issue 26: folio create takes its defaults from the page, and a linked folder never forks by accident.
const s = useServer()
let work: string
let config: { FOLIO_CONFIG_DIR: string }
const cli = (args: string[], cwd = work) => runCli(['--server', s.ts.url, ...args], config, { cwd })
const folio = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body
const folioCount = async () => (await s.api.send(listFolios)).body.length as number
const linkOf = async (dir: string) => JSON.parse(await readFile(join(dir, '.folio', 'link.json'), 'utf8'))

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-create-linked-'))
  config = { FOLIO_CONFIG_DIR: join(work, 'config') }
})
afterAll(() => rm(work, { recursive: true, force: true }))

async function site(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(work, name)
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), content)
  }
  return dir
}

describe('folio create takes what it was not given from the page', () => {
  it('reveal.js’s demo: titled from its <title>, described by its meta description, a deck', async () => {
    const dir = await revealDemo(work)
    const created = await cli(['create', '--dir', dir, '--json'])
    expect(created.code, created.stderr).toBe(0)
    expect(created.json()).toMatchObject({ title: 'reveal.js – The HTML Presentation Framework', projectMode: 'deck' })
    expect(await folio(created.json().id)).toMatchObject({
      title: 'reveal.js – The HTML Presentation Framework',
      description: 'A framework for easily creating beautiful presentations using HTML',
      projectMode: 'deck',
    })
  })

  it('the marp deck is a deck; the Chart.js page a dashboard; a plain report a document', async () => {
    const marp = (await cli(['create', '--dir', await marpDeck(work), '--json'])).json()
    expect(await folio(marp.id)).toMatchObject({ title: 'Q3 2026 review', projectMode: 'deck' })
    const charts = await cli(['create', '--dir', await chartDashboard(work)])
    expect(charts.code, charts.stderr).toBe(0)
    // The human text says what it picked and how to change it.
    expect(charts.stdout).toContain('Title: “Growth dashboard”, mode dashboard (title and mode from the page; folio set changes them)')
    const report = await site('report', {
      'index.html':
        '<!doctype html><title>Incident report &amp; actions</title><h1>Incident</h1><p>On Monday the service was down for an hour.</p><table><tr><td>Start</td><td>09:00</td></tr></table>',
    })
    const id = (await cli(['create', '--dir', report, '--json'])).json().id
    expect(await folio(id)).toMatchObject({
      title: 'Incident report & actions',
      description: 'On Monday the service was down for an hour.',
      projectMode: 'document',
    })
  })

  it('what is given wins; a page without a title or heading is named after its folder or file', async () => {
    const dir = await site('given', { 'index.html': '<title>From the page</title><div class="slide">1</div><div class="slide">2</div>' })
    const given = (await cli(['create', 'Mine', '--dir', dir, '--mode', 'document', '--description', 'Said so', '--json'])).json()
    expect(await folio(given.id)).toMatchObject({ title: 'Mine', description: 'Said so', projectMode: 'document' })
    const bare = await site('launch-notes', { 'index.html': '<div>no title here</div>' })
    const named = (await cli(['create', '--dir', bare, '--json'])).json()
    expect(await folio(named.id)).toMatchObject({ title: 'launch-notes', description: 'A single-page HTML folio.', projectMode: 'document' })
    const file = (await cli(['create', '--html', join(bare, 'index.html'), '--json'])).json()
    expect((await folio(file.id)).title).toBe('index')
  })
})

describe('folio create --dir in a linked folder', () => {
  it('refuses (exit 2) naming the folio and its share URL, creating nothing; --new forks on purpose', async () => {
    const dir = await site('linked', { 'index.html': '<title>Linked</title><p>v1</p>' })
    const first = await cli(['create', '--dir', dir, '--publish', '--json'])
    expect(first.code, first.stderr).toBe(0)
    const { id } = first.json()
    const before = await folioCount()

    for (const from of [
      ['--dir', '.'],
      ['--dir', join(dir, 'sub')],
    ]) {
      if (from[1] !== '.') await mkdir(join(dir, 'sub'), { recursive: true }).then(() => writeFile(join(dir, 'sub', 'index.html'), '<p>sub</p>'))
      const again = await cli(['create', ...from, '--publish'], dir)
      expect(again.code, from.join(' ')).toBe(2)
      expect(again.stdout).toBe('')
      expect(again.stderr).toContain(`folio ${id} (${s.ts.url}/share/${id})`)
      expect(again.stderr).toContain('folio sync')
      expect(again.stderr).toContain('--new')
      expect(again.stderr).toContain('Nothing was created.')
    }
    expect((await cli(['create', '--dir', dir, '--json'])).json()).toMatchObject({
      error: 'usage',
      message: expect.stringContaining(`${dir} is already linked to folio ${id}`),
    })
    expect(await folioCount()).toBe(before)
    expect(await linkOf(dir)).toEqual({ server: s.ts.url, id })

    // On purpose: a second folio, the folder linked to it, and stdout says what it was linked to.
    const fork = await cli(['create', '--dir', '.', '--new'], dir)
    expect(fork.code, fork.stderr).toBe(0)
    const forkId = /^Created (\w+) /.exec(fork.stdout)![1]!
    expect(forkId).not.toBe(id)
    expect(fork.stdout).toContain(`. is now linked to ${forkId}; it was linked to ${id} (${s.ts.url}/share/${id}), which stays as it was.`)
    expect(await linkOf(dir)).toEqual({ server: s.ts.url, id: forkId })
    expect(await folioCount()).toBe(before + 1)
    expect((await folio(id)).status).toBe('published')
    const forkJson = await cli(['create', '--dir', dir, '--new', '--json'])
    expect(forkJson.json()).toMatchObject({ previousLink: { id: forkId, url: `${s.ts.url}/share/${forkId}` } })
  })

  it('a folder linked to a folio that is gone is published anew; --new needs --dir', async () => {
    const dir = await site('orphan', { 'index.html': '<h1>Orphan</h1>' })
    const { id } = (await cli(['create', '--dir', dir, '--json'])).json()
    await s.api.send(deleteFolio, { params: { id } })
    const again = await cli(['create', '--dir', dir, '--json'])
    expect(again.code, again.stderr).toBe(0)
    expect(await linkOf(dir)).toEqual({ server: s.ts.url, id: again.json().id })
    const misplaced = await cli(['create', 'x', '--new'])
    expect(misplaced.code).toBe(2)
    expect(misplaced.stderr).toContain('--new goes with --dir')
  })
})
