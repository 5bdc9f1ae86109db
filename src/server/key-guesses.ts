import { LRUCache } from 'lru-cache'

/**
 * Bounds online guessing of private folios' access keys (POST /api/files/{id}/public). A key is a
 * password someone chose, so what matters is how many wrong keys get an answer per folio, from
 * all clients together: a guesser can claim to be many clients (through the tunnel it is not told
 * apart from anyone: remote.ts), so per-client limits alone bound nothing.
 *
 * - Each folio has a small budget of wrong keys per window, answered at once. Once it is used up
 *   the folio is under pressure until it has had no wrong key for `quietMs`.
 * - Under pressure, attempts go one at a time per folio, each after a delay that doubles with
 *   every wrong key (base, 2×base, … maxDelayMs), behind a queue of `queue` places; past it 429,
 *   before the key is compared: nobody learns right or wrong faster than that.
 * - A client that never guessed wrong on the folio (and can be told apart) keeps a small
 *   allowance of attempts answered at once, so a colleague with the key gets in during an attack.
 * - Each client also has a budget of wrong keys over all folios, past which its own delays grow.
 *
 * Under a sustained attack a folio answers about one wrong key per maxDelayMs (+ newcomers from
 * addresses never seen before, `newcomers` per window): about 1,440 a day at the defaults.
 */
export interface KeyGuessLimits {
  /** Wrong keys per folio and window, from all clients together, answered at once. */
  perFolio: number
  /** Wrong keys per client and window, over all folios, before its attempts slow down. */
  perClient: number
  /** Attempts per folio and window answered at once for clients that never guessed it wrong. */
  newcomers: number
  baseDelayMs: number
  maxDelayMs: number
  /** Attempts that may wait their turn per folio; past it 429. */
  queue: number
  /** A folio or client with no wrong key for this long is under pressure no more. */
  quietMs: number
  /** The window of the budgets (one minute). */
  windowMs?: number
}

export const DEFAULT_KEY_GUESS_LIMITS: KeyGuessLimits = {
  perFolio: 5,
  perClient: 10,
  newcomers: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  queue: 4,
  quietMs: 10 * 60_000,
}

/** Who asks: an id, and whether it names one client (false: several clients are one id). */
export interface Guesser {
  id: string
  identified: boolean
}

export type Admission = { attempt: Attempt } | { retryAfterSeconds: number }

/** An admitted attempt: say how it went (always: a slot is held until then). */
export interface Attempt {
  done(right: boolean): void
}

/** Wrong keys in the current window and the pressure they built up. */
interface Pressure {
  windowStart: number
  wrong: number
  /** Attempts answered at once, not done yet: counted against the budget already. */
  pending: number
  /** 0: calm; n: the next slowed attempt waits baseDelayMs × 2^(n-1). */
  strikes: number
  lastWrong: number
}

interface FolioState extends Pressure {
  newcomerWindowStart: number
  newcomers: number
  /** The slowed attempts, one after the other. */
  turn: Promise<void>
  waiting: number
}

interface ClientState extends Pressure {
  /** Folios this client has given a wrong key for (it is no newcomer there). */
  guessedWrong: Set<string>
}

const MAX_STRIKES = 30
/** Attempts waiting over all folios together: each holds a connection. */
const MAX_WAITING = 256

const calm = (now: number): Pressure => ({ windowStart: now, wrong: 0, pending: 0, strikes: 0, lastWrong: 0 })

export class KeyGuessGuard {
  readonly #limits: Required<KeyGuessLimits>
  readonly #folios = new LRUCache<string, FolioState>({ max: 20_000 })
  readonly #clients = new LRUCache<string, ClientState>({ max: 50_000 })
  #waiting = 0

  constructor(limits: KeyGuessLimits) {
    this.#limits = { windowMs: 60_000, ...limits }
  }

