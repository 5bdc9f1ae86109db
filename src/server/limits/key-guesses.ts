import { isIP } from 'node:net'
import { LRUCache } from 'lru-cache'

/**
 * Bounds online guessing of private folios' access keys (POST /api/files/{id}/public) without
 * locking out the folio's own viewers. Budgets are per client and folio, so a guesser slows only
 * itself; a ceiling per folio bounds guessers with many addresses.
 *
 * A client is the socket's peer address (with --trust-proxy, the hop the operator's proxy
 * appended), IPv6 ones by their /64 (whoever has one address has the whole /64). Through the
 * tunnel every viewer is one client nobody can tell apart (remote.ts): the shared client, with a
 * larger budget and queue of its own, and never a newcomer.
 *
 * - A client's first `perClient` wrong keys on a folio are answered at once (its burst). Past
 *   them its next attempt waits baseDelayMs after the last wrong key, then twice that after each
 *   further one, up to maxDelayMs. `queue` attempts (1) may wait so; more get 429 with
 *   Retry-After, before the key is compared. A right key forgets an identified client's wrong
 *   keys; `quietMs` without a wrong key forgets any client's.
 * - Per folio, wrong keys from all clients together draw on a ceiling of `perFolio` per
 *   `windowMs` (a bucket that size, refilled evenly). Once it is empty, clients that guessed the
 *   folio wrong get 429 until it refills; a client that never did (a newcomer) is still answered
 *   at once, whatever others do: a viewer who is not guessing always gets in.
 *
 * At the defaults (5 at once, then 1, 2, 4, 8, 16 s, then one per 30 s; 600 an hour per folio):
 * - 1 address: 5 at once + 5 more within 31 s + one per 30 s for the rest of the hour
 *   ((3,600 − 31) / 30 → 118) = 128 guesses in the first hour, 120 an hour after that; the
 *   ceiling never comes into it.
 * - 100 addresses: they could make 100 × 128 = 12,800, the ceiling lets through the full bucket
 *   (600) + its refill (600) + one newcomer answer per address (100) = at most 1,300 in the first
 *   hour, and 600 an hour after (plus one per address that kept away from the folio for an hour).
 * - Through the tunnel (one shared client): 20 at once + 5 + 118 = 143 the first hour, 120 an
 *   hour after, and the tunnel's own viewers wait their turn behind them.
 * A key folio makes (119 bits: access-keys.ts) is out of reach at any of these rates; a word is
 * not. Memory is bounded (LRU: 100,000 client-and-folio states, 20,000 folios): an attacker who
 * cycles through more addresses (/64s) than that is a newcomer again each time it comes back to
 * one. That is the price of answering at once whoever never guessed wrong.
 */
export interface KeyGuessLimits {
  /** Wrong keys one client may give a folio that are answered at once. */
  perClient: number
  /** The same for the shared client (all the tunnel's viewers together). */
  perSharedClient: number
  /** Past the burst, the first delay; it doubles with every further wrong key… */
  baseDelayMs: number
  /** …up to this. */
  maxDelayMs: number
  /** Attempts of one client that may wait their delay at a time; more get 429. */
  queue: number
  /** The same for the shared client. */
  sharedQueue: number
  /** The ceiling: wrong keys per folio and windowMs from all clients together. */
  perFolio: number
  windowMs: number
  /** A client with no wrong key on a folio for this long is forgotten there. */
  quietMs: number
}

export const DEFAULT_KEY_GUESS_LIMITS: KeyGuessLimits = {
  perClient: 5,
  perSharedClient: 20,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  queue: 1,
  sharedQueue: 8,
  perFolio: 600,
  windowMs: 60 * 60_000,
  quietMs: 60 * 60_000,
}

/** Who asks: an id, and whether it names one client (false: several clients are one id). */
export interface Guesser {
  id: string
  identified: boolean
}

export type Admission = { attempt: Attempt } | { retryAfterSeconds: number }

