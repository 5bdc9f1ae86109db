import type { Principal } from '../domain/principal.js'
import type { Plan, Plans, SharedState, WorkspaceRepository } from '../store/index.js'
import type { RateLimitState } from './rate-limit.js'

const MINUTE = 60_000

/**
 * Cloud: what a workspace's plan allows, counted where every instance sees the same count
 * (SharedState). Requests per minute are counted per workspace, whoever in it asks and whatever
 * credential they use, in fixed one-minute windows.
 */
export class PlanLimits {
  readonly #shared: SharedState
  readonly #workspaces: WorkspaceRepository
  readonly #plans: Plans

  constructor(shared: SharedState, workspaces: WorkspaceRepository, plans: Plans) {
    this.#shared = shared
    this.#workspaces = workspaces
    this.#plans = plans
  }

  /** The plan a workspace is on now (plans.json may have changed since it was given). */
  planOf(workspaceId: string): { name: string; limits: Plan } {
    const name = this.#workspaces.get(workspaceId)?.plan ?? this.#plans.names()[0]!
    return { name, limits: this.#plans.of(name) }
  }

  /** Counts one authenticated request of the caller's workspace. */
  async hit(principal: Principal, now = Date.now()): Promise<RateLimitState> {
    const limit = this.planOf(principal.workspaceId).limits.requestsPerMinute
    const window = await this.#shared.hit(`rate:${principal.workspaceId}`, MINUTE, now)
    const allowed = window.count <= limit
    return { allowed, limit, remaining: allowed ? limit - window.count : 0, reset: Math.ceil(window.resetAt / 1000) }
  }
}
