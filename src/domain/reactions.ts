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
