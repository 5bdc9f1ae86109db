import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment, listComments, react, recordAnalytics } from '../src/api/engagement.js'
import { BIN, killHard, type ServerProcess, spawnServer } from './helpers/cli-process.js'
import { testApi } from './helpers/api.js'
import { makeDataDir } from './helpers/server.js'
import { delay, startTerminal, type Terminal, terminalBackend, waitForExit, waitForScreen } from './helpers/terminal.js'

/**
 * One real run of the live view in a real terminal: the built CLI (`npm test` builds it first)
 * in a pseudo-terminal (tmux, or util-linux's script when there is no tmux; see helpers/terminal.ts),
 * read back as the screen a person would see.
 */
describe(`folio status in a real terminal (${await terminalBackend()})`, () => {
  let server: ServerProcess | undefined
  let terminal: Terminal | undefined
  let dataDir: string
  let scratch: string

  beforeAll(async () => {
    dataDir = await makeDataDir()
    scratch = await mkdtemp(join(tmpdir(), 'folio-terminal-'))
    server = await spawnServer(dataDir)
  })

  afterAll(async () => {
    await terminal?.stop()
    if (server) await killHard(server.child)
    await rm(dataDir, { recursive: true, force: true })
    await rm(scratch, { recursive: true, force: true })
  })

  it('shows a folio with its views, then quits on q with exit code 0', async () => {
    const api = testApi(server!.url)
    const title = 'Terminal status deck'
    const folioId = await api.create(title, undefined, { status: 'published' })
    for (let i = 0; i < 3; i++)
      expect(
        (await api.send(recordAnalytics, { params: { id: folioId }, body: { isInitial: true, device: i === 0 ? 'mobile' : 'desktop', sessionSeconds: 20 } }))
          .status,
      ).toBe(200)
    expect((await api.send(react, { params: { id: folioId }, body: { increments: { '🔥': 1 } } })).status).toBe(200)

    // No profile or key of the user's: FOLIO_CONFIG_DIR points at an empty folder.
    terminal = await startTerminal([process.execPath, BIN, 'status', '--server', server!.url], {
      cols: 120,
      rows: 40,
      env: { FOLIO_CONFIG_DIR: scratch, FOLIO_API_KEY: '', SERVICE_API_KEY: '' },
    })

    // VIEWS, then the last 7 days as a sparkline (today's three views the tallest bar), AVG, MOB/DESK.
    const row = new RegExp(`${title}\\s+${folioId}\\s+published\\s+v1\\s+3\\s+······█\\s+20s\\s+1/2\\s`)
    const screen = await waitForScreen(terminal, row, 'the folio row')
    expect(screen).toContain('folio status')
    expect(screen).toContain(server!.url)
    expect(screen).toContain('Tunnel stopped')
    expect(screen).toContain('🔥 1')
    expect(screen).toContain(`Comments on “${title}”`)
    expect(screen).toContain('q quit')

    await terminal.send('q')
    expect(await waitForExit(terminal)).toBe(0)
  })

  const env = () => ({ FOLIO_CONFIG_DIR: scratch, FOLIO_API_KEY: '', SERVICE_API_KEY: '' })
  /** The row the cursor (›) is on. */
  const selectedRow = (screen: string) => screen.split('\n').find((line) => line.startsWith('›')) ?? ''

  it('takes two keys that arrive in one chunk (key repeat) as two presses', async () => {
    const api = testApi(server!.url)
    // Most recently updated first: the list reads Chunk three, Chunk two, Chunk one.
    for (const title of ['Chunk one', 'Chunk two', 'Chunk three']) await api.create(title, undefined, { status: 'published' })
    const t = await startTerminal([process.execPath, BIN, 'status', '--server', server!.url], { cols: 120, rows: 40, env: env() })
    try {
      await waitForScreen(t, (s) => selectedRow(s).includes('Chunk three'), 'the list, the newest folio selected')
      await t.send('jj')
      await waitForScreen(t, (s) => selectedRow(s).includes('Chunk one'), 'the cursor two rows down', 5000)
      await t.send('\x1b[A\x1b[A')
      await waitForScreen(t, (s) => selectedRow(s).includes('Chunk three'), 'the cursor two rows up (two arrows in one chunk)', 5000)
      await t.send('jq')
      expect(await waitForExit(t)).toBe(0)
    } finally {
      await t.stop()
    }
  })

  it('shows reactions and comments as they happen (live events), views as they start', async () => {
    const api = testApi(server!.url)
    const id = await api.create('Live deck', undefined, { status: 'published' })
    // A poll every 60 s: what shows up sooner came through the live event stream.
    const t = await startTerminal([process.execPath, BIN, 'status', '--server', server!.url, '--interval', '60'], { cols: 120, rows: 40, env: env() })
    try {
      await waitForScreen(t, (s) => selectedRow(s).includes('Live deck') && s.includes('live: '), 'the list, watched live')
      const started = Date.now()
      expect((await api.send(react, { params: { id }, body: { increments: { '🔥': 2 } } })).status).toBe(200)
      await waitForScreen(t, /\d\d:\d\d:\d\d Live deck 🔥 \+2/, 'the reaction in the recent activity', 5000)
      expect(
        (await api.send(createComment, { params: { id }, body: { text: 'Hello from a viewer', versionId: 'v1', filename: 'index.html', author: 'Vera' } }))
          .status,
      ).toBe(200)
      const screen = await waitForScreen(t, /Live deck Vera: Hello from a viewer/, 'the comment in the recent activity', 5000)
      expect(Date.now() - started).toBeLessThan(30_000)
      // The comments panel has it too, and the table the reactions.
      expect(screen).toContain('Vera: Hello from a viewer')
      expect(selectedRow(screen)).toContain('🔥 2')
      // A view starting is an event for the owner's stream: on screen with no key pressed.
      expect((await api.send(recordAnalytics, { params: { id }, body: { isInitial: true, device: 'desktop', sessionSeconds: 5 } })).status).toBe(200)
      await waitForScreen(t, /Live deck A viewer opened it/, 'the view, as it started', 5000)
      // And as it ends, how far it got.
      const end = {
        sessionSeconds: 65,
        kind: 'slides',
        total: 5,
        parts: [{ n: 2, s: 65, v: true }],
        furthest: 2,
        end: { seen: 2, total: 5, seconds: 70, longest: 2 },
      }
      expect((await api.send(recordAnalytics, { params: { id }, body: end })).status).toBe(200)
      await waitForScreen(t, /Live deck A viewer read 2 of 5 slides in 1 min, longest on slide 2/, 'the view’s summary, as it ended', 5000)
      await t.send('q')
      expect(await waitForExit(t)).toBe(0)
    } finally {
      await t.stop()
    }
  })

  it('resolves and reopens the selected comment from the keyboard', async () => {
    const api = testApi(server!.url)
    const id = await api.create('Review deck', undefined, { status: 'published' })
    for (const text of ['First remark', 'Second remark']) {
      expect((await api.send(createComment, { params: { id }, body: { text, versionId: 'v1', filename: 'index.html', author: 'Rae' } })).status).toBe(200)
    }
    const resolved = async () =>
      Object.fromEntries(((await api.send(listComments, { params: { id } })).body as { text: string; resolved: boolean }[]).map((c) => [c.text, c.resolved]))
    const t = await startTerminal([process.execPath, BIN, 'status', '--server', server!.url], { cols: 120, rows: 40, env: env() })
    try {
      await waitForScreen(t, (s) => selectedRow(s).includes('Review deck') && s.includes('Second remark'), 'the folio and its comments')
      // Tab: the keys move through the comments (newest first); the footer says which keys do what.
      await t.send('\t')
      let screen = await waitForScreen(t, /› Rae: Second remark/, 'the newest comment selected')
      expect(screen).toContain('x resolve/reopen')
      await t.send('j')
      await waitForScreen(t, /› Rae: First remark/, 'the older comment selected')
      await t.send('x')
      screen = await waitForScreen(t, /› ✓ Rae: First remark/, 'the comment resolved', 5000)
      expect(screen).toContain('(1 open of 2)')
      expect(await resolved()).toEqual({ 'First remark': true, 'Second remark': false })
      await t.send('x')
      await waitForScreen(t, /› Rae: First remark/, 'the comment open again', 5000)
      expect(await resolved()).toEqual({ 'First remark': false, 'Second remark': false })
      // Esc goes back to the folios; a second Esc quits.
      await t.send('\x1b')
      await waitForScreen(t, (s) => s.split('\n').at(-1)!.includes('tab comments'), 'the folios’ keys again')
      await t.send('q')
      expect(await waitForExit(t)).toBe(0)
    } finally {
      await t.stop()
    }
  })

  it('exits 1 before drawing when the server refuses the key', async () => {
    const t = await startTerminal([process.execPath, BIN, 'status', '--server', server!.url, '--key', 'folio_live_wrong'], { cols: 100, rows: 20, env: env() })
    try {
      // What it says is asserted in cli-status.test.ts: tmux does not keep the output of a
      // command that ends this fast. Here: it ends, with 1, instead of opening the live view.
      expect(await waitForExit(t)).toBe(1)
    } finally {
      await t.stop()
    }
  })

  it('leaves nothing of the previous frame on screen after a resize', async () => {
    const api = testApi(server!.url)
    await api.create('Resize deck with a title long enough to be cut at 70 columns', undefined, { status: 'published' })
    const t = await startTerminal([process.execPath, BIN, 'status', '--server', server!.url], { cols: 120, rows: 40, env: env() })
    try {
      await waitForScreen(t, /Resize deck/, 'the list')
      // Narrower and shorter, wider and taller, then only shorter: the frame is drawn once, from the top.
      for (const [cols, rows] of [
        [70, 30],
        [120, 40],
        [100, 22],
        [90, 26],
      ] as const) {
        await t.resize(cols, rows)
        // Until the app hears of the resize, the terminal shows the old frame re-wrapped: wait for
        // the new one (every line within the new width), then check it is whole and stays so.
        const fits = (s: string) => s.split('\n').every((line) => [...line].length <= cols)
        const screen = await waitForScreen(
          t,
          (s) => s.split('\n')[0]!.startsWith('folio status') && s.split('\n').at(-1)!.startsWith('↑/↓') && fits(s),
          `a whole frame at ${cols}×${rows}`,
          5000,
        )
        // Let a late frame land too, then read it again: it must still be one frame.
        await delay(300)
        const settled = await t.screen()
        for (const s of [screen, settled]) {
          const lines = s.split('\n')
          expect(
            lines.filter((l) => l.startsWith('folio status')),
            s,
          ).toHaveLength(1)
          expect(
            lines.filter((l) => l.includes('Tunnel ')),
            s,
          ).toHaveLength(1)
          expect(
            lines.filter((l) => l.startsWith('↑/↓')),
            s,
          ).toHaveLength(1)
          expect(lines.length, s).toBeLessThanOrEqual(rows)
          for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(cols)
        }
      }
      await t.send('q')
      expect(await waitForExit(t)).toBe(0)
    } finally {
      await t.stop()
    }
  })
})
