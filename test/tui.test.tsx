import { once } from 'node:events'
import { type AddressInfo, createServer } from 'node:net'
import { cleanup, render } from 'ink-testing-library'
import QRCode from 'qrcode'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { listFolios } from '../src/api/files.js'
import { getTunnel } from '../src/api/tunnel.js'
import { createComment, listComments, react, recordAnalytics } from '../src/api/engagement.js'
import { ApiClientError, createClient } from '../src/client/index.js'
import { cellWidth, tableColumns } from '../src/tui/columns.js'
import { computeLayout, windowStart } from '../src/tui/layout.js'
import { LiveStatus } from '../src/tui/LiveStatus.js'
import { qrLines } from '../src/tui/qr.js'
import { type FolioRow, loadSnapshot, shareUrlFor, type StatusClient, type StatusSnapshot, type TunnelSnapshot } from '../src/tui/snapshot.js'
import { StatusApp, type StatusAppProps } from '../src/tui/StatusApp.js'
import { formatSnapshot } from '../src/tui/text.js'
import { testApi } from './helpers/api.js'
import { useServer } from './helpers/use-server.js'

const SERVER = 'http://127.0.0.1:3000'
const KEY = { down: '\u001B[B', up: '\u001B[A', escape: '\u001B', ctrlC: '\u0003', enter: '\r' }

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until the frame passes `check` (Ink renders asynchronously). */
async function frameWhere(lastFrame: () => string | undefined, check: (frame: string) => boolean, timeoutMs = 3000): Promise<string> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const frame = lastFrame() ?? ''
    if (check(frame)) return frame
    if (Date.now() > until) throw new Error(`frame never matched:\n${frame}`)
    await delay(10)
  }
}

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
    ...overrides,
  }
}

const stopped: TunnelSnapshot = {
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
}
const connected: TunnelSnapshot = {
  available: true,
  active: true,
  url: 'https://brave-otter-42.loca.lt',
  customTunnelUrl: '',
  state: 'connected',
  lastError: null,
  provider: 'localtunnel',
  viewerPassword: null,
  viewerNotice: null,
  previousUrl: null,
}

function snapshot(overrides: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return {
    server: { url: SERVER, reachable: true },
    tunnel: stopped,
    folios: [
      folio('aaa', 'Quarterly review', {
        latestVersionId: 'v3',
        analytics: { views: 12, totalTimeSeconds: 864, avgTimeSeconds: 72, mobileViews: 4, desktopViews: 8 },
        reactions: { '👍': 2, '❤️': 1, '🔥': 3 },
      }),
      folio('bbb', 'Launch plan', { status: 'draft', analytics: { views: 5, totalTimeSeconds: 50, avgTimeSeconds: 10, mobileViews: 1, desktopViews: 4 } }),
      folio('ccc', 'Team handbook', { isPrivate: true }),
    ],
    comments: {
      folioId: 'aaa',
      state: 'ok',
      total: 5,
      open: 4,
      latest: [
        { id: 'c_ann', author: 'Ann', text: 'Love the new chart', createdAt: '2026-01-01T10:05:00.000Z', resolved: false },
        { id: 'c_bo', author: 'Bo', text: 'Typo on slide\n3', createdAt: '2026-01-01T10:04:00.000Z', resolved: false },
        { id: 'c_cy', author: 'Cy', text: 'x'.repeat(300), createdAt: '2026-01-01T10:03:00.000Z', resolved: true },
      ],
    },
    fetchedAt: '2026-01-01T10:06:00.000Z',
    ...overrides,
  }
}

function renderApp(props: Partial<StatusAppProps> = {}) {
  return render(<StatusApp snapshot={snapshot()} selected={0} busy={null} message={null} width={110} height={40} {...props} />)
}

afterEach(() => {
  cleanup()
})