/** An admitted attempt: say how it went (always: it is counted as pending until then). */
export interface Attempt {
  done(right: boolean): void
}

/** One client on one folio. */
interface ClientState {
  wrong: number
  lastWrong: number
  /** No attempt past the burst is compared before this. */
  notBefore: number
  /** Attempts admitted and not done yet. */
  pending: number
  /** Attempts waiting for their turn and delay. */
  waiting: number
  /** The waiting attempts, one after the other. */
  turn: Promise<void>
  /** Resolved when nothing is pending (a waiting attempt's delay depends on how those went). */
  settled: (() => void)[]
}

/** A folio's ceiling: a bucket of wrong keys. */
interface FolioState {
  tokens: number
  updated: number
  /** Attempts admitted against the bucket, not done yet. */
  reserved: number
}

/** Attempts waiting over all clients together: each holds a connection. */
const MAX_WAITING = 1_000

export class KeyGuessGuard {
  readonly #limits: KeyGuessLimits
  readonly #folios = new LRUCache<string, FolioState>({ max: 20_000 })
  readonly #clients = new LRUCache<string, ClientState>({ max: 100_000 })
  #waiting = 0

  constructor(limits: KeyGuessLimits) {
    this.#limits = limits
  }

  /** Waits for the attempt's turn (when slowed), or refuses it; the key is compared only after. */
  async admit(folioId: string, guesser: Guesser, now = Date.now()): Promise<Admission> {
    const limits = this.#limits
    const client = this.#client(`${folioId}\n${guesserKey(guesser.id)}`, now)
    const folio = this.#folio(folioId, now)
    const shared = !guesser.identified
    const burst = shared ? limits.perSharedClient : limits.perClient

    // A client that never guessed this folio wrong (and can be told apart) is answered, always.
    if (!shared && client.wrong === 0 && client.pending === 0 && client.waiting === 0) {
      return { attempt: this.#attempt(folio, client, { shared, reserved: false }) }
    }
    const slowed = client.wrong + client.pending + client.waiting >= burst
    const mustWait = slowed && (client.pending > 0 || client.waiting > 0 || now < client.notBefore)
    if (!mustWait) {
      if (!this.#hasRoom(folio, now)) return this.#refused(folio, client, burst, now)
      folio.reserved++
      return { attempt: this.#attempt(folio, client, { shared, reserved: true }) }
    }
    if (client.waiting >= (shared ? limits.sharedQueue : limits.queue) || this.#waiting >= MAX_WAITING || !this.#hasRoom(folio, now)) {
      return this.#refused(folio, client, burst, now)
    }
    client.waiting++
    this.#waiting++
    const previous = client.turn
    let release!: () => void
    client.turn = new Promise<void>((resolve) => (release = resolve))
    try {
      await previous
      if (client.pending > 0) await new Promise<void>((resolve) => client.settled.push(resolve))
      // Read when the turn comes: the attempts before set it.
      await sleep(client.notBefore - Date.now())
    } finally {
      client.waiting--
      this.#waiting--
    }
    const later = Date.now()
    if (!this.#hasRoom(folio, later)) {
      release()
      return this.#refused(folio, client, burst, later)
    }
    folio.reserved++
    const attempt = this.#attempt(folio, client, { shared, reserved: true })
    return {
      attempt: {
        done(right) {
          attempt.done(right)
          release()
        },
      },
    }
  }

  #attempt(folio: FolioState, client: ClientState, { shared, reserved }: { shared: boolean; reserved: boolean }): Attempt {
    const limits = this.#limits
    let finished = false
    client.pending++
    return {
      done: (right) => {
        if (finished) return
        finished = true
        client.pending--
        if (reserved) folio.reserved--
        const now = Date.now()
        if (right) {
          // Whoever is at that address has the key. The shared client is anyone: not forgiven.
          if (!shared) client.wrong = client.notBefore = 0
        } else {
          client.wrong++
          client.lastWrong = now
          const past = client.wrong - (shared ? limits.perSharedClient : limits.perClient)
          if (past >= 0) client.notBefore = now + this.#delay(past)
          this.#refill(folio, now)
          folio.tokens = Math.max(0, folio.tokens - 1)
        }
        if (client.pending === 0) for (const resolve of client.settled.splice(0)) resolve()
      },
    }
  }

  /** The delay after the wrong key `past` beyond the burst (0: the first past it). */
  #delay(past: number): number {
    return Math.min(this.#limits.maxDelayMs, this.#limits.baseDelayMs * 2 ** Math.min(past, 40))
  }

  /**
   * 429, with the time after which this client's attempt would be taken: its waiting slot free
   * (the attempt waiting now is compared once its delay is over; attempts still pending are
   * reckoned wrong) and the folio's bucket holding a wrong key again. It may then still wait its
   * own delay.
   */
  #refused(folio: FolioState, client: ClientState, burst: number, now: number): Admission {
    const past = client.wrong + client.pending - burst
    const notBefore = client.pending > 0 && past >= 0 ? Math.max(client.notBefore, now + this.#delay(past)) : client.notBefore
    const ownMs = notBefore - now
    const folioMs = ((1 - (folio.tokens - folio.reserved)) * this.#limits.windowMs) / this.#limits.perFolio
    return { retryAfterSeconds: Math.max(1, Math.ceil(Math.max(ownMs, folioMs) / 1000)) }
  }

  #hasRoom(folio: FolioState, now: number): boolean {
    this.#refill(folio, now)
    return folio.tokens - folio.reserved >= 1
  }

  #refill(folio: FolioState, now: number): void {
    const { perFolio, windowMs } = this.#limits
    folio.tokens = Math.min(perFolio, folio.tokens + (Math.max(0, now - folio.updated) * perFolio) / windowMs)
    folio.updated = Math.max(folio.updated, now)
  }

  #folio(id: string, now: number): FolioState {
    let state = this.#folios.get(id)
    if (!state) this.#folios.set(id, (state = { tokens: this.#limits.perFolio, updated: now, reserved: 0 }))
    return state
  }

