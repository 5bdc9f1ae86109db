import { Box, Text } from 'ink'
import type { ActivityEntry } from '../activity.js'
import { clockTime, oneLine } from '../format.js'

/** The newest `lines` entries of recent activity, newest at the bottom (as a log reads). */
export function ActivityPanel({ entries, lines, live }: { entries: ActivityEntry[]; lines: number; live: string }) {
  const shown = entries.slice(-lines)
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>Recent activity</Text> <Text dimColor>{live}</Text>
      </Text>
      {shown.length === 0 ? <Text dimColor>nothing yet: views, reactions and comments show up here as they happen</Text> : null}
      {shown.map((e, i) => (
        <Text key={`${e.at}-${i}-${e.text}`} wrap="truncate-end">
          <Text dimColor>{clockTime(e.at)}</Text> <Text bold>{oneLine(e.title, 24)}</Text> {e.text}
        </Text>
      ))}
      {Array.from({ length: Math.max(0, lines - Math.max(1, shown.length)) }, (_, i) => (
        <Text key={`pad${i}`}> </Text>
      ))}
    </Box>
  )
}