describe('StatusApp (rendering from props)', () => {
  it('shows every folio with status, version, views, average time, devices and reactions', () => {
    const { lastFrame } = renderApp()
    const frame = lastFrame()!
    expect(frame).toContain(SERVER)
    const row = frame.split('\n').find((l) => l.includes('Quarterly review'))!
    expect(row).toMatch(/›/)
    for (const cell of ['published', 'v3', '12', '1m 12s', '4/8', '👍 2', '❤️ 1', '💡 0', '🔥 3']) expect(row).toContain(cell)
    expect(frame.split('\n').find((l) => l.includes('Launch plan'))).toContain('draft')
    expect(frame.split('\n').find((l) => l.includes('Team handbook'))).toContain('published (private)')
    // List order is the API's (most recently updated first).
    expect(frame.indexOf('Quarterly review')).toBeLessThan(frame.indexOf('Launch plan'))
    expect(frame.indexOf('Launch plan')).toBeLessThan(frame.indexOf('Team handbook'))
    expect(frame).toContain('↑/↓ j/k select')
    expect(frame).toContain('q quit')
  })

  it('shows the latest comments of the selected folio, on one line each, truncated', () => {
    const { lastFrame } = renderApp()
    const frame = lastFrame()!
    expect(frame).toContain('Comments on “Quarterly review” (4 open of 5)')
    expect(frame).toContain('Ann: Love the new chart')
    expect(frame).toContain('Bo: Typo on slide 3')
    const long = frame.split('\n').find((l) => l.includes('✓ Cy: x'))!
    expect(long.length).toBeLessThanOrEqual(110)
    expect(long).toContain('…')
  })

  it('says when the comments are not there yet, or there are none', () => {
    expect(renderApp({ selected: 1 }).lastFrame()).toContain('loading comments…')
    const none = snapshot({ comments: { folioId: 'aaa', state: 'ok', latest: [], total: 0, open: 0 } })
    expect(renderApp({ snapshot: none }).lastFrame()).toContain('no comments yet')
  })

  it('shows the selected folio’s share page through the tunnel, and its QR code', () => {
    const { lastFrame } = renderApp({ snapshot: snapshot({ tunnel: connected }) })
    const frame = lastFrame()!
    expect(frame).toContain('connected  https://brave-otter-42.loca.lt')
    expect(frame).toContain('Share  https://brave-otter-42.loca.lt/share/aaa')
    expect(frame).toContain('scan it to open “Quarterly review”')
    expect(frame).toContain('on a phone')
    // The code holds the share page (the tunnel's root is the dashboard: 401 without the key).
    const qr = qrLines('https://brave-otter-42.loca.lt/share/aaa')
    const lines = frame.split('\n')
    // Every line of the code is drawn, in order, in one block at the left, the hints beside it.
    const first = lines.findIndex((l) => l.startsWith(qr[1]!))
    expect(first).toBeGreaterThan(0)
    for (let i = 1; i < qr.length; i++) expect(lines[first - 1 + i]!.slice(0, qr[i]!.length).trimEnd()).toBe(qr[i]!.trimEnd())
    expect(lines[first]!.slice(qr[1]!.length).trim()).toBe('scan it to open “Quarterly review”')
  })

  it('moves the share link and the QR code with the selection, and says what a phone will meet', () => {
    const frame = renderApp({ snapshot: snapshot({ tunnel: connected }), selected: 1 }).lastFrame()!
    expect(frame).toContain('Share  https://brave-otter-42.loca.lt/share/bbb')
    expect(frame).toContain('scan it to open “Launch plan”')
    expect(frame).toContain('a draft: publish it first')
    const qr = qrLines('https://brave-otter-42.loca.lt/share/bbb')
    expect(frame).toContain(qr[3]!.trimEnd())
    expect(frame).not.toContain(qrLines('https://brave-otter-42.loca.lt/share/aaa')[3]!.trimEnd())
    expect(renderApp({ snapshot: snapshot({ tunnel: connected }), selected: 2 }).lastFrame()).toContain('private: it asks for its key')
  })

  it('without a tunnel: the share link on this server, no QR code on a loopback address, and how to get one', () => {
    const frame = renderApp().lastFrame()!
    expect(frame).toContain(`Share  ${SERVER}/share/aaa`)
    expect(frame).toContain('press t to start a tunnel: its QR code opens this folio on a phone')
    expect(frame).not.toContain('█')
    // A server on the network (not loopback): a phone there may reach it, so its link is the code.
    const nas = 'http://nas.local:3000'
    const remote = renderApp({ snapshot: snapshot({ server: { url: nas, reachable: true } }) }).lastFrame()!
    expect(remote).toContain(`Share  ${nas}/share/aaa`)
    expect(remote).toContain('on a phone on this network')
    expect(remote).toContain(qrLines(`${nas}/share/aaa`)[3]!.trimEnd())
  })

  it('gives the title the room at 80 columns: other columns leave first, a long title ends in …', () => {
    const long = 'A quarterly review of everything the team shipped this spring'
    const many = snapshot({
      folios: [folio('kL9VtGLOsbNK', long, { reactions: { '🔥': 3 } }), folio('aB3dE5fG7hJ9', 'Short one', { isPrivate: true })],
      comments: null,
    })
    const frame = renderApp({ snapshot: many, width: 80 }).lastFrame()!
    const lines = frame.split('\n')
    for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(80)
    const row = lines.find((l) => l.startsWith('› '))!
    const title = row.slice(2, row.indexOf('…') + 1)
    expect(title.length).toBeGreaterThanOrEqual(28)
    expect(long.startsWith(title.slice(0, -1))).toBe(true)
    expect(lines.find((l) => l.includes('Short one'))).toContain('published (private)')
    // The id stays at 80 columns; wider, the other columns come back.
    expect(row).toContain('kL9VtGLOsbNK')
    expect(tableColumns(80, many.folios).map((c) => c.key)).toEqual(['cursor', 'title', 'id', 'status', 'version', 'views', 'reactions'])
    expect(tableColumns(80, many.folios).find((c) => c.key === 'reactions')!.compact).toBe(true)
    const wide = tableColumns(160, many.folios)
    expect(wide.map((c) => c.key)).toEqual(['cursor', 'title', 'id', 'status', 'version', 'views', 'trend', 'average', 'devices', 'reactions'])
    // At most 60 cells: a longer title is cut even when there is room.
    expect(wide.find((c) => c.key === 'title')!.width).toBe(60)
    expect(tableColumns(160, [folio('x', 'Short')]).find((c) => c.key === 'title')!.width).toBe(28)
    expect(wide.find((c) => c.key === 'reactions')!.compact).toBe(false)
  })

  it('drops the QR code before the folio list when the terminal is short', () => {
    const { lastFrame } = renderApp({ snapshot: snapshot({ tunnel: connected }), height: 24 })
    const frame = lastFrame()!
    expect(frame).toContain('https://brave-otter-42.loca.lt')
    expect(frame).not.toContain('█')
    expect(frame).toContain('(a taller or wider terminal shows its QR code)')
    expect(frame).toContain('Team handbook')
  })

  it('shows the tunnel state, the last error, a request in flight and Cloud mode', () => {
    const failing = snapshot({ tunnel: { ...stopped, lastError: 'connection refused by loca.lt' } })
    const frame = renderApp({ snapshot: failing }).lastFrame()!
    expect(frame).toContain('stopped')
    expect(frame).toContain('last error: connection refused by loca.lt')
    expect(renderApp({ busy: 'start' }).lastFrame()).toContain('starting…')
    expect(renderApp({ snapshot: snapshot({ tunnel: { ...connected, state: 'reconnecting' } }) }).lastFrame()).toContain('reconnecting…')
    const cloud = snapshot({ tunnel: { available: false, reason: 'cloud', message: 'no tunnel in Cloud mode' } })
    expect(renderApp({ snapshot: cloud }).lastFrame()).toContain('no tunnel in Cloud mode')
  })

  it('says the server is not reachable, and how to start it', () => {
    const down = snapshot({ server: { url: SERVER, reachable: false, error: 'ECONNREFUSED' }, tunnel: null, folios: [], comments: null })
    const frame = renderApp({ snapshot: down }).lastFrame()!
    expect(frame).toContain(`server not reachable at ${SERVER} — start it with folio serve`)
    expect(frame).toContain('retrying every 2 s (ECONNREFUSED)')
    expect(frame).toContain('offline')
  })

  it('shows a message, the empty list and the state before the first answer', () => {
    expect(renderApp({ message: { tone: 'error', text: 'tunnel start failed: boom' } }).lastFrame()).toContain('tunnel start failed: boom')
    expect(renderApp({ snapshot: snapshot({ folios: [], comments: null }) }).lastFrame()).toContain('No folios yet')
    expect(renderApp({ snapshot: null }).lastFrame()).toContain('connecting…')
  })

  it('scrolls the list so the selected folio stays visible', () => {
    const many = snapshot({ folios: Array.from({ length: 40 }, (_, i) => folio(`f${i}`, `Folio number ${i}`)), comments: null })
    const frame = renderApp({ snapshot: many, selected: 39, height: 30 }).lastFrame()!
    expect(frame).toContain('› ')
    expect(frame.split('\n').find((l) => l.includes('›'))).toContain('Folio number 39')
    expect(frame).not.toContain('Folio number 0 ')
    expect(frame).toMatch(/↑ \d+ more/)
    expect(frame.split('\n').length).toBeLessThanOrEqual(30)
  })

  it('turns keys into callbacks', async () => {
    const calls: string[] = []
    const { stdin } = renderApp({
      selected: 1,
      onMove: (d) => calls.push(`move ${d}`),
      onToggleTunnel: () => calls.push('tunnel'),
      onOpen: () => calls.push('open'),
      onRefresh: () => calls.push('refresh'),
      onQuit: () => calls.push('quit'),
    })
    await delay(20)
    for (const key of [KEY.down, 'j', KEY.up, 'k', 't', 'o', KEY.enter, 'r', 'q', KEY.escape, KEY.ctrlC]) {
      stdin.write(key)
      await delay(20)
    }
    expect(calls).toEqual(['move 1', 'move 1', 'move -1', 'move -1', 'tunnel', 'open', 'open', 'refresh', 'quit', 'quit', 'quit'])
  })

  it('takes keys that arrive together (key repeat) as one press each', async () => {
    const calls: string[] = []
    const { stdin } = renderApp({ onMove: (d) => calls.push(`move ${d}`), onRefresh: () => calls.push('refresh') })
    await delay(20)
    stdin.write('jjj')
    await delay(20)
    stdin.write('kr')
    await delay(20)
    expect(calls).toEqual(['move 1', 'move 1', 'move 1', 'move -1', 'refresh'])
  })
})