  #client(key: string, now: number): ClientState {
    let state = this.#clients.get(key)
    if (!state) this.#clients.set(key, (state = { wrong: 0, lastWrong: 0, notBefore: 0, pending: 0, waiting: 0, turn: Promise.resolve(), settled: [] }))
    // A quiet spell forgets it (only when nothing of it is under way).
    if (state.wrong > 0 && state.pending === 0 && state.waiting === 0 && now - state.lastWrong >= this.#limits.quietMs) state.wrong = state.notBefore = 0
    return state
  }
}

/**
 * The client a budget belongs to: an IPv6 address by its /64 (an IPv4-mapped one as IPv4),
 * also behind the `remote:` of a forwarded hop; any other id as it is.
 */
export function guesserKey(id: string): string {
  const forwarded = id.startsWith('remote:')
  const address = (forwarded ? id.slice('remote:'.length) : id).replace(/%.*$/, '').toLowerCase()
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)
  const key = mapped ? mapped[1]! : isIP(address) === 6 ? prefix64(address) : address
  return forwarded ? `remote:${key}` : key
}

/** 2001:db8:a:b:1:2:3:4 → 2001:db8:a:b::/64 (any spelling of the same /64 gives the same text). */
function prefix64(address: string): string {
  const groups = (part: string) => (part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : [])
  const [head, tail] = address.split('::') as [string, string | undefined]
  const before = groups(head)
  const after = tail === undefined ? [] : groups(tail)
  const all = tail === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after]
  return `${all
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`
}

// Unref: a guesser waiting its turn must not keep a stopped server's process alive.
const sleep = (ms: number) => (ms <= 0 ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, ms).unref()))
