import { chatPayload, viewPayload } from '../../domain/chat-messages.js'
import type { Comment, FolioMeta } from '../../domain/model.js'
import type { IntegrationsRepository, StoredIntegration } from '../../store/repositories/integrations-repository.js'
import { type OutboundPolicy, type OutboundSettings, outboundPolicy } from '../http/outbound-guard.js'
import { type DeliveryAnswer, type DeliveryOptions, postJson } from './webhook-delivery.js'

export interface WebhookSettings {
  /** FOLIO_WEBHOOKS_ALLOW_PRIVATE: webhooks may point into private networks (an operator's own chat server). */
  allowPrivate: boolean
  /** Tries per notification and webhook, the first included. */
  attempts: number
  /** The wait before the first retry; each next one is 4× longer, up to maxRetryMs. */
  firstRetryMs: number
  maxRetryMs: number
  /** One try's whole time, from connecting to the answer's end. */
  timeoutMs: number
  /** Notifications waiting (in flight or for a retry) in all; past it new ones are dropped, with a warning. */
  maxPending: number
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowPrivate: false,
  attempts: 5,
  firstRetryMs: 2_000,
  maxRetryMs: 5 * 60_000,
  timeoutMs: 10_000,
  maxPending: 10_000,
}

/** Where webhooks may post: public addresses, unless the operator allows private ones (all, or these hosts). */
export const webhookPolicy = (settings: WebhookSettings, outbound: OutboundSettings): OutboundPolicy =>
  outboundPolicy(outbound, { allowPrivate: settings.allowPrivate, maxRedirects: 0 })

export interface CommentNotifierDeps {
  integrations: Pick<IntegrationsRepository, 'get'>
  settings: WebhookSettings
  /** The operator's allowances for requests made on a user's behalf (FOLIO_ALLOW_PRIVATE_HOSTS). */
  outbound: OutboundSettings
  /** The folio's share page, absolute. */
  shareLink: (folioId: string) => string
  /** ctx.log: a warning without an error. */
  log: (message: string) => void
  /** The network call; tests keep the real one. */
  post?: (url: string, payload: object, options: DeliveryOptions) => Promise<DeliveryAnswer>
}

/** A receiver's answer worth another try: it is busy or broken now, not refusing us for good. */
const retryable = (status: number) => status === 408 || status === 425 || status === 429 || status >= 500

/**
 * Cloud: each new comment is posted to the workspace's chat integrations (spec, Notifications),
 * and so is the summary of each view of a folio whose owner asked for it (notifyViews).
 * Fire and forget for the comment: commentAdded returns at once and never throws; deliveries
 * run in the background, each webhook on its own, retried with exponential back-off (a
 * Retry-After is honoured) and given up with a warning that names the webhook's host only (its
 * path is a secret). Pending notifications live in memory: a stop drops them.
 */
export class CommentNotifier {
  readonly #deps: CommentNotifierDeps
  readonly #post: NonNullable<CommentNotifierDeps['post']>
  readonly #policy: OutboundPolicy
  readonly #timers = new Set<NodeJS.Timeout>()
  readonly #stop = new AbortController()
  #pending = 0
  #lastDropWarning = 0

  constructor(deps: CommentNotifierDeps) {
    this.#deps = deps
    this.#post = deps.post ?? postJson
    this.#policy = webhookPolicy(deps.settings, deps.outbound)
  }

  /** Pending deliveries (in flight or waiting for a retry). */
  get pending(): number {
    return this.#pending
  }

  commentAdded(meta: FolioMeta, comment: Comment): void {
    if (this.#stop.signal.aborted) return
    void this.#deps.integrations.get(meta.workspaceId).then(
      (integrations) => {
        if (integrations.length === 0) return
        const notice = { folioTitle: meta.title, author: comment.author, text: comment.text, link: this.#deps.shareLink(meta.id) }
        for (const integration of integrations) this.#enqueue(integration, chatPayload(integration.format, notice))
      },
      (error: unknown) => this.#deps.log(`Chat notifications for a comment on ${meta.id} were not sent: ${String(error)}`),
    )
  }

  /** A view ended on a folio whose owner asked to hear of it (notifyViews): its summary, to every chat integration. */
  viewEnded(meta: FolioMeta, text: string): void {
    if (this.#stop.signal.aborted) return
    void this.#deps.integrations.get(meta.workspaceId).then(
      (integrations) => {
        const notice = { folioTitle: meta.title, text, link: this.#deps.shareLink(meta.id) }
        for (const integration of integrations) this.#enqueue(integration, viewPayload(integration.format, notice))
      },
      (error: unknown) => this.#deps.log(`Chat notifications for a view of ${meta.id} were not sent: ${String(error)}`),
    )
  }

  /** Cancels retries and deliveries in flight (shutdown). */
  close(): void {
    this.#stop.abort()
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers.clear()
  }

  #enqueue(integration: StoredIntegration, payload: object): void {
    if (this.#pending >= this.#deps.settings.maxPending) {
      if (Date.now() - this.#lastDropWarning > 60_000) {
        this.#lastDropWarning = Date.now()
        this.#deps.log(`Dropped chat notifications: ${this.#pending} are already waiting (receivers are slow or down).`)
      }
      return
    }
    this.#pending++
    void this.#attempt(integration, payload, 1)
  }

  async #attempt(integration: StoredIntegration, payload: object, attempt: number): Promise<void> {
    const { settings } = this.#deps
    let outcome: string
    let waitAtLeast = 0
    try {
      const answer = await this.#post(integration.url, payload, { timeoutMs: settings.timeoutMs, policy: this.#policy, signal: this.#stop.signal })
      if (answer.status >= 200 && answer.status < 300) return this.#done()
      if (!retryable(answer.status)) {
        this.#deps.log(`The chat webhook at ${hostOf(integration.url)} refused a notification (${answer.status}); check the workspace's integrations.`)
        return this.#done()
      }
      outcome = `answered ${answer.status}`
      waitAtLeast = answer.retryAfterMs ?? 0
    } catch (error) {
      if (this.#stop.signal.aborted) return this.#done()
      outcome = error instanceof Error ? error.message : String(error)
    }
    if (attempt >= settings.attempts || this.#stop.signal.aborted) {
      if (!this.#stop.signal.aborted)
        this.#deps.log(`A chat notification to ${hostOf(integration.url)} failed ${attempt} times (last: ${outcome}); it is dropped, the comment is kept.`)
      return this.#done()
    }
    const backoff = Math.min(settings.maxRetryMs, settings.firstRetryMs * 4 ** (attempt - 1))
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer)
        void this.#attempt(integration, payload, attempt + 1)
      },
      Math.min(settings.maxRetryMs, Math.max(backoff, waitAtLeast)),
    )
    timer.unref()
    this.#timers.add(timer)
  }

  #done(): void {
    this.#pending--
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'an invalid URL'
  }
}
