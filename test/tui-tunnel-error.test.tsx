import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { wrapText } from '../src/tui/format.js'
import type { StatusSnapshot, TunnelSnapshot } from '../src/tui/snapshot.js'
import { StatusApp } from '../src/tui/StatusApp.js'

// Issue 26: at 80 columns the tunnel's error was cut to "getaddrin…": its cause comes last, so it wraps.
const CAUSE = 'Could not reach the tunnel server https://localtunnel.me: getaddrinfo ENOTFOUND localtunnel.me'
const plain = (frame: string) => frame.replace(/\u001B\[[0-9;]*m/g, '')

const tunnel: TunnelSnapshot = {
  available: true,
  active: false,
  url: null,
  customTunnelUrl: '',
  state: 'stopped',
  lastError: CAUSE,
  provider: 'localtunnel',
  viewerPassword: null,
  viewerNotice: null,
  previousUrl: null,
}
const snapshot: StatusSnapshot = {
  server: { url: 'http://127.0.0.1:4517', reachable: true },
  tunnel,
  folios: [
    {
      id: 'aaa',
      title: 'Quarterly review',
      status: 'published',
      isPrivate: false,
      latestVersionId: 'v1',
      updatedAt: '2026-01-01T10:00:00.000Z',
      analytics: { views: 0, totalTimeSeconds: 0, avgTimeSeconds: 0, mobileViews: 0, desktopViews: 0 },
      reactions: {},
    },
  ],
  comments: null,
  fetchedAt: '2026-01-01T10:06:00.000Z',
}

afterEach(() => cleanup())

describe('the tunnel error at 80 columns', () => {
  it('shows the whole cause of the last error, on lines that fit, within the screen', () => {
    const frame = plain(render(<StatusApp snapshot={snapshot} selected={0} busy={null} message={null} width={80} height={24} />).lastFrame()!)
    const lines = frame.split('\n')
    const errorAt = lines.findIndex((line) => line.startsWith('last error: '))
    expect(lines[errorAt]).toBe('last error: Could not reach the tunnel server https://localtunnel.me:')
    expect(lines[errorAt + 1]).toBe('  getaddrinfo ENOTFOUND localtunnel.me')
    expect(lines.length).toBeLessThanOrEqual(24)
  })

  it('wraps a failed start’s message at the bottom too, and the rest makes room for it', () => {
    const message = { tone: 'error' as const, text: `tunnel start failed: ${CAUSE} (Tunnel failed)` }
    const frame = plain(
      render(
        <StatusApp snapshot={{ ...snapshot, tunnel: { ...tunnel, lastError: null } }} selected={0} busy={null} message={message} width={80} height={24} />,
      ).lastFrame()!,
    )
    expect(frame).toContain(
      'tunnel start failed: Could not reach the tunnel server https://localtunnel.me:\n  getaddrinfo ENOTFOUND localtunnel.me (Tunnel failed)',
    )
    expect(frame.split('\n').length).toBeLessThanOrEqual(24)
  })
})

describe('wrapText', () => {
  it('breaks at spaces, indents the later lines, cuts an overlong word, and ends a cut text with an ellipsis', () => {
    expect(wrapText('short', 80)).toEqual(['short'])
    expect(wrapText('', 80)).toEqual([''])
    expect(wrapText('aaa bbb ccc', 7, { indent: ' ' })).toEqual(['aaa bbb', ' ccc'])
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij'])
    expect(wrapText('one two three four five six', 9, { maxLines: 2 })).toEqual(['one two', 'three…'])
    for (const line of wrapText(CAUSE, 30, { indent: '  ', maxLines: 10 })) expect(line.length).toBeLessThanOrEqual(30)
  })
})
