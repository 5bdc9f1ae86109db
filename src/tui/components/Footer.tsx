import { Text } from 'ink'
import { type Focus, HELP } from '../keys.js'

export function Footer({ focus = 'folios' }: { focus?: Focus }) {
  return (
    <Text dimColor wrap="truncate-end">
      {HELP[focus]}
    </Text>
  )
}
