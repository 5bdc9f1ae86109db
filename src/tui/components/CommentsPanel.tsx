import { Box, Text } from 'ink'
import type { ReactNode } from 'react'
import { oneLine } from '../format.js'
import type { CommentsSnapshot, FolioRow } from '../snapshot.js'

/** Lines the panel always takes: a title and three comment lines (so the layout does not jump). */
export const COMMENT_LINES = 3

/** The latest comments of the selected folio, newest first. */
export function CommentsPanel({ folio, comments }: { folio: FolioRow; comments: CommentsSnapshot | null }) {
  const current = comments && comments.folioId === folio.id ? comments : null
  const lines: { key: string; node: ReactNode }[] = []
  if (!current) lines.push({ key: 'loading', node: <Text dimColor>loading comments…</Text> })
  else if (current.state === 'hidden') lines.push({ key: 'hidden', node: <Text dimColor>{folio.status === 'draft' && !folio.isPrivate ? 'comments hidden (draft)' : 'comments hidden (private)'}</Text> })
  else if (current.state === 'error') lines.push({ key: 'error', node: <Text color="red" wrap="truncate-end">comments unavailable: {current.error}</Text> })
  else if (current.latest.length === 0) lines.push({ key: 'none', node: <Text dimColor>no comments yet</Text> })
  else
    current.latest.slice(0, COMMENT_LINES).forEach((c, i) =>
      lines.push({
        key: String(i),
        node: (
          <Text wrap="truncate-end" dimColor={c.resolved}>
            <Text bold>{oneLine(c.author, 24)}</Text>: {oneLine(c.text, 300)}
          </Text>
        ),
      }),
    )
  while (lines.length < COMMENT_LINES) lines.push({ key: `pad${lines.length}`, node: <Text> </Text> })
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>Comments</Text> on “{oneLine(folio.title, 60)}”
        {current && current.state === 'ok' && current.total > 0 ? <Text dimColor> ({current.total})</Text> : null}
      </Text>
      {lines.map((l) => (
        <Box key={l.key} paddingLeft={2}>
          {l.node}
        </Box>
      ))}
    </Box>
  )
}
