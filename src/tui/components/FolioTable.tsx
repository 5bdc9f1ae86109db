import { Box, Text } from 'ink'
import { averageTime, deviceSplit, reactionsLabel, statusLabel } from '../format.js'
import { COLUMNS, windowStart } from '../layout.js'
import type { FolioRow } from '../snapshot.js'

export interface FolioTableProps {
  folios: FolioRow[]
  selected: number
  visibleRows: number
  titleWidth: number
}

function Cell({ width, children, bold, color, dim }: { width?: number; children: string; bold?: boolean; color?: string; dim?: boolean }) {
  return (
    <Box width={width} paddingRight={1} flexShrink={width === undefined ? 1 : 0} flexGrow={width === undefined ? 1 : 0}>
      <Text wrap="truncate-end" bold={bold} color={color} dimColor={dim}>
        {children}
      </Text>
    </Box>
  )
}

/** One row per folio (most recently updated first), the selected one marked with ›. */
export function FolioTable({ folios, selected, visibleRows, titleWidth }: FolioTableProps) {
  const start = windowStart(selected, visibleRows, folios.length)
  const shown = folios.slice(start, start + visibleRows)
  const below = folios.length - start - shown.length
  return (
    <Box flexDirection="column">
      <Box>
        <Cell width={COLUMNS.cursor}>{' '}</Cell>
        <Cell width={titleWidth} dim>TITLE</Cell>
        <Cell width={COLUMNS.status} dim>STATUS</Cell>
        <Cell width={COLUMNS.version} dim>VER</Cell>
        <Cell width={COLUMNS.views} dim>VIEWS</Cell>
        <Cell width={COLUMNS.average} dim>AVG</Cell>
        <Cell width={COLUMNS.devices} dim>MOB/DESK</Cell>
        <Cell dim>REACTIONS</Cell>
      </Box>
      {shown.map((f, i) => {
        const isSelected = start + i === selected
        const color = isSelected ? 'cyan' : undefined
        return (
          <Box key={f.id}>
            <Cell width={COLUMNS.cursor} bold color="cyan">{isSelected ? '›' : ' '}</Cell>
            <Cell width={titleWidth} bold={isSelected} color={color}>{f.title.replace(/\s+/g, ' ')}</Cell>
            <Cell width={COLUMNS.status} color={f.status === 'published' ? 'green' : 'yellow'}>{statusLabel(f)}</Cell>
            <Cell width={COLUMNS.version}>{f.latestVersionId}</Cell>
            <Cell width={COLUMNS.views}>{String(f.analytics.views)}</Cell>
            <Cell width={COLUMNS.average}>{averageTime(f)}</Cell>
            <Cell width={COLUMNS.devices}>{deviceSplit(f)}</Cell>
            <Cell>{reactionsLabel(f.reactions)}</Cell>
          </Box>
        )
      })}
      <Text dimColor>{[start > 0 ? `↑ ${start} more` : '', below > 0 ? `↓ ${below} more` : ''].filter(Boolean).join('  ') || ' '}</Text>
    </Box>
  )
}
