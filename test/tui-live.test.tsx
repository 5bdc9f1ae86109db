import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createComment, react } from '../src/api/engagement.js'
import { createClient } from '../src/client/index.js'
import { activityBetween } from '../src/tui/activity.js'
import type { ChangeListener, FolioWatch } from '../src/tui/live-events.js'
import { watchFolioEvents } from '../src/tui/live-events.js'
import { LiveStatus } from '../src/tui/LiveStatus.js'
import { paint } from '../src/tui/screen.js'
import type { CommentLine, FolioRow, StatusSnapshot } from '../src/tui/snapshot.js'
import { useServer } from './helpers/use-server.js'

/** The live parts of folio status: recent activity, live events, comments from the keyboard. */

const SERVER = 'http://127.0.0.1:3000'
const TAB = '\t'
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function frameWhere(lastFrame: () => string | undefined, check: (frame: string) => boolean, timeoutMs = 3000): Promise<string> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const frame = lastFrame() ?? ''
    if (check(frame)) return frame
    if (Date.now() > until) throw new Error(`frame never matched:\n${frame}`)
    await delay(10)
  }
}

const comment = (id: string, text: string, at: string, extra: Partial<CommentLine> = {}): CommentLine => ({
  id,
  author: 'Ann',
  text,
  createdAt: `2026-01-01T10:${at}:00.000Z`,
  resolved: false,
  ...extra,
})

function folio(id: string, title: string, overrides: Partial<FolioRow> = {}): FolioRow {
  return {
    id,
    title,
    status: 'published',
    isPrivate: false,
    latestVersionId: 'v1',
    updatedAt: '2026-01-01T10:00:00.000Z',
    analytics: { views: 0, totalTimeSeconds: 0, avgTimeSeconds: 0, mobileViews: 0, desktopViews: 0 },
    reactions: {},
    comments: { folioId: id, state: 'ok', latest: [], total: 0, open: 0 },
    ...overrides,
  }
}

function snap(folios: FolioRow[], overrides: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return {
    server: { url: SERVER, reachable: true },
    tunnel: {
      available: true,
      active: false,
      url: null,
      customTunnelUrl: '',
      state: 'stopped',
      lastError: null,
      provider: 'localtunnel',
      viewerPassword: null,
      viewerNotice: null,
      previousUrl: null,
    },
    folios,
    comments: null,
    fetchedAt: '2026-01-01T10:06:00.000Z',
    ...overrides,
  }
}

const withComments = (f: FolioRow, latest: CommentLine[]): FolioRow => ({
  ...f,
  comments: { folioId: f.id, state: 'ok', latest, total: latest.length, open: latest.filter((c) => !c.resolved).length },
})

afterEach(() => {
  cleanup()
})

describe('activityBetween', () => {
  const at = new Date('2026-01-01T12:00:00.000Z')
  const before = snap([withComments(folio('a', 'Deck'), [comment('c_1', 'old', '01')]), folio('b', 'Plan', { status: 'draft' }), folio('gone', 'Old one')])

  it('turns views, reactions, comments, resolutions, versions and publishing into lines', () => {
    const after = snap([
      withComments(folio('a', 'Deck', { analytics: { ...before.folios[0]!.analytics, views: 3 }, reactions: { '🔥': 2, '👍': 1 }, latestVersionId: 'v2' }), [
        comment('c_3', 'a reply', '03', { author: 'Bo', parentId: 'c_2' }),
        comment('c_2', 'new one', '02'),
        comment('c_1', 'old', '01', { resolved: true }),
      ]),
      folio('b', 'Plan'),
      folio('n', 'Fresh'),
    ])
    expect(activityBetween(before, after, at).map((e) => `${e.title}: ${e.text}`)).toEqual([
      'Deck: new version v2',
      'Deck: 3 new views',
      'Deck: 👍 +1 🔥 +2',
      'Deck: resolved: Ann: old',
      'Deck: Ann: new one',
      'Deck: Bo replied: a reply',
      'Plan: published',
      'Fresh: new folio',
      'Old one: deleted',
    ])
    expect(activityBetween(before, after, at)[0]).toMatchObject({ at: at.toISOString(), folioId: 'a' })
  })

  it('says who opened a folio and how far they read, from the latest view the list carries', () => {
    const view = (type: 'started' | 'ended', text: string, second: string) => ({
      at: `2026-01-01T11:00:${second}.000Z`,
      type,
      device: 'desktop' as const,
      text,
    })
    const base = before.folios[0]!.analytics
    const others = before.folios.slice(1)
    const opened = snap([{ ...before.folios[0]!, analytics: { ...base, views: 1, lastView: view('started', 'Dana at Acme opened it', '01') } }, ...others])
    expect(activityBetween(before, opened, at).map((e) => e.text)).toEqual(['Dana at Acme opened it'])
    const read = snap([
      {
        ...before.folios[0]!,
        analytics: { ...base, views: 1, lastView: view('ended', 'Dana at Acme read 9 of 12 slides in 4 min, longest on slide 7', '09') },
      },
      ...others,
    ])
    expect(activityBetween(opened, read, at).map((e) => e.text)).toEqual(['Dana at Acme read 9 of 12 slides in 4 min, longest on slide 7'])
    // Two views between two looks: the count, and the latest of them.
    const two = snap([{ ...before.folios[0]!, analytics: { ...base, views: 3, lastView: view('started', 'A viewer opened it', '20') } }, ...others])
    expect(activityBetween(read, two, at).map((e) => e.text)).toEqual(['2 new views', 'A viewer opened it'])
  })

  it('finds nothing new in the same list, or in a list that comes back after an outage', () => {
    expect(activityBetween(before, before, at)).toEqual([])
    expect(activityBetween(null, before, at)).toEqual([])
    const away = snap([], { server: { url: SERVER, reachable: false, error: 'ECONNREFUSED' }, tunnel: null })
    expect(activityBetween(away, before, at)).toEqual([])
    expect(activityBetween(snap([], { foliosError: 'the server refused the API key' }), before, at)).toEqual([])
  })
})

