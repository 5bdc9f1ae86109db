import { randomUUID } from 'node:crypto'
import type { EngagementKind, EngagementRepository } from './repositories/engagement-repository.js'
import type { FolioChange, FolioRepository } from './repositories/folio-repository.js'
import type { FolioViews } from './repositories/folio-views.js'
import type { IntegrationsRepository } from './repositories/integrations-repository.js'
import type { PubSub } from './coordination/pub-sub.js'
import type { SettingsRepository } from './repositories/settings-repository.js'
import type { WorkspaceRepository } from './repositories/workspace-repository.js'

/** The one channel the store's changes travel on between instances. */
export const CHANGES_CHANNEL = 'store-changes'

/**
 * A change as it travels: who made it (`from`, the instance), what kind of thing, its id, and
 * how it changed. Ids only: a receiver reads the rest from the storage.
 */
export type ChangeMessage = { from: string; id: string } & (
  | { kind: 'folio'; change: FolioChange }
  | { kind: 'engagement'; change: EngagementKind }
  | { kind: 'workspace'; change: 'key' | 'records' }
  | { kind: 'integrations' }
  | { kind: 'setting' }
  /** A SharedState record some instance mirrors in memory (credentials) changed or went: `id` is its key. */
  | { kind: 'shared' }
)

/** The repositories whose changes travel, and whose caches drop on another instance's change. */
export interface ChangeFeedParts {
  folios: FolioRepository
  engagement: EngagementRepository
  views: FolioViews
  workspaces: WorkspaceRepository
  integrations: IntegrationsRepository
  settings: SettingsRepository
}

type Message = ChangeMessage extends infer M ? (M extends ChangeMessage ? Omit<M, 'from'> : never) : never

/**
 * Several instances over one storage (issue 15): every change a repository makes here is
 * published on PubSub; every other instance, hearing it, drops what it cached of that thing and
 * fires its own change listeners as a local change would, so the hot cache, the workspace lists
 * and live.ts's event streams follow changes made anywhere. An instance's own messages come
 * back to it (PubSub delivers to every subscriber) and are skipped by their `from`.
 *
 * Delivery is at most once: on `gap` (messages may have been lost while the connection was
 * down) everything cached is dropped, workspaces are read again, and onReset's listeners (the
 * hot cache, live streams) drop or resend what they derived. What a holder of a lock reads is
 * fresh whatever the feed missed: the locks' onStale drops it first (locks.ts).
 */
export class ChangeFeed {
  /** This instance, in every message it sends. */
  readonly instance = randomUUID()
  readonly #pubSub: PubSub
  readonly #parts: ChangeFeedParts
  readonly #warn: (message: string) => void
  readonly #resets = new Set<() => void>()
  readonly #sharedListeners = new Set<(key: string | undefined) => void>()
  readonly #stops: Array<() => void> = []
  /** While another instance's change is replayed here: the listeners it fires must not publish it again. */
  #hearing = false

  constructor(pubSub: PubSub, parts: ChangeFeedParts, warn: (message: string) => void = (m) => console.warn(m)) {
    this.#pubSub = pubSub
    this.#parts = parts
    this.#warn = warn
    const { folios, engagement, workspaces, integrations, settings } = parts
    this.#stops.push(
      folios.onChange((id, change) => this.#publish({ kind: 'folio', id, change })),
      engagement.onChange((id, change) => this.#publish({ kind: 'engagement', id, change })),
      // 'heard' is what this instance read after another's change: never sent on.
      workspaces.onChange((id, change) => change !== 'heard' && this.#publish({ kind: 'workspace', id, change })),
      integrations.onChange((id) => this.#publish({ kind: 'integrations', id })),
      settings.onChange((id) => this.#publish({ kind: 'setting', id })),
      pubSub.subscribe(CHANGES_CHANNEL, { message: (text) => this.#heard(text), gap: () => this.#gap() }),
    )
  }

  /** Called after everything cached was dropped (a gap): drop or resend what was derived from it. */
  onReset(listener: () => void): () => void {
    this.#resets.add(listener)
    return () => this.#resets.delete(listener)
  }

  /**
   * A SharedState record that instances mirror in memory (server/auth/credential-index.ts) was
   * written or removed here: the others drop their copy (and read it again when asked for it).
   */
  sharedChanged(key: string): void {
    this.#publish({ kind: 'shared', id: key })
  }

  /** Called with the key of a mirrored SharedState record another instance changed; with none after a gap (drop every copy). */
  onSharedChange(listener: (key: string | undefined) => void): () => void {
    this.#sharedListeners.add(listener)
    return () => this.#sharedListeners.delete(listener)
  }

  /** Stops publishing and hearing (the store is closing). */
  close(): void {
    for (const stop of this.#stops.splice(0)) stop()
  }

  #publish(message: Message): void {
    if (this.#hearing) return
    const text = JSON.stringify({ ...message, from: this.instance })
    // The change is durable already; an instance that misses the message reads fresh under the
    // lock, and its cache catches up on the next message or gap.
    this.#pubSub
      .publish(CHANGES_CHANNEL, text)
      .catch((error: unknown) => this.#warn(`Could not tell the other instances of a change (${message.kind} ${message.id}): ${describe(error)}`))
  }

  #heard(text: string): void {
    let message: ChangeMessage
    try {
      message = JSON.parse(text) as ChangeMessage
    } catch {
      return this.#warn(`Ignored a change message that is not JSON: ${text.slice(0, 80)}`)
    }
    // Its own come back too; one without an id (another version's?) would drop everything.
    if (message?.from === this.instance || typeof message?.id !== 'string') return
    const { folios, engagement, workspaces, integrations, settings } = this.#parts
    this.#hearing = true
    try {
      if (message.kind === 'folio') folios.heard(message.id, message.change)
      else if (message.kind === 'engagement') engagement.heard(message.id, message.change)
      else if (message.kind === 'integrations') integrations.forget(message.id)
      else if (message.kind === 'setting') settings.forget(message.id)
      else if (message.kind === 'shared') for (const listener of this.#sharedListeners) listener(message.id)
      else if (message.kind === 'workspace') {
        workspaces
          .heard(message.id, message.change)
          .catch((error: unknown) => this.#warn(`Could not read workspace ${message.id} again after another instance changed it: ${describe(error)}`))
      }
    } finally {
      this.#hearing = false
    }
  }

  #gap(): void {
    const { folios, engagement, views, workspaces, integrations, settings } = this.#parts
    folios.forget()
    engagement.forget()
    integrations.forget()
    settings.forget()
    this.#hearing = true
    try {
      views.forgetAll()
      for (const listener of this.#sharedListeners) listener(undefined)
      for (const listener of this.#resets) listener()
    } finally {
      this.#hearing = false
    }
    workspaces.forgetAll().catch((error: unknown) => this.#warn(`Could not read the workspaces again after missing messages: ${describe(error)}`))
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))
