import { Box, Text } from 'ink'
import { cellText, type Column } from '../columns.js'
import { windowStart } from '../layout.js'
import type { FolioRow } from '../snapshot.js'

export interface FolioTableProps {
  folios: FolioRow[]
  selected: number
  visibleRows: number
  /** What fits the width (columns.ts). */
  columns: Column[]
  /** The cursor is dimmed while the keys move through the comments instead. */
  active?: boolean
}

function Cell({ width, children, bold, color, dim }: { width: number; children: string; bold?: boolean; color?: string; dim?: boolean }) {
  return (
    <Box width={width} paddingRight={1} flexShrink={0}>
      <Text wrap="truncate-end" bold={bold} color={color} dimColor={dim}>
        {children}
      </Text>
    </Box>
  )
}

const colorOf = (column: Column, f: FolioRow, selected: boolean): string | undefined => {
  if (column.key === 'title') return selected ? 'cyan' : undefined
  if (column.key === 'status') return f.status === 'published' ? 'green' : 'yellow'
  if (column.key === 'id') return 'gray'
  return undefined
}

/** One row per folio (most recently updated first), the selected one marked with ›. */
export function FolioTable({ folios, selected, visibleRows, columns, active = true }: FolioTableProps) {
  const start = windowStart(selected, visibleRows, folios.length)
  const shown = folios.slice(start, start + visibleRows)
  const below = folios.length - start - shown.length
  return (
    <Box flexDirection="column">
      <Box>
        {columns.map((c) => (
          <Cell key={c.key} width={c.width} dim>
            {c.header || ' '}
          </Cell>
        ))}
      </Box>
      {shown.map((f, i) => {
        const isSelected = start + i === selected
        return (
          <Box key={f.id}>
            {columns.map((c) =>
              c.key === 'cursor' ? (
                <Cell key={c.key} width={c.width} bold color="cyan" dim={!active}>
                  {isSelected ? '›' : ' '}
                </Cell>
              ) : (
                <Cell key={c.key} width={c.width} bold={isSelected && c.key === 'title'} color={colorOf(c, f, isSelected)}>
                  {cellText(c, f)}
                </Cell>
              ),
            )}
          </Box>
        )
      })}
      <Text dimColor>{[start > 0 ? `↑ ${start} more` : '', below > 0 ? `↓ ${below} more` : ''].filter(Boolean).join('  ') || ' '}</Text>
    </Box>
  )
}
