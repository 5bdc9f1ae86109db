import type { Key } from 'ink'

/** What the keys of the live view do; the footer lists them for the part that has the keys. */
export type Focus = 'folios' | 'comments'
export type Action = 'quit' | 'back' | 'up' | 'down' | 'focus' | 'tunnel' | 'refresh' | 'open' | 'resolve'

export const HELP: Record<Focus, string> = {
  folios: '↑/↓ j/k select · tab comments · t tunnel on/off · o open · r refresh · q quit',
  comments: '↑/↓ j/k comment · x resolve/reopen · o open at it · tab/esc back · q quit',
}

/**
 * Keys that reach the program together (key repeat: `jj`, a fast typist) come from Ink as one
 * string: each character is a press of its own. A single key (with its modifiers) stays as is.
 */
export function pressesOf(input: string, key: Key): { input: string; key: Key }[] {
  const chars = [...input]
  if (chars.length <= 1 || key.ctrl || key.meta) return [{ input, key }]
  const plain = Object.fromEntries(Object.entries(key).map(([name, value]) => [name, typeof value === 'boolean' ? false : undefined])) as unknown as Key
  // Tab and Enter are characters too; Ink names them only when they come alone.
  return chars.map((char) => ({ input: char, key: { ...plain, shift: char !== char.toLowerCase(), tab: char === '\t', return: char === '\r' } }))
}

/** The action of one press where `focus` has the keys; null for a key that does nothing. */
export function actionOf(input: string, key: Key, focus: Focus): Action | null {
  if (input === 'q' || (key.ctrl && input === 'c')) return 'quit'
  if (key.escape) return focus === 'comments' ? 'back' : 'quit'
  if (key.tab || input === 'c') return 'focus'
  if (key.upArrow || input === 'k') return 'up'
  if (key.downArrow || input === 'j') return 'down'
  if (input === 't') return 'tunnel'
  if (input === 'r') return 'refresh'
  if (input === 'o' || key.return) return 'open'
  if (focus === 'comments' && (input === 'x' || input === ' ')) return 'resolve'
  return null
}
