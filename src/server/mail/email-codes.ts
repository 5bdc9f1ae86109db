import { createHash, randomInt, timingSafeEqual } from 'node:crypto'
import type { SharedState } from '../../store/index.js'

/** Wrong codes a code survives; the next wrong one burns it. */
export const CODE_ATTEMPTS = 5

interface StoredCode {
  email: string
  hash: string
  attempts: number
}

export type CodeCheck = { ok: true } | { ok: false; reason: 'none' | 'wrong' | 'exhausted'; attemptsLeft: number }

/** Six digits from the CSPRNG (spec: claim code length). */
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0')

/**
 * Codes sent by e-mail (agent claims, people signing in), kept in SharedState: only a hash, bound
 * to one address and one purpose, single-use, 5 attempts, gone when it expires. Attempts are
 * counted with compare-and-set, so parallel guesses cannot share one attempt.
 */
export class EmailCodes {
  readonly #shared: SharedState

  constructor(shared: SharedState) {
    this.#shared = shared
  }

  /** A new code for `purpose` (it replaces any earlier one), valid until `expiresAt`. */
  async issue(purpose: string, email: string, expiresAt: number): Promise<string> {
    const code = newCode()
    await this.#shared.set<StoredCode>(keyOf(purpose), { email, hash: hashOf(purpose, code), attempts: 0 }, expiresAt)
    return code
  }

  /** Checks a code; a right one is used up at once (only one caller can win it). */
  async check(purpose: string, email: string, code: string): Promise<CodeCheck> {
    const key = keyOf(purpose)
    for (;;) {
      const stored = await this.#shared.get<StoredCode>(key)
      if (!stored) return { ok: false, reason: 'none', attemptsLeft: 0 }
      const { value } = stored
      if (value.attempts >= CODE_ATTEMPTS) return { ok: false, reason: 'exhausted', attemptsLeft: 0 }
      const right = value.email === email && equalHex(value.hash, hashOf(purpose, code))
      if (right) {
        if (await this.#shared.delete(key, stored.version)) return { ok: true }
        continue
      }
      const attempts = value.attempts + 1
      if ((await this.#shared.set<StoredCode>(key, { ...value, attempts }, stored.expiresAt, stored.version)) === false) continue
      const attemptsLeft = CODE_ATTEMPTS - attempts
      return { ok: false, reason: attemptsLeft ? 'wrong' : 'exhausted', attemptsLeft }
    }
  }
}

const keyOf = (purpose: string) => `code:${purpose}`
const hashOf = (purpose: string, code: string) => createHash('sha256').update(`${purpose}\n${code}`).digest('hex')
const equalHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'))
