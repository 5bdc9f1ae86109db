import { destinationProblem, guardedFetch, type OutboundPolicy, OutboundUnreachable } from '../http/outbound-guard.js'

/**
 * Posting a chat notification to a workspace's webhook URL. The URL is the workspace's to
 * choose, so it goes through the outbound guard (outbound-guard.ts): unless the operator allows
 * private targets (FOLIO_WEBHOOKS_ALLOW_PRIVATE=1, or the host in FOLIO_ALLOW_PRIVATE_HOSTS), an
 * address that is not public is refused when the URL is saved (address literals, localhost) and
 * again at every delivery, where the socket connects (a name may be re-pointed after it was
 * saved). Redirects are not followed: the answer is the receiver's.
 */

/** Why a webhook URL cannot be used (undefined: it can), judged without a network call. */
export function webhookUrlProblem(raw: string, policy: OutboundPolicy): string | undefined {
  const problem = destinationProblem(raw, policy)
  return problem === 'points into a private network'
    ? `${problem}; the operator may allow that with FOLIO_WEBHOOKS_ALLOW_PRIVATE=1 or FOLIO_ALLOW_PRIVATE_HOSTS`
    : problem
}

export interface DeliveryOptions {
  timeoutMs: number
  /** Which addresses may be reached (comment-notifier.ts: the operator's webhook settings). */
  policy: OutboundPolicy
  signal?: AbortSignal
}

/** What the receiver answered: its status, and how long it asked us to wait (429/503). */
export interface DeliveryAnswer {
  status: number
  retryAfterMs?: number
}

/**
 * POSTs `payload` as JSON; resolves with the answer's status, rejects on a refused address, a
 * network failure or the timeout. The messages are for the operator's log (they may carry the
 * socket's words: no API caller sees them).
 */
export async function postJson(rawUrl: string, payload: object, options: DeliveryOptions): Promise<DeliveryAnswer> {
  const problem = webhookUrlProblem(rawUrl, options.policy)
  if (problem) throw new Error(`The URL ${problem}`)
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
  try {
    const response = await guardedFetch({ ...options.policy, maxRedirects: 0 })(rawUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'folio-notifications' },
      body: JSON.stringify(payload),
      signal,
    })
    // The answer's body says nothing we use; read it (at most 64 KB) so the socket is freed.
    let read = 0
    const reader = response.body?.getReader()
    try {
      while (reader) {
        const { done, value } = await reader.read()
        if (done) break
        read += value.length
        if (read > 64 * 1024) {
          await reader.cancel()
          break
        }
      }
    } catch {
      // The status is the answer: a body cut short changes nothing.
    }
    return { status: response.status, retryAfterMs: retryAfterMs(response.headers.get('retry-after') ?? undefined) }
  } catch (error) {
    if (timeout.aborted && !options.signal?.aborted) throw new Error(`no answer within ${options.timeoutMs / 1000} s`)
    if (error instanceof OutboundUnreachable) throw new Error(`${error.message} (${error.detail})`)
    throw error
  }
}

function retryAfterMs(value: string | undefined): number | undefined {
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}
