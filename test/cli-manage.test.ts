import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getFolio } from '../src/api/files.js'
import { getPublicFolio } from '../src/api/sharing.js'
import { runCli } from './helpers/cli.js'
import { BIN } from './helpers/cli-process.js'
import { recordingProxy } from './helpers/cli-proxy.js'
import { startTerminal, terminalBackend, waitForExit, waitForScreen } from './helpers/terminal.js'
import { useServer } from './helpers/use-server.js'

// Issue 11: publishing, privacy, titles and deleting without curl.
const backend = await terminalBackend()
const s = useServer()
let work: string
const cli = (args: string[], env: Record<string, string> = {}) => runCli(['--server', s.ts.url, ...args], { FOLIO_CONFIG_DIR: work, ...env })
const folio = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-cli-manage-'))
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

describe('folio publish and unpublish', () => {
  it('publish makes the share page visible, unpublish makes it a draft again; --json is the server’s answer', async () => {
    const id = await s.api.create('Launch deck')
    const published = await cli(['publish', id])
    expect(published.code).toBe(0)
    expect(published.stdout).toBe(`Published ${id}: ${s.ts.url}/share/${id}\n`)
    expect((await folio(id)).status).toBe('published')
    expect((await s.api.send(getPublicFolio, { params: { id } })).body).toMatchObject({ draft: false })

    const unpublished = await cli(['unpublish', id, '--json'])
    expect(unpublished.code).toBe(0)
    expect(unpublished.json()).toMatchObject({ success: true, project: { id, status: 'draft' } })
    expect((await s.api.send(getPublicFolio, { params: { id } })).body).toMatchObject({ draft: true })
    expect((await cli(['unpublish', id])).stdout).toContain(`${id} is a draft again`)
  })

  it('names a folio that is not there, with exit code 1', async () => {
    const missing = await cli(['publish', 'nope1234'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe(`folio: No folio nope1234 on ${s.ts.url}; folio list shows the folios there.\n`)
  })
})

describe('folio set', () => {
  it('changes only the fields it is given', async () => {
    const id = await s.api.create('Before', { 'index.html': '<h1>x</h1>' }, { description: 'kept', projectMode: 'deck' })
    const proxy = await recordingProxy(s.ts.url)
    try {
      const retitled = await runCli(['--server', proxy.url, 'set', id, '--title', 'After', '--comments', 'off'], { FOLIO_CONFIG_DIR: work })
      expect(retitled.code).toBe(0)
      expect(retitled.stdout).toBe(`Updated ${id}: title “After”, comments off\n`)
      // One update holding the two fields and nothing else.
      expect(proxy.bodiesOf('PUT', /^\/api\/files\//)).toEqual([{ title: 'After', allowComments: false }])
    } finally {
      await proxy.close()
    }
    expect(await folio(id)).toMatchObject({ title: 'After', description: 'kept', allowComments: false, projectMode: 'deck', isPrivate: false })

    const moded = await cli(['set', id, '--mode', 'document', '--moderation', 'owner-and-author', '--comments', 'on', '--json'])
    expect(moded.json()).toMatchObject({
      success: true,
      project: { id, projectMode: 'document', commentModeration: 'owner-and-author', allowComments: true, title: 'After' },
    })
  })

  it('--private without a key makes one and prints it; --access-key sets the one given; --public takes it away', async () => {
    const id = await s.api.create('Secret plans', { 'index.html': '<h1>x</h1>' }, { status: 'published' })
    const made = await cli(['set', id, '--private'])
    expect(made.code).toBe(0)
    const key = /^Access key: ([A-Za-z0-9]{20})$/m.exec(made.stdout)?.[1]
    expect(key, made.stdout).toBeDefined()
    expect(made.stdout).toContain(`Updated ${id}: private`)
    expect(await folio(id)).toMatchObject({ isPrivate: true, accessKey: key, status: 'published' })
    // Viewers now need that key.
    expect((await s.api.send(getPublicFolio, { params: { id } })).body).toMatchObject({ isPrivate: true, hasAccessKey: true })

    const chosen = await cli(['set', id, '--access-key', 'blue whale', '--json'])
    expect(chosen.json()).toMatchObject({ project: { isPrivate: true, accessKey: 'blue whale' } })
    const opened = await cli(['set', id, '--public'])
    expect(opened.stdout).toBe(`Updated ${id}: public (no access key)\n`)
    expect((await folio(id)).isPrivate).toBe(false)
  })

  it('refuses what cannot be meant: nothing to change, --private with --public, a mode that does not exist', async () => {
    const id = await s.api.create('Untouched')
    for (const [args, said] of [
      [['set', id], 'Nothing to change'],
      [['set', id, '--private', '--public'], "option '--private' cannot be used with option '--public'"],
      [['set', id, '--public', '--access-key', 'x'], 'cannot be used with'],
      [['set', id, '--mode', 'poster'], 'Allowed choices are deck, document'],
      [['set', id, '--comments', 'maybe'], 'Allowed choices are on, off'],
    ] as const) {
      const result = await cli([...args])
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toContain(said)
    }
    expect((await folio(id)).title).toBe('Untouched')
  })
})

describe('folio rm', () => {
  it('without a terminal deletes nothing unless given --yes; --json says what happened', async () => {
    const id = await s.api.create('Doomed')
    const refused = await cli(['rm', id])
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toBe(`folio: Nothing deleted: folio rm deletes ${id} for good, so confirm with --yes (or run it in a terminal to be asked).\n`)
    expect((await s.api.send(getFolio, { params: { id } })).status).toBe(200)
    const refusedJson = await cli(['rm', id, '--json'])
    expect(refusedJson.code).toBe(2)
    expect(refusedJson.json()).toMatchObject({ error: 'usage', message: expect.stringContaining('confirm with --yes') })

    const gone = await cli(['rm', id, '--yes', '--json'])
    expect(gone.code).toBe(0)
    expect(gone.json()).toEqual({ success: true, id, deleted: true })
    expect((await s.api.send(getFolio, { params: { id } })).status).toBe(404)
    const again = await cli(['rm', id, '--yes'])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`No folio ${id} on ${s.ts.url}`)
  })

  it(`asks first in a real terminal, naming what goes (${backend})`, async () => {
    const id = await s.api.create('Asked about')
    const env = { FOLIO_CONFIG_DIR: work, FOLIO_API_KEY: '', SERVICE_API_KEY: '', FOLIO_URL: '' }
    for (const [answer, kept] of [
      ['n', true],
      ['yes', false],
    ] as const) {
      const terminal = await startTerminal([process.execPath, BIN, '--server', s.ts.url, 'rm', id], { cols: 200, rows: 10, env })
      try {
        await waitForScreen(terminal, /\[y\/N\]/, 'the question')
        expect(await terminal.screen()).toContain(
          `Delete folio ${id} “Asked about” (draft, 1 version(s), 0 comment(s)) for good, with its share page and analytics? [y/N]`,
        )
        await terminal.send(`${answer}\r`)
        expect(await waitForExit(terminal)).toBe(0)
        if (kept) expect(await terminal.screen()).toContain('Nothing deleted.')
        expect((await s.api.send(getFolio, { params: { id } })).status).toBe(kept ? 200 : 404)
      } finally {
        await terminal.stop()
      }
    }
  })
})
