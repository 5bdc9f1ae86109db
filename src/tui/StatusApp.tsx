import { Box, type Key, Text, useInput, useStdout } from 'ink'
import { useEffect, useMemo, useRef, useState } from 'react'
import { CommentsPanel } from './components/CommentsPanel.js'
import { FolioTable } from './components/FolioTable.js'
import { Footer } from './components/Footer.js'
import { Header } from './components/Header.js'
import { TunnelPanel, tunnelTextLines } from './components/TunnelPanel.js'
import { computeLayout } from './layout.js'
import { qrLines } from './qr.js'
import type { StatusSnapshot } from './snapshot.js'
import { unreachableLine } from './text.js'
import type { Busy, Message } from './types.js'

export interface StatusAppProps {
  /** null until the first answer. */
  snapshot: StatusSnapshot | null
  /** Index of the selected folio in snapshot.folios. */
  selected: number
  busy: Busy
  message: Message | null
  /** Terminal size; defaults to the stdout's (and follows resizes). */
  width?: number
  height?: number
  /** Seconds between refreshes, for the "retrying" line. */
  intervalSeconds?: number
  onMove?: (delta: number) => void
  onToggleTunnel?: () => void
  onOpen?: (folioId: string) => void
  onRefresh?: () => void
  onQuit?: () => void
}

/** The terminal's size, following resizes. */
function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout()
  const read = () => ({ columns: stdout.columns || 100, rows: stdout.rows || 30 })
  const [size, setSize] = useState(read)
  useEffect(() => {
    const onResize = () => setSize(read())
    stdout.on('resize', onResize)
    return () => {
      stdout.off('resize', onResize)
    }
  }, [stdout])
  return size
}

/**
 * Keys that reach the program together (key repeat: `jj`, a fast typist) come from Ink as one
 * string: each character is a press of its own. A single key (with its modifiers) stays as is.
 */
export function pressesOf(input: string, key: Key): { input: string; key: Key }[] {
  const chars = [...input]
  if (chars.length <= 1 || key.ctrl || key.meta) return [{ input, key }]
  const plain = Object.fromEntries(Object.entries(key).map(([name, value]) => [name, typeof value === 'boolean' ? false : undefined])) as unknown as Key
  return chars.map((char) => ({ input: char, key: { ...plain, shift: char !== char.toLowerCase() } }))
}

/**
 * The whole screen, drawn from props; keys become callbacks. No fetching and no state here:
 * LiveStatus owns both.
 */
export function StatusApp(props: StatusAppProps) {
  const { snapshot, selected, busy, message } = props
  const terminal = useTerminalSize()
  const width = props.width ?? terminal.columns
  const height = props.height ?? terminal.rows

  // Keys read the props of the latest render: Ink swaps the handler only after a render commits.
  const latest = useRef(props)
  latest.current = props
  useInput((input, key) => {
    for (const press of pressesOf(input, key)) onKey(press.input, press.key)
  })
  const onKey = (input: string, key: Key) => {
    const p = latest.current
    if (input === 'q' || key.escape || (key.ctrl && input === 'c')) return p.onQuit?.()
    if (key.upArrow || input === 'k') return p.onMove?.(-1)
    if (key.downArrow || input === 'j') return p.onMove?.(1)
    if (input === 't') return p.onToggleTunnel?.()
    if (input === 'r') return p.onRefresh?.()
    if (input === 'o' || key.return) {
      const folio = p.snapshot?.folios[p.selected]
      if (folio) p.onOpen?.(folio.id)
    }
  }

  const tunnel = snapshot?.tunnel ?? null
  const publicUrl = tunnel?.available && tunnel.state === 'connected' && !busy ? tunnel.url : null
  const qr = useMemo(() => (publicUrl ? qrLines(publicUrl) : null), [publicUrl])
  const folios = snapshot?.folios ?? []
  const layout = computeLayout({
    width,
    height,
    folioCount: folios.length,
    tunnelTextLines: tunnel ? tunnelTextLines(tunnel, Boolean(qr)) : 1,
    qrLines: qr?.length ?? 0,
  })
  const folio = folios[selected]

  return (
    <Box flexDirection="column" width={width}>
      <Header server={snapshot?.server.url ?? ''} reachable={snapshot ? snapshot.server.reachable : null} fetchedAt={snapshot?.fetchedAt ?? null} />
      <Box marginTop={1} flexDirection="column">
        {!snapshot ? (
          <Text dimColor>connecting…</Text>
        ) : !snapshot.server.reachable ? (
          <>
            <Text color="red" wrap="truncate-end">
              ✖ {unreachableLine(snapshot.server.url)}
            </Text>
            <Text dimColor wrap="truncate-end">
              retrying every {props.intervalSeconds ?? 2} s{snapshot.server.error ? ` (${snapshot.server.error})` : ''}
            </Text>
          </>
        ) : (
          <>
            {tunnel ? <TunnelPanel tunnel={tunnel} busy={busy} qr={layout.showQr ? qr : null} qrHidden={Boolean(qr) && !layout.showQr} /> : null}
            <Box marginTop={1} flexDirection="column">
              <Text bold>
                Folios <Text dimColor>({folios.length})</Text>
              </Text>
              {snapshot.foliosError ? (
                <Text color="red" wrap="truncate-end">
                  {snapshot.foliosError}
                </Text>
              ) : folios.length === 0 ? (
                <Text dimColor>No folios yet. Create one: folio create "My deck" --html deck.html</Text>
              ) : (
                <FolioTable folios={folios} selected={selected} visibleRows={layout.visibleRows} titleWidth={layout.titleWidth} />
              )}
            </Box>
            {folio ? (
              <Box marginTop={1}>
                <CommentsPanel folio={folio} comments={snapshot.comments} />
              </Box>
            ) : null}
          </>
        )}
      </Box>
      <Box marginTop={1}>
        <Text color={message?.tone === 'error' ? 'red' : 'green'} wrap="truncate-end">
          {message?.text ?? ' '}
        </Text>
      </Box>
      <Footer />
    </Box>
  )
}
