/** A --pool-size / FOLIO_POOL_SIZE value: a whole number of connections from 1 to 1000, else undefined. */
export function poolSizeOf(value: string): number | undefined {
  const n = Number(value)
  return Number.isInteger(n) && n >= 1 && n <= 1000 ? n : undefined
}

export const POOL_SIZE_HINT = 'a whole number of connections from 1 to 1000'
