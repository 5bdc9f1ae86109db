import { Box, Text } from 'ink'
import type { TunnelSnapshot } from '../snapshot.js'
import type { Busy } from '../types.js'

export interface TunnelPanelProps {
  tunnel: TunnelSnapshot
  busy: Busy
  /** QR lines of the public URL, when connected and there is room. */
  qr: string[] | null
  /** A QR code exists but the terminal is too small for it. */
  qrHidden: boolean
}

const stateColor = { stopped: 'gray', starting: 'yellow', connected: 'green', reconnecting: 'yellow' } as const

/** Tunnel state, public URL, last error; the URL's QR code on the right. */
export function TunnelPanel({ tunnel, busy, qr, qrHidden }: TunnelPanelProps) {
  return (
    <Box>
      <Box flexDirection="column" flexShrink={1}>
        <Text wrap="truncate-end">
          <Text bold>Tunnel </Text>
          {busy ? (
            <Text color="yellow">{busy === 'start' ? 'starting…' : 'stopping…'}</Text>
          ) : !tunnel.available ? (
            <Text dimColor>{tunnel.message}</Text>
          ) : (
            <>
              <Text color={stateColor[tunnel.state]}>{tunnel.state === 'starting' || tunnel.state === 'reconnecting' ? `${tunnel.state}…` : tunnel.state}</Text>
              {tunnel.state === 'connected' && tunnel.url ? <Text>  {tunnel.url}</Text> : null}
            </>
          )}
        </Text>
        {tunnel.available && tunnel.lastError ? (
          <Text color="red" wrap="truncate-end">
            last error: {tunnel.lastError}
          </Text>
        ) : null}
        {qr ? <Text dimColor>scan to open it on a phone</Text> : null}
        {qrHidden ? <Text dimColor>(a taller terminal shows its QR code)</Text> : null}
      </Box>
      {qr ? (
        <Box flexDirection="column" flexShrink={0} marginLeft={4}>
          {qr.map((line, i) => (
            <Text key={i} color="black" backgroundColor="whiteBright">
              {line}
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  )
}

/** How many text lines the panel's left column takes (the layout needs it before rendering). */
export function tunnelTextLines(tunnel: TunnelSnapshot, qr: boolean): number {
  return 1 + (tunnel.available && tunnel.lastError ? 1 : 0) + (qr ? 1 : 0)
}