describe('LiveStatus (the stateful loop)', () => {
  function live(options: { load?: (id: string | undefined) => Promise<StatusSnapshot>; toggle?: (a: 'start' | 'stop') => Promise<void> } = {}) {
    const load = vi.fn(options.load ?? (async () => snapshot()))
    const toggleTunnel = vi.fn(options.toggle ?? (async () => {}))
    const open = vi.fn(async (_url: string, _folio: FolioRow) => true)
    const onQuit = vi.fn()
    const app = render(<LiveStatus load={load} toggleTunnel={toggleTunnel} open={open} onQuit={onQuit} intervalMs={60_000} width={110} height={40} />)
    return { ...app, load, toggleTunnel, open, onQuit }
  }

  it('loads, then moves the cursor with ↓/↑; a reload asks for the selected folio’s comments', async () => {
    const { lastFrame, stdin, load } = live()
    await frameWhere(lastFrame, (f) => f.includes('Quarterly review'))
    expect(load).toHaveBeenCalledWith(undefined)
    stdin.write(KEY.down)
    const frame = await frameWhere(lastFrame, (f) => /› +Launch plan/.test(f))
    expect(frame).not.toMatch(/› +Quarterly review/)
    stdin.write('r')
    await vi.waitFor(() => expect(load).toHaveBeenLastCalledWith('bbb'))
    stdin.write('j')
    await frameWhere(lastFrame, (f) => /› +Team handbook/.test(f))
    stdin.write('j') // already at the end
    stdin.write('k')
    await frameWhere(lastFrame, (f) => /› +Launch plan/.test(f))
  })

  it('t starts a stopped tunnel, showing starting… until the request ends', async () => {
    let finish!: () => void
    const { lastFrame, stdin, toggleTunnel, load } = live({ toggle: () => new Promise<void>((resolve) => (finish = resolve)) })
    await frameWhere(lastFrame, (f) => f.includes('Quarterly review'))
    stdin.write('t')
    await frameWhere(lastFrame, (f) => f.includes('starting…'))
    expect(toggleTunnel).toHaveBeenCalledWith('start')
    stdin.write('t') // ignored while in flight
    await frameWhere(lastFrame, (f) => f.includes('wait: the tunnel is starting…'))
    expect(toggleTunnel).toHaveBeenCalledTimes(1)
    load.mockImplementation(async () => snapshot({ tunnel: connected }))
    finish()
    const frame = await frameWhere(lastFrame, (f) => f.includes('tunnel started') && f.includes('https://brave-otter-42.loca.lt'))
    expect(frame).toContain('█')
  })

  it('t stops a running tunnel and shows why a request failed', async () => {
    const { lastFrame, stdin, toggleTunnel } = live({
      load: async () => snapshot({ tunnel: connected }),
      toggle: async () => {
        throw new ApiClientError(500, 'Tunnel failed', 'no connection to localtunnel.me')
      },
    })
    await frameWhere(lastFrame, (f) => f.includes('connected'))
    stdin.write('t')
    await frameWhere(lastFrame, (f) => f.includes('tunnel stop failed: no connection to localtunnel.me (Tunnel failed)'))
    expect(toggleTunnel).toHaveBeenCalledWith('stop')
  })

  it('o opens the selected folio’s share page (drafts in preview)', async () => {
    const { lastFrame, stdin, open } = live()
    await frameWhere(lastFrame, (f) => f.includes('Quarterly review'))
    stdin.write('o')
    await vi.waitFor(() => expect(open).toHaveBeenCalledTimes(1))
    expect(open.mock.calls[0]).toEqual([`${SERVER}/share/aaa`, expect.objectContaining({ id: 'aaa' })])
    await frameWhere(lastFrame, (f) => f.includes(`opened ${SERVER}/share/aaa`))
    stdin.write(KEY.down)
    await frameWhere(lastFrame, (f) => /› +Launch plan/.test(f))
    stdin.write('o')
    await vi.waitFor(() => expect(open).toHaveBeenCalledTimes(2))
    expect(open.mock.calls[1]![0]).toBe(`${SERVER}/share/bbb?preview=1`)
  })

  it('r refreshes now; the list follows the server while the selection stays on its folio', async () => {
    let current = snapshot()
    const { lastFrame, stdin, load } = live({ load: async () => current })
    await frameWhere(lastFrame, (f) => f.includes('Quarterly review'))
    stdin.write(KEY.down)
    await frameWhere(lastFrame, (f) => /› +Launch plan/.test(f))
    await delay(30)
    const before = load.mock.calls.length
    const [a, b, c] = current.folios
    current = snapshot({ folios: [{ ...b!, analytics: { ...b!.analytics, views: 99 } }, a!, c!] })
    stdin.write('r')
    const frame = await frameWhere(lastFrame, (f) => f.split('\n').some((l) => /› +Launch plan/.test(l) && l.includes('99')))
    expect(load.mock.calls.length).toBeGreaterThan(before)
    expect(frame.indexOf('Launch plan')).toBeLessThan(frame.indexOf('Quarterly review'))
  })

  it('keeps retrying while the server is away', async () => {
    let up = false
    const down = snapshot({ server: { url: SERVER, reachable: false, error: 'ECONNREFUSED' }, tunnel: null, folios: [], comments: null })
    const load = vi.fn(async () => (up ? snapshot() : down))
    const app = render(<LiveStatus load={load} toggleTunnel={async () => {}} open={async () => true} intervalMs={20} width={110} height={40} />)
    await frameWhere(app.lastFrame, (f) => f.includes('server not reachable'))
    up = true
    await frameWhere(app.lastFrame, (f) => f.includes('Quarterly review'))
    app.unmount()
  })

  it('q quits', async () => {
    const { lastFrame, stdin, onQuit } = live()
    await frameWhere(lastFrame, (f) => f.includes('Quarterly review'))
    stdin.write('q')
    await vi.waitFor(() => expect(onQuit).toHaveBeenCalledTimes(1))
  })
})

