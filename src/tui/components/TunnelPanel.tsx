import { Box, Text } from 'ink'
import type { ReactNode } from 'react'
import { tunnelPasswordLine } from '../../domain/tunnel-providers.js'
import { oneLine, wrapText } from '../format.js'
import type { ShareLinks } from '../share-links.js'
import type { FolioRow, TunnelSnapshot } from '../snapshot.js'
import type { Busy } from '../types.js'

export interface TunnelPanelProps {
  tunnel: TunnelSnapshot
  busy: Busy
  /** The selected folio and its links; null when there is no folio. */
  folio: FolioRow | null
  links: ShareLinks | null
  /** QR lines of links.qr, when there is room. */
  qr: string[] | null
  /** A QR code exists but the terminal is too small for it. */
  qrHidden: boolean
  /** The terminal's width: a long last error wraps to it. */
  width: number
}

const stateColor = { stopped: 'gray', starting: 'yellow', connected: 'green', reconnecting: 'yellow' } as const

/** Why a phone may not see the folio although it scanned the code. */
function caveat(folio: FolioRow): string | null {
  if (folio.status === 'draft') return 'a draft: publish it first'
  if (folio.isPrivate) return 'private: it asks for its key'
  return null
}

type Line = { key: string; node: ReactNode }

/** Full-width lines: the tunnel's state, its last error, the selected folio's share link. */
export function tunnelHeadLines({ tunnel, busy, folio, links, width }: Omit<TunnelPanelProps, 'qr' | 'qrHidden'>): Line[] {
  const lines: Line[] = []
  lines.push({
    key: 'state',
    node: (
      <Text wrap="truncate-end">
        <Text bold>Tunnel </Text>
        {busy ? (
          <Text color="yellow">{busy === 'start' ? 'starting…' : 'stopping…'}</Text>
        ) : !tunnel.available ? (
          <Text dimColor>{tunnel.message}</Text>
        ) : (
          <>
            <Text color={stateColor[tunnel.state]}>{tunnel.state === 'starting' || tunnel.state === 'reconnecting' ? `${tunnel.state}…` : tunnel.state}</Text>
            {tunnel.state === 'connected' && tunnel.url ? <Text>{`  ${tunnel.url}`}</Text> : null}
            <Text dimColor>{`  (${tunnel.provider})`}</Text>
          </>
        )}
      </Text>
    ),
  })
  if (tunnel.available && tunnel.state === 'connected' && tunnel.previousUrl) {
    lines.push({
      key: 'changed',
      node: (
        <Text color="yellow" wrap="truncate-end">
          new URL: links shared with {tunnel.previousUrl} no longer work
        </Text>
      ),
    })
  }
  if (tunnel.available && tunnel.state === 'connected' && tunnel.viewerPassword) {
    lines.push({ key: 'password', node: <Text wrap="truncate-end">{tunnelPasswordLine(tunnel.viewerPassword)}</Text> })
  }
  if (tunnel.available && tunnel.lastError) {
    // Wrapped, not cut: the cause (getaddrinfo ENOTFOUND …) comes last in the message.
    wrapText(`last error: ${tunnel.lastError}`, width, { indent: '  ' }).forEach((text, i) => {
      lines.push({
        key: `error-${i}`,
        node: (
          <Text color="red" wrap="truncate-end">
            {text}
          </Text>
        ),
      })
    })
  }
  if (folio && links) {
    lines.push({
      key: 'share',
      node: (
        <Text wrap="truncate-end">
          <Text bold>Share </Text> {links.share}
        </Text>
      ),
    })
  }
  return lines
}

/** What to do with the link: beside the QR code when there is one (short lines), else below the link. */
export function tunnelHintLines({ tunnel, busy, folio, links, qr, qrHidden }: TunnelPanelProps): string[] {
  if (!folio || !links) return []
  if (qr)
    return [
      `scan it to open “${oneLine(folio.title, 24)}”`,
      `on a phone${links.via === 'network' ? ' on this network' : ''}`,
      ...(caveat(folio) ? [caveat(folio)!] : []),
    ]
  if (qrHidden) return ['(a taller or wider terminal shows its QR code)']
  if (!links.qr && tunnel.available && tunnel.state === 'stopped' && !busy) return ['press t to start a tunnel: its QR code opens this folio on a phone']
  if (!links.qr && !tunnel.available) return ['only this machine reaches this address']
  return []
}

/** Tunnel state and the selected folio's share link; its QR code with what to do with it. */
export function TunnelPanel(props: TunnelPanelProps) {
  const { qr } = props
  const hints = tunnelHintLines(props).map((text) => (
    <Text key={text} dimColor wrap="truncate-end">
      {text}
    </Text>
  ))
  return (
    <Box flexDirection="column">
      {tunnelHeadLines(props).map((line) => (
        <Box key={line.key}>{line.node}</Box>
      ))}
      {qr ? (
        <Box>
          <Box flexDirection="column" flexShrink={0}>
            {qr.map((line, i) => (
              <Text key={i} color="black" backgroundColor="whiteBright">
                {line}
              </Text>
            ))}
          </Box>
          <Box flexDirection="column" flexShrink={1} marginLeft={2} marginTop={1}>
            {hints}
          </Box>
        </Box>
      ) : (
        hints
      )}
    </Box>
  )
}
