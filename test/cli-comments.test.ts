import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createComment } from '../src/api/engagement.js'
import { deleteFolio, getFolio } from '../src/api/files.js'
import { runCli, spawnCli } from './helpers/cli.js'
import { BIN, killHard, spawnServer } from './helpers/cli-process.js'
import { testApi } from './helpers/api.js'
import { seedInbox, viewerComment } from './helpers/inbox-seed.js'
import { startTerminal, terminalBackend, waitForExit, waitForScreen } from './helpers/terminal.js'
import { useServer } from './helpers/use-server.js'

// Issue 9: folio comments <id>: the owner's inbox in a terminal, against a real server.
const backend = await terminalBackend()
const s = useServer({ config: { rateLimits: { comments: 10_000, reactions: 10_000, analytics: 10_000, public: 10_000, events: 10_000 } } })
let work: string
const cli = (args: string[], env: Record<string, string> = {}) => runCli(['--server', s.ts.url, ...args], env)
const comments = async (id: string) => (await s.api.send(getFolio, { params: { id }, query: { files: 'none' } })).body.comments as any[]
const commentOf = async (id: string, commentId: string) => (await comments(id)).find((c) => c.id === commentId)

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'folio-cli-comments-'))
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

describe('folio comments <id>', () => {
  it('lists open comments as threads, newest first, with where they were made and their state', async () => {
    const { deck, c } = await seedInbox(s.ts, s.api)
    const listed = await cli(['comments', deck])
    expect(listed.code).toBe(0)
    const lines = listed.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID\s+AUTHOR\s+WHERE\s+STATE\s+COMMENT$/)
    // The thread with the newest activity first: Bo's comment and Ann's reply under it.
    const rows = lines.slice(2, -1).map((l) => l.split(/\s{2,}/))
    expect(rows).toEqual([
      [c.kpi.id, 'Bo', 'v2 slide 3', 'open', '+31% needs a source'],
      [`↳ ${c.reply.id}`, 'Ann', 'v2', 'open', 'Agreed, cite the survey'],
      [c.outdated.id, 'Cy', 'v1 slide 2', 'outdated', 'This chart is unreadable'],
      [c.earlier.id, 'Ann', 'v1', 'open', 'The cover feels empty'],
    ])
    expect(lines.at(-1)).toBe('(1 deleted: --all shows them)')

    const all = await cli(['comments', deck, '--all'])
    expect(all.stdout).toMatch(new RegExp(`^${c.deleted.id}\\s+Troll\\s+v2\\s+deleted \\(viewer\\)\\s+Spam spam spam$`, 'm'))

    // --json: the comments as the API has them, in the same order.
    const json = await cli(['comments', deck, '--json'])
    expect(json.json().map((x: { id: string }) => x.id)).toEqual([c.kpi.id, c.reply.id, c.outdated.id, c.earlier.id])
    expect(json.json()[1]).toMatchObject({ parentId: c.kpi.id, text: 'Agreed, cite the survey', author: 'Ann' })
    const everything = (await cli(['comments', deck, '--all', '--json'])).json()
    expect(everything).toHaveLength(5)
    expect(everything.find((x: { id: string }) => x.id === c.deleted.id)).toMatchObject({ deletedBy: 'viewer', deletedAt: expect.any(String) })
  })

  it('says so when nothing is open, and when there is nothing at all', async () => {
    const id = await s.api.create('Quiet', { 'index.html': '<h1>Quiet</h1>' }, { status: 'published' })
    expect((await cli(['comments', id])).stdout).toBe('No comments on “Quiet” yet.\n')
    expect((await cli(['comments', id, '--json'])).json()).toEqual([])
    const note = await viewerComment(s.ts, id, { text: 'Done?', author: 'Ann', versionId: 'v1' })
    await cli(['comments', id, 'resolve', note.id])
    expect((await cli(['comments', id])).stdout).toBe('All comments on “Quiet” are resolved (1 resolved: --all shows them).\n')
  })

  it('resolves, reopens, deletes (undoably) and restores, each reaching the API', async () => {
    const { deck, c } = await seedInbox(s.ts, s.api, { deck: 'CLI deck', doc: 'CLI doc' })
    const resolved = await cli(['comments', deck, 'resolve', c.kpi.id])
    expect(resolved.code).toBe(0)
    expect(resolved.stdout).toBe(`Resolved ${c.kpi.id} (Bo: “+31% needs a source”).\n`)
    expect((await commentOf(deck, c.kpi.id)).resolved).toBe(true)
    expect((await commentOf(deck, c.reply.id)).resolved).toBe(true) // its thread goes with it
    expect((await cli(['comments', deck])).stdout).not.toContain(c.kpi.id)
    expect((await cli(['comments', deck, '--all'])).stdout).toMatch(new RegExp(`^↳ ${c.reply.id}\\s+Ann\\s+v2\\s+resolved`, 'm'))

    const reopened = await cli(['comments', deck, 'reopen', c.kpi.id, '--json'])
    expect(reopened.json()).toMatchObject({ id: c.kpi.id, resolved: false })
    expect((await commentOf(deck, c.kpi.id)).resolved).toBe(false)

    const deleted = await cli(['comments', deck, 'delete', c.earlier.id])
    expect(deleted.stdout).toBe(
      `Deleted ${c.earlier.id} (Ann: “The cover feels empty”): viewers no longer see it. folio comments ${deck} restore ${c.earlier.id} brings it back.\n`,
    )
    expect(await commentOf(deck, c.earlier.id)).toMatchObject({ deletedBy: 'owner', deletedAt: expect.any(String) })
    expect((await cli(['comments', deck, '--all'])).stdout).toMatch(new RegExp(`^${c.earlier.id}\\s+Ann\\s+v1\\s+deleted \\(you\\)`, 'm'))

    // What the owner hid and what a viewer deleted come back alike.
    for (const id of [c.earlier.id, c.deleted.id]) {
      const restored = await cli(['comments', deck, 'restore', id])
      expect(restored.code).toBe(0)
      expect(restored.stdout).toMatch(/: viewers see it again\.\n$/)
      expect((await commentOf(deck, id)).deletedAt).toBeUndefined()
    }
  })

  it('deletes for good only when told twice: --hard, then --yes or a yes at the prompt', async () => {
    const { deck, c } = await seedInbox(s.ts, s.api, { deck: 'Hard deck', doc: 'Hard doc' })
    const refused = await cli(['comments', deck, 'delete', c.deleted.id, '--hard'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toBe(
      `folio: Nothing deleted: --hard removes ${c.deleted.id} for good, so confirm with --yes (or run it in a terminal to be asked).\n`,
    )
    expect(await commentOf(deck, c.deleted.id)).toBeDefined()
    const gone = await cli(['comments', deck, 'delete', c.deleted.id, '--hard', '--yes', '--json'])
    expect(gone.json()).toEqual({ success: true, commentId: c.deleted.id, removed: true })
    expect(await commentOf(deck, c.deleted.id)).toBeUndefined()
  })

  it(`asks before deleting for good in a real terminal (${backend})`, async () => {
    const { deck, c } = await seedInbox(s.ts, s.api, { deck: 'Asked deck', doc: 'Asked doc' })
    const env = { FOLIO_CONFIG_DIR: work, FOLIO_API_KEY: '', SERVICE_API_KEY: '', FOLIO_URL: '' }
    for (const [answer, kept] of [
      ['n', true],
      ['y', false],
    ] as const) {
      const terminal = await startTerminal([process.execPath, BIN, '--server', s.ts.url, 'comments', deck, 'delete', c.earlier.id, '--hard'], {
        cols: 140,
        rows: 10,
        env,
      })
      try {
        await waitForScreen(terminal, /for good\? This cannot be undone\. \[y\/N\]/, 'the question')
        expect(await terminal.screen()).toContain(`Delete ${c.earlier.id} (Ann: “The cover feels empty”) for good?`)
        await terminal.send(`${answer}\r`)
        expect(await waitForExit(terminal)).toBe(0)
        expect(Boolean(await commentOf(deck, c.earlier.id))).toBe(kept)
      } finally {
        await terminal.stop()
      }
    }
  })

  it('opens the share page, at a comment when named', async () => {
    const { deck, c } = await seedInbox(s.ts, s.api, { deck: 'Open deck', doc: 'Open doc' })
    const opened = join(work, 'opened.txt')
    const browser = join(work, 'browser.sh')
    await writeFile(browser, `#!/bin/sh\necho "$1" > ${opened}\n`, { mode: 0o755 })
    const result = await cli(['comments', deck, '--open', c.kpi.id], { BROWSER: browser })
    expect(result.code).toBe(0)
    const url = `${s.ts.url}/share/${deck}?preview=1#comment=${c.kpi.id}`
    expect(result.stdout).toBe(`Opened ${url}\n`)
    await expect.poll(async () => (await stat(opened).catch(() => undefined))?.size ?? 0).toBeGreaterThan(0)
    expect((await readFile(opened, 'utf8')).trim()).toBe(url)
    expect((await cli(['comments', deck, '--open', '--json'])).json()).toEqual({ url: `${s.ts.url}/share/${deck}?preview=1`, opened: false })
  })

  it('says what to do next: unknown folio, unknown comment, missing id, refused key, mixed-up options', async () => {
    const { deck } = await seedInbox(s.ts, s.api, { deck: 'Error deck', doc: 'Error doc' })
    const unknown = await cli(['comments', 'nope1234'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe(`folio: No folio nope1234 on ${s.ts.url}; folio list shows the folios there.\n`)
    for (const action of ['resolve', 'reopen', 'delete', 'restore']) {
      const missing = await cli(['comments', deck, action, 'c_1234'])
      expect(missing.code).toBe(1)
      expect(missing.stderr).toBe(`folio: No comment c_1234 on folio ${deck} (deleted for good, or a typo?); folio comments ${deck} --all lists them.\n`)
    }
    const hard = await cli(['comments', deck, 'delete', 'c_1234', '--hard', '--yes'])
    expect(hard.stderr).toContain('No comment c_1234 on folio')
    const noId = await cli(['comments', deck, 'resolve'])
    expect(noId.stderr).toBe(
      `folio: folio comments ${deck} resolve needs the comment's id, e.g. folio comments ${deck} resolve c_1754550000000 (folio comments ${deck} --all lists them).\n`,
    )
    const refused = await cli(['comments', deck, '--key', 'svc_live_wrong'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^folio: The key from --key was refused by http/)
    expect((await cli(['comments', deck, 'resolve', 'c_1', '--hard'])).stderr).toContain('--hard and --yes go with delete')
    expect((await cli(['comments', deck, 'resolve', 'c_1', '--watch'])).stderr).toContain('--watch, --all and --open go with the list')
    const bad = await cli(['comments', deck, 'frob'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('folio: frob is not something folio comments does: list, resolve, reopen, delete, restore (folio comments --help).\n')
  })

  it('--help explains the actions with examples', async () => {
    const help = await runCli(['comments', '--help'])
    expect(help.code).toBe(0)
    for (const text of ['resolve', 'reopen', 'restore', '--hard', '--watch', '--open [commentId]', '--all', 'Examples:', 'outdated'])
      expect(help.stdout).toContain(text)
    expect((await runCli(['--help'])).stdout).toContain('folio comments <id>')
  })
})

describe('folio comments <id> --watch', () => {
  it('prints each new comment as it arrives (replies and comments on any version), and Ctrl+C exits 0', async () => {
    const { deck, c } = await seedInbox(s.ts, s.api, { deck: 'Watched deck', doc: 'Watched doc' })
    const watch = spawnCli(['--server', s.ts.url, 'comments', deck, '--watch', '--json'])
    try {
      const start = JSON.parse(await watch.waitForLine((l) => l.includes('"watching"')))
      expect(start).toEqual({ event: 'watching', id: deck, comments: 4 })
      const fresh = await viewerComment(s.ts, deck, { text: 'Arrived live', author: 'Gus', versionId: 'v2' })
      const line = JSON.parse(await watch.waitForLine((l) => l.includes(fresh.id)))
      expect(line).toMatchObject({ event: 'comment', comment: { id: fresh.id, text: 'Arrived live', author: 'Gus' } })
      // A reply (the server's stream tells the page; the owner's list says it is new).
      const reply = await viewerComment(s.ts, deck, { text: 'Thanks, fixed', author: 'Owner', versionId: 'v2', parentId: c.kpi.id })
      expect(JSON.parse(await watch.waitForLine((l) => l.includes(reply.id))).comment.parentId).toBe(c.kpi.id)
      // Resolving is no new comment: nothing printed for it.
      await cli(['comments', deck, 'resolve', c.earlier.id])
      const older = await viewerComment(s.ts, deck, { text: 'On the first version', author: 'Hal', versionId: 'v1' })
      await watch.waitForLine((l) => l.includes(older.id))
      expect(watch.lines.filter((l) => l.includes(c.earlier.id))).toEqual([])
      expect(watch.lines).toHaveLength(4)
      watch.child.kill('SIGINT')
      expect(await watch.exited).toBe(0)
      expect(watch.stderr()).toBe('')
    } finally {
      watch.child.kill('SIGKILL')
    }
  })

  it('in text: the list first, then one line per comment; a deleted folio ends it with a message', async () => {
    const { deck, c } = await seedInbox(s.ts, s.api, { deck: 'Text deck', doc: 'Text doc' })
    const watch = spawnCli(['--server', s.ts.url, 'comments', deck, '--watch'])
    try {
      await watch.waitForLine((l) => l.startsWith('Watching “Text deck” for new comments.'))
      expect(watch.lines[0]).toMatch(/^ID\s+AUTHOR/)
      expect(watch.lines.some((l) => l.startsWith(c.kpi.id))).toBe(true)
      const reply = await viewerComment(s.ts, deck, { text: 'Source added', author: 'Ivy', versionId: 'v2', parentId: c.kpi.id })
      expect(await watch.waitForLine((l) => l.includes(reply.id))).toMatch(
        new RegExp(`^\\d\\d:\\d\\d:\\d\\d  Ivy replied to Bo: Source added  \\(${reply.id}\\)$`),
      )
      const fresh = await viewerComment(s.ts, deck, { text: 'Nice deck', author: 'Jo', versionId: 'v2' })
      expect(await watch.waitForLine((l) => l.includes(fresh.id))).toMatch(/^\d\d:\d\d:\d\d {2}Jo on v2: Nice deck {2}\(c_\d+\)$/)
      await s.api.send(deleteFolio, { params: { id: deck } })
      expect(await watch.exited).toBe(1)
      expect(watch.stderr()).toContain(`folio: Folio ${deck} was deleted while you watched its comments.`)
    } finally {
      watch.child.kill('SIGKILL')
    }
  })

  it('survives a server restart: a comment made before it reconnects is printed once it is back', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'folio-watch-restart-'))
    let server = await spawnServer(dataDir)
    try {
      const id = await testApi(server.url).create('Restarted deck', { 'index.html': '<h1>Hi</h1>' }, { status: 'published' })
      const watch = spawnCli(['--server', server.url, 'comments', id, '--watch', '--json'])
      try {
        await watch.waitForLine((l) => l.includes('"watching"'))
        // Killed, not stopped: a graceful stop waits up to 15 s for open streams like this one.
        await killHard(server.child)
        server = await spawnServer(dataDir, ['--port', new URL(server.url).port])
        const reply = await testApi(server.url).send(createComment, {
          params: { id },
          body: { text: 'Said while you were away', versionId: 'v1', filename: 'index.html' },
        })
        expect(JSON.parse(await watch.waitForLine((l) => l.includes(reply.body.comment.id)))).toMatchObject({
          event: 'comment',
          comment: { text: 'Said while you were away' },
        })
        expect(watch.stderr()).toMatch(/^folio: Lost the live stream from http:\/\/127\.0\.0\.1:\d+ \(.+\); reconnecting…\n$/)
        watch.child.kill('SIGINT')
        expect(await watch.exited).toBe(0)
      } finally {
        watch.child.kill('SIGKILL')
      }
    } finally {
      await killHard(server.child)
      await rm(dataDir, { recursive: true, force: true })
    }
  })

  it('fails at once for an unknown folio', async () => {
    const watch = spawnCli(['--server', s.ts.url, 'comments', 'nope1234', '--watch'])
    expect(await watch.exited).toBe(1)
    expect(watch.stderr()).toBe(`folio: No folio nope1234 on ${s.ts.url}; folio list shows the folios there.\n`)
  })
})