describe('qrLines', () => {
  it('draws a known URL as a square block with a quiet zone', () => {
    // https://example.com is a version 2 code: 25 × 25 modules, plus 2 on each side.
    const lines = qrLines('https://example.com')
    expect(lines).toHaveLength(Math.ceil(29 / 2))
    for (const line of lines) {
      expect(line).toHaveLength(29)
      expect(line).toMatch(/^[ ▀▄█]+$/)
    }
    // Quiet zone: the first line and the two outer columns on each side are blank.
    expect(lines[0]).toBe(' '.repeat(29))
    for (const line of lines) expect(line.slice(0, 2) + line.slice(-2)).toBe('    ')
    // Rows 0 and 1 of the finder pattern (top-left): a full bar over a hollow one.
    expect(lines[1]!.slice(2, 9)).toBe('█▀▀▀▀▀█')
    // Same input, same picture; other input, other picture.
    expect(qrLines('https://example.com')).toEqual(lines)
    expect(qrLines('https://example.org')).not.toEqual(lines)
    // Two module rows per line: a longer URL gives a bigger code, still (size + 4) wide.
    const big = qrLines(`https://example.com/${'a'.repeat(100)}`)
    expect(big[0]!.length).toBeGreaterThan(29)
    expect(big).toHaveLength(Math.ceil(big[0]!.length / 2))
  })

  it('draws the same modules as the qrcode package’s own text renderer', async () => {
    for (const url of ['https://example.com', 'https://brave-otter-42.loca.lt', 'http://127.0.0.1:3000/share/kL9VtGLOsbNK']) {
      expect(qrLines(url).join('\n')).toBe(await QRCode.toString(url, { type: 'utf8', errorCorrectionLevel: 'L', margin: 2 }))
    }
  })

  it('can invert for light-on-dark terminals and change the margin', () => {
    const plain = qrLines('https://example.com', { margin: 4 })
    expect(plain[0]).toHaveLength(33)
    const inverted = qrLines('https://example.com', { invert: true, margin: 4 })
    expect(inverted[0]).toBe('█'.repeat(33))
  })
})

