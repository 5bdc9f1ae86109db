import { timingSafeEqual } from 'node:crypto'

/**
 * The same for two strings held in memory already, without the buffers: every character is
 * compared whatever differs first (only a difference of length, public for keys, answers early).
 */
export function stringsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/** Constant-time comparison of secrets of any length (timingSafeEqual needs equal lengths). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  const same = timingSafeEqual(a.length === b.length ? a : b, b)
  return same && a.length === b.length
}
