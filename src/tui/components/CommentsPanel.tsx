import { Box, Text } from 'ink'
import type { ReactNode } from 'react'
import { oneLine, topPartsLine } from '../format.js'
import { COMMENT_ROWS, windowStart } from '../layout.js'
import type { CommentsSnapshot, FolioRow } from '../snapshot.js'

export interface CommentsPanelProps {
  folio: FolioRow
  comments: CommentsSnapshot | null
  /** The keys move through the comments (tab): the selected one is marked. */
  focused: boolean
  /** Index in comments.latest of the selected comment. */
  selected: number
}

/** The latest comments of the selected folio, newest first; with the focus, one of them selected (to resolve or reopen). */
export function CommentsPanel({ folio, comments, focused, selected }: CommentsPanelProps) {
  const current = comments && comments.folioId === folio.id ? comments : null
  const lines: { key: string; node: ReactNode }[] = []
  const start = current ? windowStart(selected, COMMENT_ROWS, current.latest.length) : 0
  if (!current) lines.push({ key: 'loading', node: <Text dimColor>{'  loading comments…'}</Text> })
  else if (current.latest.length === 0) lines.push({ key: 'none', node: <Text dimColor>{'  no comments yet'}</Text> })
  else
    current.latest.slice(start, start + COMMENT_ROWS).forEach((c, i) => {
      const isSelected = focused && start + i === selected
      lines.push({
        key: c.id,
        node: (
          <Text wrap="truncate-end" dimColor={c.resolved && !isSelected}>
            <Text color="cyan" bold>
              {isSelected ? '› ' : '  '}
            </Text>
            <Text color={c.resolved ? 'green' : undefined}>{c.resolved ? '✓ ' : ''}</Text>
            <Text bold color={isSelected ? 'cyan' : undefined}>
              {oneLine(c.author || 'Guest', 24)}
            </Text>
            {c.parentId ? <Text dimColor> (reply)</Text> : null}: {oneLine(c.text, 300)}
          </Text>
        ),
      })
    })
  while (lines.length < COMMENT_ROWS) lines.push({ key: `pad${lines.length}`, node: <Text> </Text> })
  const top = topPartsLine(folio.analytics.topParts)
  const counts = current && current.total > 0 ? `${current.open} open of ${current.total}` : ''
  const more =
    current && current.latest.length > COMMENT_ROWS
      ? ` · ${start + 1}–${Math.min(start + COMMENT_ROWS, current.latest.length)} of the latest ${current.latest.length}`
      : ''
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color={focused ? 'cyan' : undefined}>
          Comments
        </Text>{' '}
        on “{oneLine(folio.title, 60)}”
        {counts ? (
          <Text dimColor>
            {' '}
            ({counts}
            {more})
          </Text>
        ) : null}
        {top ? <Text dimColor>{` · most time: ${top}`}</Text> : null}
      </Text>
      {lines.map((l) => (
        <Box key={l.key}>{l.node}</Box>
      ))}
    </Box>
  )
}