describe('layout', () => {
  it('shares the rows between the list and the activity, dropping the QR code first', () => {
    expect(computeLayout({ width: 120, height: 40, folioCount: 30, tunnelLines: 2, tunnelLinesWithQr: 17, qrWidth: 33 })).toEqual({
      showQr: true,
      visibleRows: 5,
      activityLines: 3,
    })
    expect(computeLayout({ width: 120, height: 30, folioCount: 30, tunnelLines: 2, tunnelLinesWithQr: 17, qrWidth: 33 })).toEqual({
      showQr: false,
      visibleRows: 8,
      activityLines: 5,
    })
    // Too narrow for the code and the text beside it.
    expect(computeLayout({ width: 60, height: 40, folioCount: 30, tunnelLines: 2, tunnelLinesWithQr: 17, qrWidth: 33 }).showQr).toBe(false)
    // 80 × 24 with three folios: all of them, and three lines of activity.
    expect(computeLayout({ width: 80, height: 24, folioCount: 3, tunnelLines: 3, tunnelLinesWithQr: 0, qrWidth: 0 })).toEqual({
      showQr: false,
      visibleRows: 3,
      activityLines: 3,
    })
    expect(computeLayout({ width: 120, height: 10, folioCount: 30, tunnelLines: 1, tunnelLinesWithQr: 0, qrWidth: 0 })).toEqual({
      showQr: false,
      visibleRows: 1,
      activityLines: 1,
    })
  })

  it('windows the list around the selection', () => {
    expect(windowStart(0, 5, 3)).toBe(0)
    expect(windowStart(4, 5, 20)).toBe(0)
    expect(windowStart(5, 5, 20)).toBe(1)
    expect(windowStart(19, 5, 20)).toBe(15)
  })
})