describe('LiveStatus: live events, recent activity, comments from the keyboard', () => {
  function live(load: () => Promise<StatusSnapshot>, extra: { resolveComment?: (f: string, c: string, r: boolean) => Promise<void> } = {}) {
    let onChange: ChangeListener | undefined
    const watched: string[][] = []
    const watch = vi.fn((listener: ChangeListener): FolioWatch => {
      onChange = listener
      return { watch: (ids) => watched.push(ids), connected: () => [], close: vi.fn() }
    })
    const open = vi.fn(async (_url: string, _folio: FolioRow) => true)
    const loadMock = vi.fn(load)
    const app = render(
      <LiveStatus
        load={loadMock}
        toggleTunnel={async () => {}}
        open={open}
        watch={watch}
        resolveComment={extra.resolveComment}
        intervalMs={60_000}
        settleMs={5}
        width={110}
        height={40}
      />,
    )
    return { ...app, load: loadMock, open, watched, change: (id: string, event: string) => onChange!(id, event) }
  }

  it('reloads on a live event and shows what changed as recent activity', async () => {
    let current = snap([folio('a', 'Deck'), folio('b', 'Plan')])
    const app = live(async () => current)
    await frameWhere(app.lastFrame, (f) => f.includes('Recent activity'))
    // The selected folio and the newest others are watched.
    expect(app.watched.at(-1)).toEqual(['a', 'b'])
    expect(app.lastFrame()).toContain('live: 2 folios, the rest every 60 s')
    current = snap([folio('a', 'Deck', { reactions: { '🔥': 1 } }), folio('b', 'Plan')])
    const loads = app.load.mock.calls.length
    app.change('a', 'reactions')
    const frame = await frameWhere(app.lastFrame, (f) => /\d\d:\d\d:\d\d Deck 🔥 \+1/.test(f))
    expect(app.load.mock.calls.length).toBe(loads + 1)
    expect(frame).not.toContain('nothing yet')
    // A burst of events is one reload.
    current = snap([withComments(folio('a', 'Deck', { reactions: { '🔥': 1 } }), [comment('c_9', 'Nice', '09')]), folio('b', 'Plan')])
    for (let i = 0; i < 5; i++) app.change('a', i % 2 ? 'version' : 'comments')
    await frameWhere(app.lastFrame, (f) => f.includes('Deck Ann: Nice'))
    await delay(30)
    expect(app.load.mock.calls.length).toBe(loads + 2)
  })

  it('tab moves the keys to the comments: x resolves or reopens the selected one, o opens the page at it', async () => {
    const comments = [comment('c_new', 'Newest', '05'), comment('c_mid', 'Middle', '04'), comment('c_old', 'Oldest', '03', { resolved: true })]
    const resolveComment = vi.fn(async () => {})
    const app = live(async () => snap([withComments(folio('a', 'Deck'), comments), folio('b', 'Plan')]), { resolveComment })
    await frameWhere(app.lastFrame, (f) => f.includes('Newest'))
    expect(app.lastFrame()).toContain('(2 open of 3)')
    app.stdin.write(TAB)
    await frameWhere(app.lastFrame, (f) => /› Ann: Newest/.test(f) && f.includes('x resolve/reopen'))
    app.stdin.write('x')
    await vi.waitFor(() => expect(resolveComment).toHaveBeenLastCalledWith('a', 'c_new', true))
    await frameWhere(app.lastFrame, (f) => f.includes('comment resolved'))
    app.stdin.write('jj')
    await frameWhere(app.lastFrame, (f) => /› ✓ Ann: Oldest/.test(f))
    app.stdin.write(' ')
    await vi.waitFor(() => expect(resolveComment).toHaveBeenLastCalledWith('a', 'c_old', false))
    app.stdin.write('o')
    await vi.waitFor(() => expect(app.open).toHaveBeenCalledTimes(1))
    expect(app.open.mock.calls[0]![0]).toBe(`${SERVER}/share/a#comment=c_old`)
    // Esc: back to the folios, where ↓ moves the folio cursor again (and x does nothing).
    app.stdin.write('\u001B')
    await frameWhere(app.lastFrame, (f) => f.includes('tab comments'))
    app.stdin.write('x')
    app.stdin.write('j')
    await frameWhere(app.lastFrame, (f) => /› +Plan/.test(f))
    expect(resolveComment).toHaveBeenCalledTimes(2)
  })

  it('says why a comment could not be resolved', async () => {
    const resolveComment = vi.fn(async () => {
      throw new Error('Forbidden')
    })
    const app = live(async () => snap([withComments(folio('a', 'Deck'), [comment('c_1', 'Hi', '01')])]), { resolveComment })
    await frameWhere(app.lastFrame, (f) => f.includes('Hi'))
    app.stdin.write(`${TAB}x`)
    await frameWhere(app.lastFrame, (f) => f.includes('could not resolve the comment: Forbidden'))
  })
})

