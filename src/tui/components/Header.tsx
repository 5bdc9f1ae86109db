import { Box, Text } from 'ink'
import { clockTime } from '../format.js'

export function Header({ server, reachable, fetchedAt }: { server: string; reachable: boolean | null; fetchedAt: string | null }) {
  return (
    <Box justifyContent="space-between">
      <Text wrap="truncate-end">
        <Text bold>folio status</Text>
        {'  '}
        {server}
        {'  '}
        {reachable === null ? <Text dimColor>connecting…</Text> : reachable ? <Text color="green">● online</Text> : <Text color="red">● offline</Text>}
      </Text>
      {fetchedAt ? <Text dimColor>updated {clockTime(fetchedAt)}</Text> : null}
    </Box>
  )
}
