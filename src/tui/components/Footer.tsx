import { Text } from 'ink'

export const HELP = '↑/↓ j/k select · t tunnel on/off · o open share page · r refresh · q quit'

export function Footer() {
  return (
    <Text dimColor wrap="truncate-end">
      {HELP}
    </Text>
  )
}