describe('watchFolioEvents (a real server)', () => {
  const s = useServer()

  it('reports each change of a watched folio, and stops when it is no longer watched', async () => {
    const id = await s.api.create('Watched deck', undefined, { status: 'published' })
    const other = await s.api.create('Other deck', undefined, { status: 'published' })
    const seen: string[] = []
    const watch = watchFolioEvents(createClient({ server: s.ts.url }), (folioId, event) => seen.push(`${folioId === id ? 'watched' : 'other'} ${event}`))
    try {
      watch.watch([id, other])
      await vi.waitFor(() => expect(watch.connected().sort()).toEqual([id, other].sort()))
      expect(seen.sort()).toEqual(['other connected', 'watched connected'])
      await s.api.send(react, { params: { id }, body: { increments: { '👍': 1 } } })
      await s.api.send(createComment, { params: { id }, body: { text: 'Hi', versionId: 'v1', filename: 'index.html', author: 'Ann' } })
      await vi.waitFor(() => expect(seen).toEqual(expect.arrayContaining(['watched reactions', 'watched comments'])))
      watch.watch([other])
      await vi.waitFor(() => expect(watch.connected()).toEqual([other]))
      const count = seen.length
      await s.api.send(react, { params: { id }, body: { increments: { '👍': 1 } } })
      await delay(200)
      expect(seen.length).toBe(count)
    } finally {
      watch.close()
    }
    await vi.waitFor(() => expect(watch.connected()).toEqual([]))
  })

  it('does not ask again for a folio the stream refuses (a draft without the key)', async () => {
    const draft = await s.api.create('Draft deck')
    const client = createClient({ server: s.ts.url })
    const request = vi.spyOn(client, 'request')
    const watch = watchFolioEvents(client, () => {}, { retryMs: [10] })
    try {
      watch.watch([draft])
      await vi.waitFor(() => expect(request).toHaveBeenCalledTimes(1))
      await delay(200)
      expect(request).toHaveBeenCalledTimes(1)
      expect(watch.connected()).toEqual([])
    } finally {
      watch.close()
    }
  })
})

describe('paint (the full-screen stream)', () => {
  it('puts line n on row n, clears below the frame and cuts it at the terminal’s height', () => {
    expect(paint('one\ntwo\n', 5)).toBe('\x1b[?2026h\x1b[1;1H\x1b[2Kone\x1b[2;1H\x1b[2Ktwo\x1b[3;1H\x1b[J\x1b[?2026l')
    expect(paint('a\nb\nc\nd', 2)).toBe('\x1b[?2026h\x1b[1;1H\x1b[2Ka\x1b[2;1H\x1b[2Kb\x1b[?2026l')
  })
})
