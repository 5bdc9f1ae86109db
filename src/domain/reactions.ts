/** The only reactions a folio collects (spec: Reactions). */
export const REACTION_EMOJI = ['👍', '❤️', '💡', '🔥'] as const
export type ReactionEmoji = (typeof REACTION_EMOJI)[number]
export type Reactions = Partial<Record<ReactionEmoji, number>>

const ALLOWED = new Set<string>(REACTION_EMOJI)

/**
 * Spec rules: unknown emoji are dropped, negative or non-numeric counts ignored, fractions
 * floored, and supplied counts merge into the existing map without removing other emoji.
 */
export function sanitizeReactions(input: Record<string, unknown>): Reactions {
  const clean: Reactions = {}
  for (const [emoji, count] of Object.entries(input)) {
    if (!ALLOWED.has(emoji)) continue
    if (typeof count !== 'number' || !Number.isFinite(count) || count < 0) continue
    clean[emoji as ReactionEmoji] = Math.min(Math.floor(count), Number.MAX_SAFE_INTEGER)
  }
  return clean
}

export function mergeReactions(existing: Reactions, supplied: Record<string, unknown>): Reactions {
  return { ...existing, ...sanitizeReactions(supplied) }
}

/**
 * What a request may do to the counts. The owner sets or adds any amount. A viewer's request is
 * one click per emoji: a set moves each count one step towards the number asked for, an
 * increment adds or takes back at most one. So no viewer can send a count past what clicking reaches in the
 * same time (the rate limit bounds the clicks), nor wipe everyone's counts in one request.
 */
export interface ReactionRequest {
  set?: Record<string, unknown>
  add?: Record<string, unknown>
  owner: boolean
}

export function applyReactionRequest(current: Reactions, request: ReactionRequest): Reactions {
  const next: Reactions = { ...current }
  for (const [key, target] of Object.entries(sanitizeReactions(request.set ?? {}))) {
    const emoji = key as ReactionEmoji
    const now = current[emoji] ?? 0
    next[emoji] = request.owner ? target : now + Math.sign(target - now)
  }
  for (const [key, by] of Object.entries(sanitizeIncrements(request.add ?? {}))) {
    const emoji = key as ReactionEmoji
    const step = request.owner ? by : Math.sign(by)
    next[emoji] = Math.max(0, Math.min((next[emoji] ?? 0) + step, Number.MAX_SAFE_INTEGER))
  }
  return next
}

/**
 * Amounts to add: whole numbers (fractions towards zero), negative ones too, since a viewer
 * takes a reaction back with -1; a count never goes below 0. Unknown emoji are dropped.
 */
export function sanitizeIncrements(input: Record<string, unknown>): Reactions {
  const clean: Reactions = {}
  for (const [emoji, by] of Object.entries(input)) {
    if (!ALLOWED.has(emoji) || typeof by !== 'number' || !Number.isFinite(by)) continue
    const whole = Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Math.trunc(by), Number.MAX_SAFE_INTEGER))
    if (whole !== 0) clean[emoji as ReactionEmoji] = whole
  }
  return clean
}
