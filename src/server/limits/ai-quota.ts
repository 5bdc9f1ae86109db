import { ERRORS } from '../../api/errors.js'
import type { Principal } from '../../domain/principal.js'
import type { ServerContext } from '../context.js'
import { fail } from '../http/errors.js'

/** The month's counter of a workspace's AI messages; it lives until the month ends (UTC). */
function monthKey(workspaceId: string, now: Date): { key: string; expiresAt: number } {
  const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`
  return { key: `ai:${workspaceId}:${month}`, expiresAt: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) }
}

/** AI messages the workspace sent this month (0 in OSS, where there is no quota). */
export async function aiMessagesThisMonth(ctx: Pick<ServerContext, 'shared'>, workspaceId: string, now = new Date()): Promise<number> {
  return ctx.shared.count(monthKey(workspaceId, now).key)
}

/**
 * Counts one AI message against the caller's plan before it is sent (issue 14's AI endpoints
 * call this first): past the month's quota, 402 QUOTA_EXCEEDED and nothing is counted. Counted
 * first and taken back when over, so two instances never both let the last message through.
 * OSS has no quota.
 */
export async function chargeAiMessage(
  ctx: Pick<ServerContext, 'shared' | 'planLimits'>,
  principal: Principal | undefined,
  now = new Date(),
): Promise<{ used: number; limit: number } | undefined> {
  if (!ctx.planLimits || !principal) return undefined
  const { name, limits } = ctx.planLimits.planOf(principal.workspaceId)
  const { key, expiresAt } = monthKey(principal.workspaceId, now)
  const used = await ctx.shared.add(key, 1, expiresAt)
  if (used > limits.aiMessagesPerMonth) {
    await ctx.shared.add(key, -1, expiresAt)
    throw fail(
      ERRORS.quotaExceeded,
      `Your workspace has used the ${limits.aiMessagesPerMonth} AI messages of its ${name} plan this month; it resets on ${new Date(expiresAt).toISOString().slice(0, 10)}. Upgrade the plan for more.`,
    )
  }
  return { used, limit: limits.aiMessagesPerMonth }
}
