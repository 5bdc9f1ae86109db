import { ERRORS } from '../../api/errors.js'
import { type ApiError, fail } from '../http/errors.js'
import { limitFor } from './rate-limit.js'

/**
 * Open live-update streams (Server-Sent Events): each holds a socket for as long as a share page
 * is open, so one client may hold a few and the server a bounded number in all. The rate limit
 * bounds how fast they are opened; this bounds how many stay open.
 */
export class StreamSlots {
  readonly #perClient: number
  readonly #total: number
  readonly #byClient = new Map<string, number>()
  #open = 0

  constructor(limits: { perClient: number; total: number }) {
    this.#perClient = limits.perClient
    this.#total = limits.total
  }

  /** A slot for the client's new stream, and how to give it back; or the 429 to answer. */
  take(client: string): { release: () => void } | { refused: ApiError } {
    const mine = this.#byClient.get(client) ?? 0
    const limit = limitFor(client, this.#perClient)
    if (mine >= limit) {
      return { refused: refusal(`This client has ${limit} live-update streams open already (share pages in other tabs?): close some, then reload.`) }
    }
    if (this.#open >= this.#total)
      return { refused: refusal(`This server keeps ${this.#total} live-update streams in all open, and has that many: try again shortly.`) }
    this.#open++
    this.#byClient.set(client, mine + 1)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        this.#open--
        const left = (this.#byClient.get(client) ?? 1) - 1
        if (left === 0) this.#byClient.delete(client)
        else this.#byClient.set(client, left)
      },
    }
  }

  get open(): number {
    return this.#open
  }
}

const refusal = (message: string) => fail(ERRORS.tooManyRequests, message, { 'retry-after': '30' })
