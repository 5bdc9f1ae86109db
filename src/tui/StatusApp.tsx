import { Box, Text, useInput, useStdout } from 'ink'
import { useEffect, useMemo, useRef, useState } from 'react'
import type { ActivityEntry } from './activity.js'
import { ActivityPanel } from './components/ActivityPanel.js'
import { CommentsPanel } from './components/CommentsPanel.js'
import { FolioTable } from './components/FolioTable.js'
import { Footer } from './components/Footer.js'
import { Header } from './components/Header.js'
import { TunnelPanel, tunnelHeadLines, tunnelHintLines } from './components/TunnelPanel.js'
import { tableColumns } from './columns.js'
import { type Action, actionOf, type Focus, pressesOf } from './keys.js'
import { computeLayout } from './layout.js'
import { wrapText } from './format.js'
import { qrLines } from './qr.js'
import { shareLinks } from './share-links.js'
import { commentsFor, type StatusSnapshot } from './snapshot.js'
import { unreachableLine } from './text.js'
import type { Busy, Message } from './types.js'

export interface StatusAppProps {
  /** null until the first answer. */
  snapshot: StatusSnapshot | null
  /** Index of the selected folio in snapshot.folios. */
  selected: number
  busy: Busy
  message: Message | null
  /** Which part the arrow keys move through (tab switches); folios unless said. */
  focus?: Focus
  /** Index of the selected comment in snapshot.comments.latest. */
  commentIndex?: number
  /** Recent activity, oldest first. */
  activity?: ActivityEntry[]
  /** What is watched live, beside the activity's title ("live: 3 folios"). */
  live?: string
  /** Terminal size; defaults to the stdout's (and follows resizes). */
  width?: number
  height?: number
  /** Seconds between refreshes, for the "retrying" line. */
  intervalSeconds?: number
  onMove?: (delta: number) => void
  onMoveComment?: (delta: number) => void
  onFocus?: (focus: Focus) => void
  /** Resolves the selected comment when it is open, reopens it when it is resolved. */
  onToggleResolved?: () => void
  onToggleTunnel?: () => void
  /** Opens the selected folio's share page; with the keys in the comments, at the selected one. */
  onOpen?: () => void
  onRefresh?: () => void
  onQuit?: () => void
}

/** The terminal's size, following resizes. */
function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout()
  const read = () => ({ columns: stdout.columns || 100, rows: stdout.rows || 30 })
  const [size, setSize] = useState(read)
  // biome-ignore lint/correctness/useExhaustiveDependencies: read() only reads stdout, which is listed
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
 * A press's action turned into the callback it means. Returns where the keys are after it: the
 * next press of the same chunk (tab then x) already goes there, before a render could say so.
 */
function perform(action: Action, p: StatusAppProps, focus: Focus): Focus {
  const hasFolio = Boolean(p.snapshot?.folios[p.selected])
  if (action === 'quit') p.onQuit?.()
  else if (action === 'back') return change(p, 'folios')
  else if (action === 'focus') return hasFolio ? change(p, focus === 'folios' ? 'comments' : 'folios') : focus
  else if (action === 'up' || action === 'down') (focus === 'comments' ? p.onMoveComment : p.onMove)?.(action === 'up' ? -1 : 1)
  else if (action === 'tunnel') p.onToggleTunnel?.()
  else if (action === 'refresh') p.onRefresh?.()
  else if (action === 'open') p.onOpen?.()
  else if (action === 'resolve') p.onToggleResolved?.()
  return focus
}

function change(p: StatusAppProps, focus: Focus): Focus {
  p.onFocus?.(focus)
  return focus
}

/**
 * The whole screen, drawn from props; keys become callbacks. No fetching and no state here:
 * LiveStatus owns both.
 */
export function StatusApp(props: StatusAppProps) {
  const { snapshot, selected, busy, message } = props
  const focus = props.focus ?? 'folios'
  const terminal = useTerminalSize()
  const width = props.width ?? terminal.columns
  const height = props.height ?? terminal.rows

  // Keys read the props of the latest render: Ink swaps the handler only after a render commits.
  const latest = useRef(props)
  latest.current = props
  useInput((input, key) => {
    let at = latest.current.focus ?? 'folios'
    for (const press of pressesOf(input, key)) {
      const action = actionOf(press.input, press.key, at)
      if (action) at = perform(action, latest.current, at)
    }
  })

  const tunnel = snapshot?.tunnel ?? null
  const folios = snapshot?.folios ?? []
  const folio = folios[selected] ?? null
  const links = snapshot && folio ? shareLinks(snapshot, folio) : null
  const qrText = busy ? null : (links?.qr ?? null)
  const qr = useMemo(() => (qrText ? qrLines(qrText) : null), [qrText])
  const panel = tunnel ? { tunnel, busy, folio, links, width } : null
  const head = panel ? tunnelHeadLines(panel).length : 1
  // A long message (a failed tunnel start) wraps rather than losing its cause; its extra lines come off the rest.
  const messageLines = message ? wrapText(message.text, width, { indent: '  ' }) : [' ']
  const layout = computeLayout({
    width,
    height: height - (messageLines.length - 1),
    folioCount: folios.length,
    tunnelLines: head + (panel ? tunnelHintLines({ ...panel, qr: null, qrHidden: Boolean(qr) }).length : 0),
    // The hints sit beside the code, a line below its top.
    tunnelLinesWithQr: panel && qr ? head + Math.max(qr.length, 1 + tunnelHintLines({ ...panel, qr, qrHidden: false }).length) : 0,
    qrWidth: qr?.[0]?.length ?? 0,
  })
  const columns = useMemo(() => tableColumns(width, folios), [width, folios])

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
            {panel ? <TunnelPanel {...panel} qr={layout.showQr ? qr : null} qrHidden={Boolean(qr) && !layout.showQr} /> : null}
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
                <FolioTable folios={folios} selected={selected} visibleRows={layout.visibleRows} columns={columns} active={focus === 'folios'} />
              )}
            </Box>
            {folio ? (
              <Box marginTop={1}>
                <CommentsPanel folio={folio} comments={commentsFor(snapshot, folio)} focused={focus === 'comments'} selected={props.commentIndex ?? 0} />
              </Box>
            ) : null}
            <Box marginTop={1}>
              <ActivityPanel entries={props.activity ?? []} lines={layout.activityLines} live={props.live ?? ''} />
            </Box>
          </>
        )}
      </Box>
      {messageLines.map((text, i) => (
        <Text key={i} color={message?.tone === 'error' ? 'red' : 'green'} wrap="truncate-end">
          {text}
        </Text>
      ))}
      <Footer focus={focus} />
    </Box>
  )
}