  /** Waits for the attempt's turn (when slowed), or refuses it; the key is compared only after. */
  async admit(folioId: string, guesser: Guesser, now = Date.now()): Promise<Admission> {
    const limits = this.#limits
    const folio = this.#folio(folioId, now)
    const client = this.#client(guesser.id, now)
    const newcomer = guesser.identified && client.strikes === 0 && !client.guessedWrong.has(folioId)

    if (withinBudget(folio, limits.perFolio) && withinBudget(client, limits.perClient)) {
      folio.pending++
      client.pending++
      return { attempt: this.#attempt(folioId, folio, client, { counted: true }) }
    }
    if (newcomer && this.#newcomerAllowed(folio, now)) {
      return { attempt: this.#attempt(folioId, folio, client, { counted: false }) }
    }
    if (folio.waiting >= limits.queue || this.#waiting >= MAX_WAITING) {
      return { retryAfterSeconds: Math.max(1, Math.ceil(((folio.waiting + 1) * this.#delay(folio, client)) / 1000)) }
    }
    folio.waiting++
    this.#waiting++
    const previous = folio.turn
    let release!: () => void
    folio.turn = new Promise<void>((resolve) => (release = resolve))
    try {
      await previous
      // The delay is read when the turn comes: the attempts before may have raised it.
      await sleep(this.#delay(folio, client))
    } finally {
      folio.waiting--
      this.#waiting--
    }
    const attempt = this.#attempt(folioId, folio, client, { counted: false })
    return {
      attempt: {
        done(right) {
          attempt.done(right)
          release()
        },
      },
    }
  }

  #attempt(folioId: string, folio: FolioState, client: ClientState, { counted }: { counted: boolean }): Attempt {
    const limits = this.#limits
    let finished = false
    return {
      done: (right) => {
        if (finished) return
        finished = true
        if (counted) {
          folio.pending--
          client.pending--
        }
        if (right) {
          client.guessedWrong.delete(folioId)
          return
        }
        const now = Date.now()
        strike(folio, limits.perFolio, now)
        strike(client, limits.perClient, now)
        client.guessedWrong.add(folioId)
      },
    }
  }

  /** A slowed attempt waits at least baseDelayMs: the wrong keys answered just before may not have struck yet. */
  #delay(folio: Pressure, client: Pressure): number {
    const { baseDelayMs, maxDelayMs } = this.#limits
    const strikes = Math.max(1, folio.strikes, client.strikes)
    return Math.min(maxDelayMs, baseDelayMs * 2 ** (strikes - 1))
  }

  #newcomerAllowed(folio: FolioState, now: number): boolean {
    if (now - folio.newcomerWindowStart >= this.#limits.windowMs) {
      folio.newcomerWindowStart = now
      folio.newcomers = 0
    }
    if (folio.newcomers >= this.#limits.newcomers) return false
    folio.newcomers++
    return true
  }

  #folio(id: string, now: number): FolioState {
    let state = this.#folios.get(id)
    if (!state) this.#folios.set(id, (state = { ...calm(now), newcomerWindowStart: now, newcomers: 0, turn: Promise.resolve(), waiting: 0 }))
    this.#age(state, now)
    return state
  }

  #client(id: string, now: number): ClientState {
    let state = this.#clients.get(id)
    if (!state) this.#clients.set(id, (state = { ...calm(now), guessedWrong: new Set() }))
    this.#age(state, now)
    return state
  }

  /** A new window resets the budget; a quiet spell ends the pressure. */
  #age(state: Pressure, now: number): void {
    if (now - state.windowStart >= this.#limits.windowMs) {
      state.windowStart = now
      state.wrong = 0
    }
    if (state.strikes > 0 && now - state.lastWrong >= this.#limits.quietMs) state.strikes = 0
  }
}

function withinBudget(state: Pressure, budget: number): boolean {
  return state.strikes === 0 && state.wrong + state.pending < budget
}

/** A wrong key: past the budget the pressure starts, and every further one raises it. */
function strike(state: Pressure, budget: number, now: number): void {
  state.wrong++
  state.lastWrong = now
  if (state.strikes > 0) state.strikes = Math.min(MAX_STRIKES, state.strikes + 1)
  else if (state.wrong >= budget) state.strikes = 1
}

// Unref: a guesser waiting its turn must not keep a stopped server's process alive.
const sleep = (ms: number) => (ms <= 0 ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, ms).unref()))