describe('loadSnapshot and the text snapshot', () => {
  const s = useServer()

  it('reads folios, analytics, reactions, the tunnel and the latest comments through the client', async () => {
    const { api, ts: server } = s
    const older = await api.create('Older deck')
    const id = await api.create('Status deck', undefined, { status: 'published' })
    await api.send(recordAnalytics, { params: { id }, body: { isInitial: true, device: 'mobile', sessionSeconds: 30 } })
    await api.send(recordAnalytics, { params: { id }, body: { isInitial: true, device: 'desktop', sessionSeconds: 90 } })
    await api.send(react, { params: { id }, body: { increments: { '🔥': 2 } } })
    for (const text of ['one', 'two', 'three', 'four'])
      await api.send(createComment, { params: { id }, body: { text, versionId: 'v1', filename: 'index.html', author: 'Ann' } })

    const client = createClient({ server: server.url })
    const snap = await loadSnapshot(client, { server: server.url })
    expect(snap.server).toEqual({ url: server.url, reachable: true })
    expect(snap.tunnel).toMatchObject({ available: true, state: 'stopped', url: null })
    expect(snap.folios.map((f) => f.id)).toEqual([id, older])
    expect(snap.folios[0]).toMatchObject({ title: 'Status deck', status: 'published', latestVersionId: 'v1', reactions: { '🔥': 2 } })
    expect(snap.folios[0]!.analytics).toMatchObject({ views: 2, mobileViews: 1, desktopViews: 1, avgTimeSeconds: 60 })
    expect(snap.comments).toMatchObject({ folioId: id, state: 'ok', total: 4 })
    expect(snap.comments!.latest.map((c) => c.text)).toEqual(['four', 'three', 'two'])

    // A draft: the public endpoint tells this machine it is not published (403) and everyone else
    // that it is not there (404); the snapshot reads the owner's GET /api/files/{id}.
    expect((await api.send(listComments, { params: { id: older } })).status).toBe(403)
    expect((await testApi(server.server.tunnelTarget).send(listComments, { params: { id: older } })).status).toBe(404)
    const other = await loadSnapshot(client, { server: server.url, selectedId: older })
    expect(other.comments).toMatchObject({ folioId: older, state: 'ok', total: 0 })
    const gone = await loadSnapshot(client, { server: server.url, selectedId: 'nope' })
    expect(gone.comments!.folioId).toBe(id)

    const text = formatSnapshot(snap)
    expect(text).toContain(`Server  ${server.url} (reachable)`)
    expect(text).toContain('Tunnel  stopped')
    expect(text).toMatch(/Status deck\s+published\s+v1\s+2\s+1m 00s\s+1\/1\s+👍 0 {2}❤️ 0 {2}💡 0 {2}🔥 2/)
    expect(text).toContain('Latest comments on “Status deck” (4 in all):')
    expect(text).toContain('  Ann: four')
  })

  it('turns an unreachable server into a field, not an exception', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer().listen(0, '127.0.0.1')
    await once(probe, 'listening')
    const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`
    await new Promise((resolve) => probe.close(resolve))
    const snap = await loadSnapshot(createClient({ server: url }), { server: url })
    expect(snap.server).toEqual({ url, reachable: false, error: 'ECONNREFUSED' })
    expect(snap).toMatchObject({ tunnel: null, folios: [], comments: null })
    expect(formatSnapshot(snap)).toBe(`server not reachable at ${url} — start it with folio serve (ECONNREFUSED)`)
  })

  it('reads a 403 tunnel as Cloud mode, and every folio’s comments from the list itself', async () => {
    const comment = (id: string, text: string, extra: object = {}) => ({
      id,
      text,
      author: 'Ann',
      createdAt: `2026-01-01T10:0${id.slice(-1)}:00.000Z`,
      resolved: false,
      versionId: 'v1',
      filename: 'index.html',
      ...extra,
    })
    const asked: unknown[] = []
    const fake: StatusClient = {
      call: (async (contract: unknown) => {
        asked.push(contract)
        if (contract === getTunnel) throw new ApiClientError(403, 'Tunnel API only available in OSS mode')
        const comments = [comment('c_1', 'one'), comment('c_2', 'gone', { deletedAt: '2026-01-01T11:00:00.000Z' }), comment('c_3', 'three', { resolved: true })]
        return [{ ...folio('p1', 'Secret'), isPrivate: true, comments, versions: [] }]
      }) as StatusClient['call'],
    }
    const snap = await loadSnapshot(fake, { server: SERVER })
    expect(snap.tunnel).toEqual({ available: false, reason: 'cloud', message: 'no tunnel in Cloud mode' })
    // A private folio's comments are the owner's to read: the list has them, no request per folio.
    expect(asked).toEqual([listFolios, getTunnel])
    expect(snap.comments).toMatchObject({ folioId: 'p1', state: 'ok', total: 2, open: 1 })
    expect(snap.comments!.latest.map((c) => [c.id, c.text, c.resolved])).toEqual([
      ['c_3', 'three', true],
      ['c_1', 'one', false],
    ])
    const text = formatSnapshot(snap)
    expect(text).toContain('Tunnel  no tunnel in Cloud mode')
    expect(text).toContain('  Ann: three')
  })

  it('tells a refused key from a missing one', async () => {
    const fake: StatusClient = {
      call: (async () => {
        throw new ApiClientError(401, 'Unauthorized')
      }) as StatusClient['call'],
    }
    const refused = await loadSnapshot(fake, { server: SERVER, keySent: true })
    expect(refused.key).toBe('refused')
    expect(refused.foliosError).toMatch(/^the server refused the API key/)
    expect(refused.tunnel).toMatchObject({ available: false, message: 'the tunnel: the server refused the API key' })
    const missing = await loadSnapshot(fake, { server: SERVER })
    expect(missing.key).toBe('needed')
    expect(missing.foliosError).toMatch(/^the folio list needs the API key/)
  })

  it('builds share URLs, with the preview flag for drafts', () => {
    expect(shareUrlFor('http://h:1/', { id: 'a', status: 'published' })).toBe('http://h:1/share/a')
    expect(shareUrlFor('http://h:1', { id: 'a', status: 'draft' })).toBe('http://h:1/share/a?preview=1')
  })
})

describe('views at a glance', () => {
  it('draws the last 7 days as a sparkline, today last, and names the slides that held viewers longest', async () => {
    const { sparkline, topPartsLine } = await import('../src/tui/format.js')
    const today = new Date('2026-03-10T12:00:00Z')
    expect(sparkline([], 7, today)).toBe('·······')
    expect(
      sparkline(
        [
          { date: '2026-03-04', views: 1 },
          { date: '2026-03-08', views: 4 },
          { date: '2026-03-10', views: 8 },
          { date: '2026-02-01', views: 99 },
        ],
        7,
        today,
      ),
    ).toBe('▁···▄·█')
    expect(
      topPartsLine([
        { slide: 7, title: 'Pricing', totalTimeSeconds: 130 },
        { slide: 3, totalTimeSeconds: 40 },
      ]),
    ).toBe('slide 7 “Pricing” 2m 10s, slide 3 40s')
  })
})
