import { timingSafeEqual } from 'node:crypto'

/** Constant-time comparison of secrets of any length (timingSafeEqual needs equal lengths). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  const same = timingSafeEqual(a.length === b.length ? a : b, b)
  return same && a.length === b.length
}
